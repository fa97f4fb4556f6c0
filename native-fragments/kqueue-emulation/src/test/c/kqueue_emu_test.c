/*
 * kqueue_emu_test.c - behaviour tests of the test-only kqueue emulation (kqueue_emu.h).
 * Each test is a function; all use socketpairs or loopback, bounded timeouts, and a process-wide
 * watchdog (alarm) so a hang fails the build instead of stalling it. Last output line: "N passed, N failed".
 */
#define _GNU_SOURCE
#include "kqueue_emu.h"
#include "check.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define WATCHDOG_SECONDS 120
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* ---- helpers ---------------------------------------------------------------------------------------- */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* Waits up to timeout_ms (0 = poll) for events. */
static int wait_events(int kq, struct kevent *events, int nevents, long timeout_ms)
{
    struct timespec t = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
    return kevent(kq, NULL, 0, events, nevents, &t);
}

/* Applies one change with no event list: returns kevent's result (0, or -1 with errno). */
static int change(int kq, uintptr_t ident, short filter, unsigned short flags, unsigned int fflags,
                  int64_t data, void *udata)
{
    struct kevent kev;
    EV_SET(&kev, ident, filter, flags, fflags, data, udata);
    return kevent(kq, &kev, 1, NULL, 0, NULL);
}

static int nonblocking_pair(int sv[2])
{
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv);
}

static int open_fd_count(void)
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) {
        return -1;
    }
    int count = 0;
    while (readdir(dir) != NULL) {
        count++;
    }
    closedir(dir);
    return count; /* includes ".", ".." and the directory's own fd: constant offset */
}

static int tcp_listener(struct sockaddr_in *bound)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen(fd, 16) != 0
            || getsockname(fd, (struct sockaddr *) &addr, &len) != 0) {
        close(fd);
        return -1;
    }
    *bound = addr;
    return fd;
}

/* ---- tests ------------------------------------------------------------------------------------------ */

static void struct_kevent_has_freebsd_layout(void)
{
    CHECK_EQ(sizeof(struct kevent), 64);
    CHECK_EQ(offsetof(struct kevent, ident), 0);
    CHECK_EQ(offsetof(struct kevent, filter), 8);
    CHECK_EQ(offsetof(struct kevent, flags), 10);
    CHECK_EQ(offsetof(struct kevent, fflags), 12);
    CHECK_EQ(offsetof(struct kevent, data), 16);
    CHECK_EQ(offsetof(struct kevent, udata), 24);
    CHECK_EQ(offsetof(struct kevent, ext), 32);
    struct kevent kev;
    memset(&kev, 0xff, sizeof kev);
    EV_SET(&kev, 7, EVFILT_READ, EV_ADD, 0, 0, NULL);
    CHECK_EQ(kev.ext[0] | kev.ext[1] | kev.ext[2] | kev.ext[3], 0);
}

