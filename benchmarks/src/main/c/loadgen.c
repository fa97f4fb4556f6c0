/*
 * Conduit benchmark load generator: one thread, one epoll instance, loopback TCP.
 *
 *   loadgen pingpong HOST PORT CONNECTIONS MILLIS MESSAGE_BYTES
 *       Every connection sends MESSAGE_BYTES, waits until as many bytes came back, records the round-trip time
 *       (CLOCK_MONOTONIC, nanoseconds) in a log-linear histogram, and sends again, until MILLIS milliseconds have passed.
 *   loadgen stream HOST PORT CONNECTIONS MILLIS CHUNK_BYTES
 *       Every connection writes CHUNK_BYTES blocks as fast as the socket accepts them and reads what the echo
 *       server sends back; the result counts the bytes read back.
 *   loadgen pingpong|stream HOST PORT CONNECTIONS MILLIS BYTES framed
 *       The same over length-field frames (4-byte big-endian length, then that many bytes): a ping-pong message is
 *       one frame of BYTES bytes, header included, written in two write(2) calls (the first FRAMED_SPLIT bytes, then
 *       the rest) so that it reaches the server split across reads; a stream block of BYTES bytes holds whole
 *       frames of FRAME_BYTES bytes and a short write resumes where it stopped, so the stream stays framed.
 *       The echo of a frame is the same bytes, so the counting is unchanged.
 *   loadgen idle HOST PORT CONNECTIONS
 *       Opens CONNECTIONS connections, prints "CONNECTED n", then holds them, silent, until standard input
 *       reaches end of file; closes them with an RST (SO_LINGER 0) so no TIME_WAIT state is left behind.
 *
 * Output: one line starting with "RESULT " and key=value pairs (times in nanoseconds, sizes in bytes; cpu_ns is
 * this process's user + system CPU time during the measured window, to show whether the client was the limit);
 * errors go to standard error and the exit status is non-zero. The run never exceeds MILLIS plus connection
 * set-up (bounded by a 10 s connect deadline per connection).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- log-linear histogram: 128 linear sub-buckets per power of two, relative error < 1/128 ---- */
#define SUB_BITS 7
#define SUB_COUNT (1 << SUB_BITS)
#define BUCKETS ((64 - SUB_BITS + 1) * SUB_COUNT)

static uint64_t histogram[BUCKETS];
static uint64_t histogram_total;
static uint64_t histogram_max;

static int bucket_of(uint64_t v) {
    if (v < SUB_COUNT) {
        return (int) v;
    }
    int shift = (63 - __builtin_clzll(v)) - SUB_BITS;
    return ((shift + 1) << SUB_BITS) + (int) ((v >> shift) & (SUB_COUNT - 1));
}

/* Highest value that maps to the bucket (what HdrHistogram calls the highest equivalent value). */
static uint64_t bucket_high(int index) {
    if (index < SUB_COUNT) {
        return (uint64_t) index;
    }
    int shift = (index >> SUB_BITS) - 1;
    uint64_t low = ((uint64_t) (SUB_COUNT + (index & (SUB_COUNT - 1)))) << shift;
    return low + (((uint64_t) 1) << shift) - 1;
}

static void record(uint64_t v) {
    histogram[bucket_of(v)]++;
    histogram_total++;
    if (v > histogram_max) {
        histogram_max = v;
    }
}

static uint64_t percentile(double p) {
    if (histogram_total == 0) {
        return 0;
    }
    uint64_t rank = (uint64_t) ((p / 100.0) * (double) histogram_total + 0.5);
    if (rank < 1) {
        rank = 1;
    }
    uint64_t seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
        seen += histogram[i];
        if (seen >= rank) {
            uint64_t high = bucket_high(i);
            return high < histogram_max ? high : histogram_max;
        }
    }
    return histogram_max;
}

/* ---- helpers ---- */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* User plus system CPU time this process used so far, in nanoseconds (getrusage(2)). */
static uint64_t cpu_ns(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (uint64_t) (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000ull
            + (uint64_t) (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000ull;
}

static void die(const char *what) {
    fprintf(stderr, "loadgen: %s failed: %s (errno %d)\n", what, strerror(errno), errno);
    exit(2);
}

static long parse_long(const char *text, const char *name, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "loadgen: %s must be an integer in [%ld, %ld], got '%s'\n", name, min, max, text);
        exit(1);
    }
    return v;
}

/* Blocking connect with a 10 s deadline, then non-blocking with TCP_NODELAY. */
static int open_connection(const struct sockaddr_in *address) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        die("socket");
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *) address, sizeof *address) < 0) {
        if (errno != EINPROGRESS) {
            die("connect");
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n;
        do {
            n = poll(&p, 1, 10000);
        } while (n < 0 && errno == EINTR);
        if (n == 0) {
            errno = ETIMEDOUT;
            die("connect (10 s deadline)");
        }
        int error = 0;
        socklen_t length = sizeof error;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
            errno = error;
            die("connect");
        }
    }
    return fd;
}

