/*
 * Conduit benchmark echo server: one thread, one epoll instance (level-triggered), loopback TCP. It is the upstream
 * that benchmarks/relay.sh puts behind each proxy, so the proxies are measured against a server that costs little.
 *
 *   echoserver PORT
 *       Listens on 127.0.0.1:PORT (0: a free port), prints "LISTENING <port>" once it accepts connections, and echoes
 *       every byte back until SIGTERM or SIGINT.
 *
 * A connection may start with a PROXY protocol header (version 1, "PROXY ... \r\n", or version 2, the 12-byte
 * signature and a length): the header is skipped, not echoed, so a proxy that sends one can be measured like one that
 * does not. Bytes after the header are echoed as usual. A connection whose first byte is 'P' or '\r' but whose header
 * is malformed is closed.
 *
 * Back-pressure: while a reply is not fully written the connection is not read, so memory per connection stays at
 * one buffer of BUFFER_BYTES.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFFER_BYTES 65536
#define V1_MAX_BYTES 108 /* the longest version 1 header, "\r\n" included */
#define V2_FIXED_BYTES 16

static const unsigned char V2_SIGNATURE[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

enum state { DETECT, ECHO };

typedef struct {
    int fd;
    enum state state;
    size_t start; /* first byte of buf not written back yet */
    size_t end;   /* end of the bytes read into buf */
    unsigned char buf[BUFFER_BYTES];
} connection;

static volatile sig_atomic_t stopping;

static void on_signal(int signal_number) {
    (void) signal_number;
    stopping = 1;
}

static void die(const char *what) {
    fprintf(stderr, "echoserver: %s failed: %s (errno %d)\n", what, strerror(errno), errno);
    exit(2);
}

/*
 * How many bytes at the start of c->buf are a PROXY protocol header: 0 when the connection does not start with one,
 * -1 while more bytes are needed, -2 when it is malformed.
 */
static long header_length(const connection *c) {
    const unsigned char *b = c->buf;
    size_t n = c->end;
    if (b[0] == 'P') {
        size_t limit = n < V1_MAX_BYTES ? n : V1_MAX_BYTES;
        for (size_t i = 1; i < limit; i++) {
            if (b[i - 1] == '\r' && b[i] == '\n') {
                return memcmp(b, "PROXY ", n < 6 ? n : 6) == 0 ? (long) (i + 1) : -2;
            }
        }
        return n >= V1_MAX_BYTES ? -2 : -1;
    }
    if (b[0] == 0x0D) {
        size_t compare = n < sizeof V2_SIGNATURE ? n : sizeof V2_SIGNATURE;
        if (memcmp(b, V2_SIGNATURE, compare) != 0) {
            return -2;
        }
        if (n < V2_FIXED_BYTES) {
            return -1;
        }
        size_t total = V2_FIXED_BYTES + (((size_t) b[14] << 8) | b[15]);
        if (total > BUFFER_BYTES) {
            return -2;
        }
        return n >= total ? (long) total : -1;
    }
    return 0;
}

static void close_connection(int epfd, connection *c) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c);
}

static int set_interest(int epfd, connection *c, uint32_t events) {
    struct epoll_event ev = {.events = events, .data.ptr = c};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes what is pending; 0 when all of it went, 1 when the socket is full, -1 on an error. */
static int flush_pending(connection *c) {
    while (c->start < c->end) {
        ssize_t w = write(c->fd, c->buf + c->start, c->end - c->start);
        if (w > 0) {
            c->start += (size_t) w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            return 1;
        } else {
            return -1;
        }
    }
    c->start = c->end = 0;
    return 0;
}

static void on_readable(int epfd, connection *c) {
    ssize_t n = read(c->fd, c->buf + c->end, BUFFER_BYTES - c->end);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n <= 0) {
        close_connection(epfd, c);
        return;
    }
    c->end += (size_t) n;
    if (c->state == DETECT) {
        long header = header_length(c);
        if (header == -1) {
            return;
        }
        if (header == -2) {
            close_connection(epfd, c);
            return;
        }
        c->start = (size_t) header;
        c->state = ECHO;
    }
    int flushed = flush_pending(c);
    if (flushed < 0 || (flushed > 0 && set_interest(epfd, c, EPOLLOUT) < 0)) {
        close_connection(epfd, c);
    }
}

static void on_writable(int epfd, connection *c) {
    int flushed = flush_pending(c);
    if (flushed < 0 || (flushed == 0 && set_interest(epfd, c, EPOLLIN) < 0)) {
        close_connection(epfd, c);
    }
}

static void accept_all(int epfd, int listener) {
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
                fprintf(stderr, "echoserver: accept4 failed: %s (errno %d)\n", strerror(errno), errno);
            }
            return;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        connection *c = calloc(1, sizeof *c);
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->state = DETECT;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            close(fd);
            free(c);
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: echoserver PORT\n");
        return 1;
    }
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (*end != '\0' || port < 0 || port > 65535) {
        fprintf(stderr, "echoserver: PORT must be an integer in [0, 65535], got '%s'\n", argv[1]);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener < 0) {
        die("socket");
    }
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *) &address, sizeof address) < 0) {
        die("bind");
    }
    if (listen(listener, 4096) < 0) {
        die("listen");
    }
    socklen_t length = sizeof address;
    getsockname(listener, (struct sockaddr *) &address, &length);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        die("epoll_create1");
    }
    struct epoll_event listen_event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, listener, &listen_event) < 0) {
        die("epoll_ctl");
    }
    printf("LISTENING %d\n", ntohs(address.sin_port));
    fflush(stdout);

    struct epoll_event events[256];
    while (!stopping) {
        int ready = epoll_wait(epfd, events, 256, 1000);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        for (int e = 0; e < ready; e++) {
            connection *c = events[e].data.ptr;
            if (c == NULL) {
                accept_all(epfd, listener);
            } else if (events[e].events & EPOLLOUT) {
                on_writable(epfd, c);
            } else {
                on_readable(epfd, c);
            }
        }
    }
    return 0;
}