static void read_filter_reports_bytes_available(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    int marker;
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD, 0, 0, &marker));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 0), 0);
    CHECK_EQ(write(sv[1], "hello", 5), 5);
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].ident, sv[0]);
    CHECK_EQ(ev[0].filter, EVFILT_READ);
    CHECK_EQ(ev[0].data, 5);
    CHECK(ev[0].udata == &marker);
    CHECK_EQ(ev[0].flags & (EV_EOF | EV_ERROR), 0);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void read_filter_reports_eof_with_unread_count_after_peer_shutdown(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "1234567", 7), 7);
    CHECK_OK(shutdown(sv[1], SHUT_WR));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK(ev[0].flags & EV_EOF);
    CHECK_EQ(ev[0].data, 7);
    CHECK_EQ(ev[0].fflags, 0);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void write_filter_reports_free_space_and_fires_after_send_buffer_drains(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, &len));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_WRITE);
    CHECK_EQ(ev[0].data, sndbuf); /* nothing queued yet: the whole send buffer is free */

    static char chunk[4096];
    long long written = 0;
    for (;;) {
        ssize_t n = write(sv[0], chunk, sizeof chunk);
        if (n < 0) {
            CHECK(errno == EAGAIN);
            break;
        }
        written += n;
    }
    CHECK(written > 0);
    CHECK_EQ(wait_events(kq, ev, 4, 0), 0); /* full: not writable */

    long long drained = 0;
    for (;;) {
        ssize_t n = read(sv[1], chunk, sizeof chunk);
        if (n <= 0) {
            break;
        }
        drained += n;
    }
    CHECK_EQ(drained, written);
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_WRITE);
    CHECK(ev[0].data > 0 && ev[0].data <= sndbuf);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void clear_does_not_rereport_without_new_data_but_level_does(void)
{
    int kq = kqueue(), edge[2], level[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(edge));
    REQUIRE_OK(nonblocking_pair(level));
    CHECK_OK(change(kq, (uintptr_t) edge[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL));
    CHECK_OK(change(kq, (uintptr_t) level[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_EQ(write(edge[1], "abc", 3), 3);
    CHECK_EQ(write(level[1], "abc", 3), 3);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 2);
    for (int round = 0; round < 3; round++) {
        CHECK_EQ(wait_events(kq, ev, 4, 20), 1); /* data still unread: only the level registration */
        CHECK_EQ(ev[0].ident, level[0]);
        CHECK_EQ(ev[0].data, 3);
    }
    CHECK_EQ(write(edge[1], "de", 2), 2); /* a new state change reports the EV_CLEAR one again */
    int n = wait_events(kq, ev, 4, 1000);
    CHECK_EQ(n, 2);
    for (int i = 0; i < n; i++) {
        if (ev[i].ident == (uintptr_t) edge[0]) {
            CHECK_EQ(ev[i].data, 5);
        } else {
            CHECK_EQ(ev[i].ident, level[0]);
        }
    }
    emu_close(kq);
    close(edge[0]);
    close(edge[1]);
    close(level[0]);
    close(level[1]);
}

static void clear_read_and_write_filters_on_one_fd_report_only_their_own_changes(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_WRITE);
    CHECK_EQ(write(sv[1], "x", 1), 1); /* incoming data: a read change only */
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_READ);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void oneshot_is_reported_once_then_deleted(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "x", 1), 1);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK(ev[0].flags & EV_ONESHOT);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0);
    CHECK_EQ(write(sv[1], "y", 1), 1);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0);
    errno = 0;
    CHECK_EQ(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), -1);
    CHECK_EQ(errno, ENOENT);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void dispatch_disables_after_delivery_until_enabled(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "x", 1), 1);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ENABLE, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].data, 1);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void disable_suppresses_events_and_enable_restores_them(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_DISABLE, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "abcd", 4), 4);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ENABLE, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].data, 4);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_DISABLE, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void delete_stops_events(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "x", 1), 1);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_DELETE, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "y", 1), 1);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void read_and_write_filters_on_one_fd_are_independent(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL));
    CHECK_EQ(write(sv[1], "x", 1), 1);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 2);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_DELETE, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_WRITE);
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_DISABLE, 0, 0, NULL));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_READ);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void deleting_a_missing_filter_reports_enoent(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    struct kevent changes[2], ev[4];
    /* With room in the event list: an EV_ERROR entry, and no waiting. */
    EV_SET(&changes[0], (uintptr_t) sv[0], EVFILT_READ, EV_DELETE, 0, 0, (void *) 0x1234);
    long long start = now_ms();
    CHECK_EQ(kevent(kq, changes, 1, ev, 4, NULL), 1);
    CHECK(now_ms() - start < 1000);
    CHECK_EQ(ev[0].flags, EV_ERROR);
    CHECK_EQ(ev[0].data, ENOENT);
    CHECK_EQ(ev[0].ident, sv[0]);
    CHECK(ev[0].udata == (void *) 0x1234);
    /* With EV_RECEIPT: the successful add reports data 0, the failing delete ENOENT. */
    EV_SET(&changes[0], (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD | EV_RECEIPT, 0, 0, NULL);
    EV_SET(&changes[1], (uintptr_t) sv[0], EVFILT_READ, EV_DELETE | EV_RECEIPT, 0, 0, NULL);
    CHECK_EQ(kevent(kq, changes, 2, ev, 4, NULL), 2);
    CHECK_EQ(ev[0].flags, EV_ERROR);
    CHECK_EQ(ev[0].data, 0);
    CHECK_EQ(ev[1].flags, EV_ERROR);
    CHECK_EQ(ev[1].data, ENOENT);
    /* Without room: -1 and errno. */
    errno = 0;
    CHECK_EQ(kevent(kq, &changes[1], 1, NULL, 0, NULL), -1);
    CHECK_EQ(errno, ENOENT);
    emu_close(kq);
    close(sv[0]);
    close(sv[1]);
}

static void invalid_changes_and_arguments_report_errors(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    int closed_fd = sv[1];
    close(sv[1]);
    struct kevent changes[3], ev[4];
    EV_SET(&changes[0], (uintptr_t) closed_fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
    EV_SET(&changes[1], (uintptr_t) sv[0], EVFILT_VNODE, EV_ADD, 0, 0, NULL);
    EV_SET(&changes[2], 1, EVFILT_TIMER, EV_ADD, NOTE_SECONDS | NOTE_MSECONDS, 10, NULL);
    CHECK_EQ(kevent(kq, changes, 3, ev, 4, NULL), 3);
    CHECK_EQ(ev[0].data, EBADF);
    CHECK_EQ(ev[1].data, EINVAL);
    CHECK_EQ(ev[2].data, EINVAL);
    errno = 0;
    CHECK_EQ(kevent(sv[0], NULL, 0, ev, 4, NULL), -1); /* not a kqueue */
    CHECK_EQ(errno, EBADF);
    errno = 0;
    CHECK_EQ(kevent(kq, NULL, 0, ev, -1, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    struct timespec bad = { 0, 1000000000L };
    errno = 0;
    CHECK_EQ(kevent(kq, NULL, 0, ev, 4, &bad), -1);
    CHECK_EQ(errno, EINVAL);
    emu_close(kq);
    close(sv[0]);
}

static void oneshot_timer_fires_once_after_20ms(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    long long start = now_ms();
    CHECK_OK(change(kq, 42, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 20, (void *) 7));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 2000), 1);
    long long elapsed = now_ms() - start;
    CHECK(elapsed >= 19 && elapsed < 1000);
    CHECK_EQ(ev[0].ident, 42);
    CHECK_EQ(ev[0].filter, EVFILT_TIMER);
    CHECK_EQ(ev[0].data, 1);
    CHECK(ev[0].udata == (void *) 7);
    CHECK_EQ(wait_events(kq, ev, 4, 60), 0);
    emu_close(kq);
}

static void periodic_timer_counts_expirations(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    CHECK_OK(change(kq, 1, EVFILT_TIMER, EV_ADD, NOTE_USECONDS, 10000, NULL)); /* every 10 ms */
    sleep_ms(55);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 0), 1);
    CHECK(ev[0].data >= 5);
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1); /* keeps running */
    CHECK(ev[0].data >= 1);
    CHECK_OK(change(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    emu_close(kq);
}

struct trigger_args {
    int kq;
    long delay_ms;
};

static void *trigger_later(void *arg)
{
    struct trigger_args *args = arg;
    sleep_ms(args->delay_ms);
    struct kevent kev;
    EV_SET(&kev, 9, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFCOPY | 0x5, 0, NULL);
    kevent(args->kq, &kev, 1, NULL, 0, NULL);
    return NULL;
}

static void user_trigger_from_another_thread_wakes_a_blocked_kevent(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    CHECK_OK(change(kq, 9, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, (void *) 99));
    struct trigger_args args = { kq, 50 };
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, trigger_later, &args) == 0);
    long long start = now_ms();
    struct kevent ev[4];
    struct timespec five_seconds = { 5, 0 };
    CHECK_EQ(kevent(kq, NULL, 0, ev, 4, &five_seconds), 1);
    long long elapsed = now_ms() - start;
    CHECK(elapsed >= 40 && elapsed < 4000);
    CHECK_EQ(ev[0].filter, EVFILT_USER);
    CHECK_EQ(ev[0].ident, 9);
    CHECK_EQ(ev[0].fflags, 0x5);
    CHECK(ev[0].udata == (void *) 99);
    pthread_join(thread, NULL);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0); /* EV_CLEAR: reset by the delivery */
    emu_close(kq);
}