static void close_with_reset(int fd) {
    struct linger l = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close(fd);
}

/* Framed mode: the first write(2) of a ping-pong frame, and the frame size in stream blocks. */
#define FRAMED_SPLIT 7
#define FRAME_BYTES 64

/* Fills buf with length-field frames of frame_bytes each (4-byte big-endian length frame_bytes - 4, then fill). */
static void fill_frames(char *buf, int total_bytes, int frame_bytes, char fill) {
    memset(buf, fill, (size_t) total_bytes);
    for (int at = 0; at + frame_bytes <= total_bytes; at += frame_bytes) {
        uint32_t length = htonl((uint32_t) (frame_bytes - 4));
        memcpy(buf + at, &length, 4);
    }
}

typedef struct {
    int fd;
    uint32_t write_offset; /* framed stream: where in the block the next write starts */
    uint32_t received;   /* bytes of the current reply read so far (ping-pong) */
    uint64_t sent_at_ns; /* when the current message was written (ping-pong) */
} connection;

static int epoll_add(int epfd, int fd, uint32_t events, uint32_t index) {
    struct epoll_event ev = {.events = events, .data.u32 = index};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* ---- modes ---- */
/* Writes one ping-pong message: in one write(2), or framed in two; 0 when all of it was written. */
static int send_message(int fd, const char *message, int message_bytes, int framed) {
    if (!framed) {
        return write(fd, message, (size_t) message_bytes) == message_bytes ? 0 : -1;
    }
    if (write(fd, message, FRAMED_SPLIT) != FRAMED_SPLIT) {
        return -1;
    }
    return write(fd, message + FRAMED_SPLIT, (size_t) (message_bytes - FRAMED_SPLIT))
            == message_bytes - FRAMED_SPLIT ? 0 : -1;
}

static int run_pingpong(const struct sockaddr_in *address, int count, long millis, int message_bytes, int framed) {
    connection *conns = calloc((size_t) count, sizeof *conns);
    char *message = malloc((size_t) message_bytes);
    char *scratch = malloc(65536);
    if (framed) {
        fill_frames(message, message_bytes, message_bytes, 'x');
    } else {
        memset(message, 'x', (size_t) message_bytes);
    }
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        die("epoll_create1");
    }
    for (int i = 0; i < count; i++) {
        conns[i].fd = open_connection(address);
        if (epoll_add(epfd, conns[i].fd, EPOLLIN, (uint32_t) i) < 0) {
            die("epoll_ctl");
        }
    }
    uint64_t start = now_ns();
    uint64_t cpu_start = cpu_ns();
    uint64_t deadline = start + (uint64_t) millis * 1000000ull;
    uint64_t errors = 0;
    for (int i = 0; i < count; i++) {
        conns[i].sent_at_ns = now_ns();
        if (send_message(conns[i].fd, message, message_bytes, framed) != 0) {
            die("write of the first message");
        }
    }
    struct epoll_event events[256];
    uint64_t now = start;
    while (now < deadline) {
        int ready = epoll_wait(epfd, events, 256, 100);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        now = now_ns();
        for (int e = 0; e < ready; e++) {
            connection *c = &conns[events[e].data.u32];
            ssize_t n = read(c->fd, scratch, 65536);
            if (n <= 0) {
                if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                    continue;
                }
                fprintf(stderr, "loadgen: server closed a connection (read returned %zd, errno %d)\n", n, errno);
                return 3;
            }
            c->received += (uint32_t) n;
            while (c->received >= (uint32_t) message_bytes) {
                c->received -= (uint32_t) message_bytes;
                record(now - c->sent_at_ns);
                if (now < deadline && c->received == 0) {
                    c->sent_at_ns = now_ns();
                    if (send_message(c->fd, message, message_bytes, framed) != 0) {
                        errors++; /* a 64-byte write into an empty socket buffer does not come up short */
                    }
                }
            }
        }
    }
    uint64_t elapsed = now - start;
    uint64_t cpu = cpu_ns() - cpu_start;
    printf("RESULT mode=pingpong framed=%d connections=%d elapsed_ns=%llu cpu_ns=%llu ops=%llu p50_ns=%llu p90_ns=%llu "
           "p99_ns=%llu p999_ns=%llu max_ns=%llu errors=%llu\n",
           framed, count, (unsigned long long) elapsed, (unsigned long long) cpu, (unsigned long long) histogram_total,
           (unsigned long long) percentile(50), (unsigned long long) percentile(90),
           (unsigned long long) percentile(99), (unsigned long long) percentile(99.9),
           (unsigned long long) histogram_max, (unsigned long long) errors);
    for (int i = 0; i < count; i++) {
        close_with_reset(conns[i].fd);
    }
    return errors == 0 ? 0 : 4;
}