static void user_event_without_clear_stays_triggered_until_reset(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    CHECK_OK(change(kq, 3, EVFILT_USER, EV_ADD, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 0), 0);
    CHECK_OK(change(kq, 3, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFOR | 0x3, 0, NULL));
    CHECK_OK(change(kq, 3, EVFILT_USER, 0, NOTE_FFAND | 0x2, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 0), 1);
    CHECK_EQ(ev[0].fflags, 0x2);
    CHECK_EQ(wait_events(kq, ev, 4, 0), 1);
    CHECK_OK(change(kq, 3, EVFILT_USER, EV_CLEAR, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0);
    emu_close(kq);
}

static void zero_timeout_polls_and_timeout_expires(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    struct kevent ev[4];
    long long start = now_ms();
    CHECK_EQ(wait_events(kq, ev, 4, 0), 0);
    CHECK(now_ms() - start < 50);
    start = now_ms();
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    long long elapsed = now_ms() - start;
    CHECK(elapsed >= 29 && elapsed < 1000);
    emu_close(kq);
}

static void listening_socket_is_readable_with_pending_connection(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    struct sockaddr_in addr;
    int listener = tcp_listener(&addr);
    REQUIRE_OK(listener);
    CHECK_OK(change(kq, (uintptr_t) listener, EVFILT_READ, EV_ADD, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 0), 0);
    int client1 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int client2 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_OK(connect(client1, (struct sockaddr *) &addr, sizeof addr));
    CHECK_OK(connect(client2, (struct sockaddr *) &addr, sizeof addr));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].ident, listener);
    CHECK(ev[0].data >= 1);
    int accepted = accept(listener, NULL, NULL);
    CHECK_OK(accepted);
    close(accepted);
    accepted = accept(listener, NULL, NULL);
    CHECK_OK(accepted);
    close(accepted);
    CHECK_EQ(wait_events(kq, ev, 4, 20), 0); /* level-triggered: the empty queue is not readable */
    emu_close(kq);
    close(client1);
    close(client2);
    close(listener);
}

static void peer_reset_reports_eof_with_socket_error(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    struct sockaddr_in addr;
    int listener = tcp_listener(&addr);
    REQUIRE_OK(listener);
    int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_OK(connect(client, (struct sockaddr *) &addr, sizeof addr));
    int server = accept(listener, NULL, NULL);
    REQUIRE_OK(server);
    CHECK_OK(change(kq, (uintptr_t) client, EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_OK(change(kq, (uintptr_t) client, EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1); /* writable */
    struct linger abortive = { 1, 0 };
    CHECK_OK(setsockopt(server, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive));
    close(server); /* sends RST */
    int n = wait_events(kq, ev, 4, 1000);
    CHECK(n >= 1);
    int saw_read = 0;
    for (int i = 0; i < n; i++) {
        CHECK(ev[i].flags & EV_EOF);
        CHECK_EQ(ev[i].fflags, ECONNRESET);
        saw_read |= ev[i].filter == EVFILT_READ;
    }
    CHECK(saw_read);
    emu_close(kq);
    close(client);
    close(listener);
}

static void write_filter_reports_eof_when_peer_closed(void)
{
    int kq = kqueue(), sv[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, NULL));
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].flags & EV_EOF, 0);
    close(sv[1]);
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    CHECK_EQ(ev[0].filter, EVFILT_WRITE);
    CHECK(ev[0].flags & EV_EOF);
    emu_close(kq);
    close(sv[0]);
}

static void many_fds_are_registered_and_reported(void)
{
    enum { PAIRS = 200 };
    int kq = kqueue();
    REQUIRE_OK(kq);
    static int pairs[PAIRS][2];
    static struct kevent changes[PAIRS];
    static char seen[PAIRS];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < PAIRS; i++) {
        REQUIRE_OK(nonblocking_pair(pairs[i]));
        EV_SET(&changes[i], (uintptr_t) pairs[i][0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0,
               (void *) (intptr_t) i);
    }
    CHECK_EQ(kevent(kq, changes, PAIRS, NULL, 0, NULL), 0);
    for (int i = 0; i < PAIRS; i++) {
        CHECK_EQ(write(pairs[i][1], "z", 1), 1);
    }
    static struct kevent ev[64]; /* smaller than PAIRS: several calls needed */
    int distinct = 0;
    long long deadline = now_ms() + 3000;
    while (distinct < PAIRS && now_ms() < deadline) {
        int n = wait_events(kq, ev, 64, 500);
        CHECK(n >= 0);
        for (int i = 0; i < n; i++) {
            intptr_t index = (intptr_t) ev[i].udata;
            CHECK(index >= 0 && index < PAIRS);
            CHECK_EQ(ev[i].ident, pairs[index][0]);
            CHECK_EQ(ev[i].data, 1);
            if (index >= 0 && index < PAIRS && !seen[index]) {
                seen[index] = 1;
                distinct++;
            }
        }
    }
    CHECK_EQ(distinct, PAIRS);
    emu_close(kq);
    for (int i = 0; i < PAIRS; i++) {
        close(pairs[i][0]);
        close(pairs[i][1]);
    }
}