static int run_stream(const struct sockaddr_in *address, int count, long millis, int chunk_bytes, int framed) {
    connection *conns = calloc((size_t) count, sizeof *conns);
    char *chunk = malloc((size_t) chunk_bytes);
    char *scratch = malloc(262144);
    if (framed) {
        fill_frames(chunk, chunk_bytes, FRAME_BYTES, 'y');
    } else {
        memset(chunk, 'y', (size_t) chunk_bytes);
    }
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        die("epoll_create1");
    }
    for (int i = 0; i < count; i++) {
        conns[i].fd = open_connection(address);
        if (epoll_add(epfd, conns[i].fd, EPOLLIN | EPOLLOUT, (uint32_t) i) < 0) {
            die("epoll_ctl");
        }
    }
    uint64_t start = now_ns();
    uint64_t cpu_start = cpu_ns();
    uint64_t deadline = start + (uint64_t) millis * 1000000ull;
    uint64_t written = 0, read_back = 0;
    struct epoll_event events[256];
    uint64_t now = start;
    while (now < deadline) {
        int ready = epoll_wait(epfd, events, 256, 100);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        for (int e = 0; e < ready; e++) {
            connection *c = &conns[events[e].data.u32];
            if (events[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
                for (;;) {
                    ssize_t n = read(c->fd, scratch, 262144);
                    if (n > 0) {
                        read_back += (uint64_t) n;
                        if (n < 262144) {
                            break;
                        }
                        continue;
                    }
                    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                        break;
                    }
                    fprintf(stderr, "loadgen: server closed a connection (read returned %zd, errno %d)\n", n, errno);
                    return 3;
                }
            }
            if (events[e].events & EPOLLOUT) {
                /* Unframed, every write starts a new block; framed, a short write resumes where it stopped. */
                uint32_t from = framed ? c->write_offset : 0;
                ssize_t n = write(c->fd, chunk + from, (size_t) chunk_bytes - from);
                if (n > 0) {
                    written += (uint64_t) n;
                    c->write_offset = (uint32_t) ((from + (uint64_t) n) % (uint64_t) chunk_bytes);
                } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                    die("write");
                }
            }
        }
        now = now_ns();
    }
    uint64_t elapsed = now - start;
    uint64_t cpu = cpu_ns() - cpu_start;
    printf("RESULT mode=stream framed=%d connections=%d elapsed_ns=%llu cpu_ns=%llu bytes=%llu written=%llu errors=0\n",
           framed, count,
           (unsigned long long) elapsed, (unsigned long long) cpu, (unsigned long long) read_back,
           (unsigned long long) written);
    for (int i = 0; i < count; i++) {
        close_with_reset(conns[i].fd);
    }
    return 0;
}

static int run_idle(const struct sockaddr_in *address, int count) {
    int *fds = calloc((size_t) count, sizeof *fds);
    for (int i = 0; i < count; i++) {
        fds[i] = open_connection(address);
    }
    printf("CONNECTED %d\n", count);
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        /* hold until end of input */
    }
    for (int i = 0; i < count; i++) {
        close_with_reset(fds[i]);
    }
    printf("RESULT mode=idle connections=%d errors=0\n", count);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: loadgen pingpong|stream HOST PORT CONNECTIONS MILLIS BYTES [framed] | loadgen idle HOST PORT CONNECTIONS\n");
        return 1;
    }
    struct sockaddr_in address = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, argv[2], &address.sin_addr) != 1) {
        fprintf(stderr, "loadgen: HOST must be an IPv4 address, got '%s'\n", argv[2]);
        return 1;
    }
    address.sin_port = htons((uint16_t) parse_long(argv[3], "PORT", 1, 65535));
    int count = (int) parse_long(argv[4], "CONNECTIONS", 1, 1000000);
    if (strcmp(argv[1], "idle") == 0) {
        return run_idle(&address, count);
    }
    if (argc != 7 && !(argc == 8 && strcmp(argv[7], "framed") == 0)) {
        fprintf(stderr, "loadgen: %s needs HOST PORT CONNECTIONS MILLIS BYTES [framed]\n", argv[1]);
        return 1;
    }
    long millis = parse_long(argv[5], "MILLIS", 1, 3600000);
    int bytes = (int) parse_long(argv[6], "BYTES", 1, 1 << 24);
    int framed = argc == 8;
    if (strcmp(argv[1], "pingpong") == 0) {
        if (framed && bytes <= FRAMED_SPLIT) {
            fprintf(stderr, "loadgen: a framed ping-pong message needs more than %d bytes, got %d\n", FRAMED_SPLIT, bytes);
            return 1;
        }
        return run_pingpong(&address, count, millis, bytes, framed);
    }
    if (strcmp(argv[1], "stream") == 0) {
        if (framed && bytes % FRAME_BYTES != 0) {
            fprintf(stderr, "loadgen: a framed stream block must be a multiple of %d bytes, got %d\n", FRAME_BYTES, bytes);
            return 1;
        }
        return run_stream(&address, count, millis, bytes, framed);
    }
    fprintf(stderr, "loadgen: unknown mode '%s' (pingpong, stream, idle)\n", argv[1]);
    return 1;
}