static void registration_of_a_closed_fd_disappears_with_it(void)
{
    int kq = kqueue(), old_pair[2], new_pair[2];
    REQUIRE_OK(kq);
    REQUIRE_OK(nonblocking_pair(old_pair));
    CHECK_OK(change(kq, (uintptr_t) old_pair[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
    int old_fd = old_pair[0];
    close(old_pair[0]);
    close(old_pair[1]);
    REQUIRE_OK(nonblocking_pair(new_pair)); /* lowest free numbers: normally reuses old_fd */
    int reused = new_pair[0] == old_fd ? new_pair[0] : new_pair[1];
    int peer = reused == new_pair[0] ? new_pair[1] : new_pair[0];
    CHECK_EQ(reused, old_fd);
    CHECK_EQ(write(peer, "x", 1), 1);
    struct kevent ev[4];
    CHECK_EQ(wait_events(kq, ev, 4, 30), 0);
    errno = 0;
    CHECK_EQ(change(kq, (uintptr_t) reused, EVFILT_READ, EV_DELETE, 0, 0, NULL), -1);
    CHECK_EQ(errno, ENOENT);
    CHECK_OK(change(kq, (uintptr_t) reused, EVFILT_READ, EV_ADD, 0, 0, NULL));
    CHECK_EQ(wait_events(kq, ev, 4, 1000), 1);
    emu_close(kq);
    close(new_pair[0]);
    close(new_pair[1]);
}

static void *wait_forever(void *arg)
{
    int kq = *(int *) arg;
    struct kevent ev[1];
    int rc = kevent(kq, NULL, 0, ev, 1, NULL);
    *(int *) arg = rc < 0 ? errno : -1;
    return NULL;
}

static void closing_a_kqueue_wakes_its_waiter_with_ebadf(void)
{
    int kq = kqueue();
    REQUIRE_OK(kq);
    int shared = kq;
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, wait_forever, &shared) == 0);
    sleep_ms(50);
    CHECK_OK(emu_close(kq));
    pthread_join(thread, NULL);
    CHECK_EQ(shared, EBADF);
}

static void closing_the_kqueue_releases_all_its_descriptors(void)
{
    int sv[2];
    REQUIRE_OK(nonblocking_pair(sv));
    int before = open_fd_count();
    REQUIRE(before > 0);
    for (int how = 0; how < 2; how++) {
        int kq = kqueue();
        REQUIRE_OK(kq);
        CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD, 0, 0, NULL));
        CHECK_OK(change(kq, (uintptr_t) sv[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL));
        for (uintptr_t t = 0; t < 5; t++) {
            CHECK_OK(change(kq, t, EVFILT_TIMER, EV_ADD, 0, 1000, NULL));
        }
        CHECK_OK(change(kq, 1, EVFILT_USER, EV_ADD, NOTE_TRIGGER, 0, NULL));
        CHECK(open_fd_count() > before);
        if (how == 0) {
            CHECK_OK(emu_close(kq));                /* frees at once */
        } else {
            CHECK_OK(close(kq));                    /* plain close(): reclaimed by the next collection */
            CHECK_EQ(emu_kqueue_collect(), 1);
        }
        CHECK_EQ(open_fd_count(), before);
    }
    close(sv[0]);
    close(sv[1]);
}

static void watchdog_expired(int signal_number)
{
    (void) signal_number;
    static const char prefix[] = "watchdog: tests still running after " STRINGIFY(WATCHDOG_SECONDS) " s, in test ";
    if (write(STDOUT_FILENO, prefix, sizeof prefix - 1) < 0
            || write(STDOUT_FILENO, check_current_name, strlen(check_current_name)) < 0
            || write(STDOUT_FILENO, "\n", 1) < 0) {
        /* nothing more to do */
    }
    _exit(2);
}

struct stress_state {
    int kq;
    atomic_int stop;
    atomic_int user_events;
    atomic_int errors;
};

static void *stress_waiter(void *arg)
{
    struct stress_state *state = arg;
    struct kevent ev[8];
    while (!atomic_load(&state->stop)) {
        int n = wait_events(state->kq, ev, 8, 5);
        if (n < 0) {
            atomic_fetch_add(&state->errors, 1);
            break;
        }
        for (int i = 0; i < n; i++) {
            if (ev[i].filter == EVFILT_USER) {
                atomic_fetch_add(&state->user_events, 1);
            }
        }
    }
    return NULL;
}

static void concurrent_changes_and_waits_are_safe(void)
{
    static struct stress_state state;
    state.kq = kqueue();
    atomic_store(&state.stop, 0);
    atomic_store(&state.user_events, 0);
    atomic_store(&state.errors, 0);
    REQUIRE_OK(state.kq);
    int sv[2];
    REQUIRE_OK(nonblocking_pair(sv));
    CHECK_EQ(write(sv[1], "x", 1), 1);
    CHECK_OK(change(state.kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL));
    pthread_t waiters[2];
    for (int i = 0; i < 2; i++) {
        REQUIRE(pthread_create(&waiters[i], NULL, stress_waiter, &state) == 0);
    }
    for (int i = 0; i < 2000; i++) {
        CHECK_OK(change(state.kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL));
        if (i % 4 == 0) {
            CHECK_OK(change(state.kq, (uintptr_t) sv[0], EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, NULL));
        } else if (i % 4 == 2) {
            change(state.kq, (uintptr_t) sv[0], EVFILT_READ, EV_DELETE, 0, 0, NULL); /* may be gone already */
            CHECK_OK(change(state.kq, (uintptr_t) (1000 + i), EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS, 100, NULL));
        }
    }
    long long deadline = now_ms() + 2000;
    while (atomic_load(&state.user_events) == 0 && now_ms() < deadline) {
        sleep_ms(5);
    }
    atomic_store(&state.stop, 1);
    for (int i = 0; i < 2; i++) {
        pthread_join(waiters[i], NULL);
    }
    CHECK_EQ(atomic_load(&state.errors), 0);
    CHECK(atomic_load(&state.user_events) >= 1 && atomic_load(&state.user_events) <= 2000);
    CHECK_OK(emu_close(state.kq));
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, watchdog_expired);
    alarm(WATCHDOG_SECONDS); /* a hang fails the build instead of stalling it */
    printf("kqueue emulation tests\n");
    RUN(struct_kevent_has_freebsd_layout);
    RUN(read_filter_reports_bytes_available);
    RUN(read_filter_reports_eof_with_unread_count_after_peer_shutdown);
    RUN(write_filter_reports_free_space_and_fires_after_send_buffer_drains);
    RUN(clear_does_not_rereport_without_new_data_but_level_does);
    RUN(clear_read_and_write_filters_on_one_fd_report_only_their_own_changes);
    RUN(oneshot_is_reported_once_then_deleted);
    RUN(dispatch_disables_after_delivery_until_enabled);
    RUN(disable_suppresses_events_and_enable_restores_them);
    RUN(delete_stops_events);
    RUN(read_and_write_filters_on_one_fd_are_independent);
    RUN(deleting_a_missing_filter_reports_enoent);
    RUN(invalid_changes_and_arguments_report_errors);
    RUN(oneshot_timer_fires_once_after_20ms);
    RUN(periodic_timer_counts_expirations);
    RUN(user_trigger_from_another_thread_wakes_a_blocked_kevent);
    RUN(user_event_without_clear_stays_triggered_until_reset);
    RUN(zero_timeout_polls_and_timeout_expires);
    RUN(listening_socket_is_readable_with_pending_connection);
    RUN(peer_reset_reports_eof_with_socket_error);
    RUN(write_filter_reports_eof_when_peer_closed);
    RUN(many_fds_are_registered_and_reported);
    RUN(registration_of_a_closed_fd_disappears_with_it);
    RUN(closing_a_kqueue_wakes_its_waiter_with_ebadf);
    RUN(concurrent_changes_and_waits_are_safe);
    RUN(closing_the_kqueue_releases_all_its_descriptors);
    return finish_tests();
}
