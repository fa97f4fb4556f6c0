/*
 * kqueue_emu.c - TEST-ONLY emulation of FreeBSD kqueue(2)/kevent(2) over Linux epoll, eventfd and timerfd.
 * Written from the semantics of the FreeBSD kqueue(2) manual; never shipped. See kqueue_emu.h and README.md.
 *
 * Design
 * ------
 * Per kqueue (struct kq):
 *   - the OUTER epoll instance; its descriptor is what emu_kqueue() returns. It watches, level-triggered,
 *     the two inner sets, the wake eventfd and every timerfd. Waiting means blocking on the outer set.
 *   - READ_EP and WRITE_EP: inner epoll sets holding one edge-triggered (EPOLLET) registration per fd with an
 *     EVFILT_READ (EPOLLIN|EPOLLRDHUP) resp. EVFILT_WRITE (EPOLLOUT) knote. Two sets rather than one merged
 *     registration per fd, because an edge-triggered registration reports every ready bit of the fd when it
 *     fires: with one merged registration, data arriving would also re-report an EV_CLEAR write filter, and
 *     freed send space an EV_CLEAR read filter. With a set per direction the kernel's wake-up key keeps
 *     read edges and write edges apart, as BSD's separate receive/send knote lists do.
 *   - WAKE_FD: an eventfd. EVFILT_USER's NOTE_TRIGGER and any change that makes a knote ready while another
 *     thread waits write to it, so the waiter wakes up; waiters drain it.
 *   - a timerfd per EVFILT_TIMER knote.
 *
 * Level versus EV_CLEAR (the bookkeeping): every epoll edge only *queues* its knote on the kqueue's active
 * queue (FreeBSD's model). Collecting events evaluates each queued knote against the current state
 * (poll() with zero timeout, FIONREAD, SIOCOUTQ, the timer's expiration count, the user trigger): a knote
 * that is not ready leaves the queue; a ready one is returned and then
 *   - EV_ONESHOT: deleted;  EV_DISPATCH: disabled;
 *   - EV_CLEAR (and every timer): leaves the queue, so only a new edge (new data, freed space, an expiration,
 *     a trigger) reports it again;
 *   - otherwise (level-triggered): stays queued and is evaluated again by the next kevent() call, so it is
 *     reported as long as the condition holds, like on BSD.
 * Adding, re-adding or enabling a knote queues it too, so its current state is always evaluated once.
 *
 * Registrations are found by (ident, filter) in a chained hash table per kqueue. Inner epoll registrations
 * carry the fd number (not a pointer): an edge from a file that was closed and replaced under the same
 * number can at worst queue the new file's knote for a spurious evaluation, never touch freed memory.
 * A knote of a descriptor that was closed dies with its file as on BSD: every evaluation and change checks
 * that (st_dev, st_ino) of the fd still match the registration and drops it otherwise.
 *
 * Kqueue table and lifetime: kqueues are found by descriptor in TABLE (guarded by TABLE_LOCK), each with a
 * reference count (guarded by TABLE_LOCK) so a kqueue closed by one thread while another waits in kevent()
 * is freed by the last user. The kqueue keeps a private duplicate (WAIT_FD) of its outer epoll: waits use
 * it, so a concurrent close can never make a waiter block on a recycled descriptor number, and kcmp(2)
 * against it tells whether the user's descriptor still is this kqueue (plain close() is detected lazily).
 *
 * Threading: one mutex per kqueue guards everything in struct kq that is not marked otherwise. Lock order:
 * TABLE_LOCK before a kqueue's LOCK; never TABLE_LOCK while holding a kqueue's LOCK. A waiting kevent() call
 * does not hold LOCK while blocked.
 */
#define _GNU_SOURCE
#include "kqueue_emu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

/* Outer-set tags (epoll_event.data.u64); any other value is a struct knote * of a timer. */
#define TAG_READ_EP  1u
#define TAG_WRITE_EP 2u
#define TAG_WAKE     3u

#define EPOLL_BATCH 64
#define NSEC_PER_SEC 1000000000LL
/* Largest relative timer the emulation hands to timerfd: keeps seconds * 1e9 inside a signed 64-bit ktime. */
#define TIMER_MAX_SEC (INT64_MAX / NSEC_PER_SEC - 1)

enum knote_kind { KIND_READ, KIND_WRITE, KIND_TIMER, KIND_USER };

/* Behaviour flags a registration keeps from the change that created it. */
#define KEPT_FLAGS (EV_ONESHOT | EV_CLEAR | EV_RECEIPT | EV_DISPATCH)

/* One registration ("knote"). All fields are guarded by the owning kq's LOCK. */
struct knote {
    struct knote *hash_next;          /* chain in kq->buckets */
    struct knote *queue_prev;         /* active queue links, valid while queued != 0 */
    struct knote *queue_next;
    int queued;                       /* 1 while on kq's active queue */
    enum knote_kind kind;
    uintptr_t ident;
    short filter;
    unsigned short flags;             /* KEPT_FLAGS subset; EV_CLEAR is forced for timers */
    int enabled;                      /* 0 after EV_DISABLE or an EV_DISPATCH delivery */
    void *udata;
    uint64_t ext[4];
    /* EVFILT_READ / EVFILT_WRITE */
    dev_t dev;                        /* identity of the registered file, to notice close + reuse */
    ino_t ino;
    int socket_error;                 /* SO_ERROR taken at EOF (reading it clears it in Linux): kept, reported */
    /* EVFILT_TIMER */
    int timer_fd;                     /* timerfd, registered in the outer set with data.ptr = this knote */
    uint64_t expirations;             /* expirations not yet returned */
    /* EVFILT_USER */
    int triggered;                    /* 1 after NOTE_TRIGGER until reset (EV_CLEAR) */
    unsigned int user_fflags;         /* NOTE_FFLAGSMASK bits, maintained by NOTE_FFAND/FFOR/FFCOPY */
    int64_t user_data;
};

struct kq {
    pthread_mutex_t lock;             /* guards every field below unless noted */
    int refs;                         /* guarded by TABLE_LOCK: 1 for the table entry + 1 per kevent() call */
    int wait_fd;                      /* immutable: private dup of the outer epoll; closed on free */
    int read_ep;                      /* immutable: inner set of read registrations (EPOLLET) */
    int write_ep;                     /* immutable: inner set of write registrations (EPOLLET) */
    int wake_fd;                      /* immutable: eventfd that wakes waiters */
    int closing;                      /* 1 once the user's descriptor was closed: waiters return EBADF */
    int waiters;                      /* threads blocked (or about to block) on wait_fd */
    struct knote **buckets;           /* hash table by (ident, filter) */
    size_t bucket_count;              /* power of two */
    size_t knote_count;
    struct knote *queue_head;         /* active queue: knotes to evaluate when collecting events */
    struct knote *queue_tail;
    size_t queue_length;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kq **table;             /* guarded by table_lock: indexed by the user's kqueue descriptor */
static int table_length;              /* guarded by table_lock */
static int kcmp_usable = -1;          /* guarded by table_lock: -1 unknown, 0 no (seccomp/ENOSYS), 1 yes */

/* ---------------------------------------------------------------------------------------------------- */
/* small helpers                                                                                         */

static void close_quietly(int fd)
{
    if (fd >= 0) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
}

static void wake_waiters(struct kq *kq)
{
    uint64_t one = 1;
    if (write(kq->wake_fd, &one, sizeof one) < 0) {
        /* EAGAIN: the counter is saturated, so the eventfd is readable anyway. */
    }
}

/* 1 if descriptor fd refers to the same open file as our private duplicate, 0 if not, -1 if unknown. */
static int same_open_file(int fd, int reference_fd)
{
    if (kcmp_usable == 0) {
        return -1;
    }
    pid_t self = getpid();
    long r = syscall(SYS_kcmp, self, self, KCMP_FILE, fd, reference_fd);
    if (r == 0) {
        kcmp_usable = 1;
        return 1;
    }
    if (r > 0 || errno == EBADF) {
        kcmp_usable = 1;
        return 0;
    }
    kcmp_usable = 0; /* ENOSYS, EPERM (seccomp): fall back to trusting descriptor numbers */
    return -1;
}

/* ---------------------------------------------------------------------------------------------------- */
/* knote hash table and active queue (kq->lock held)                                                     */

static size_t knote_hash(uintptr_t ident, short filter, size_t bucket_count)
{
    uint64_t h = (uint64_t) ident * 0x9E3779B97F4A7C15ull ^ (uint64_t) (uint16_t) filter;
    h ^= h >> 29;
    return (size_t) h & (bucket_count - 1);
}

static struct knote *knote_find(struct kq *kq, uintptr_t ident, short filter)
{
    for (struct knote *kn = kq->buckets[knote_hash(ident, filter, kq->bucket_count)]; kn; kn = kn->hash_next) {
        if (kn->ident == ident && kn->filter == filter) {
            return kn;
        }
    }
    return NULL;
}

static int knote_hash_insert(struct kq *kq, struct knote *kn)
{
    if (kq->knote_count + 1 > kq->bucket_count * 2) {
        size_t new_count = kq->bucket_count * 2;
        struct knote **grown = calloc(new_count, sizeof *grown);
        if (grown != NULL) {
            for (size_t i = 0; i < kq->bucket_count; i++) {
                struct knote *next;
                for (struct knote *k = kq->buckets[i]; k; k = next) {
                    next = k->hash_next;
                    size_t b = knote_hash(k->ident, k->filter, new_count);
                    k->hash_next = grown[b];
                    grown[b] = k;
                }
            }
            free(kq->buckets);
            kq->buckets = grown;
            kq->bucket_count = new_count;
        } /* else: keep the old table, chains just get longer */
    }
    size_t b = knote_hash(kn->ident, kn->filter, kq->bucket_count);
    kn->hash_next = kq->buckets[b];
    kq->buckets[b] = kn;
    kq->knote_count++;
    return 0;
}

static void knote_hash_remove(struct kq *kq, struct knote *kn)
{
    struct knote **link = &kq->buckets[knote_hash(kn->ident, kn->filter, kq->bucket_count)];
    while (*link != NULL && *link != kn) {
        link = &(*link)->hash_next;
    }
    if (*link == kn) {
        *link = kn->hash_next;
        kq->knote_count--;
    }
}

static void queue_remove(struct kq *kq, struct knote *kn)
{
    if (!kn->queued) {
        return;
    }
    if (kn->queue_prev) kn->queue_prev->queue_next = kn->queue_next; else kq->queue_head = kn->queue_next;
    if (kn->queue_next) kn->queue_next->queue_prev = kn->queue_prev; else kq->queue_tail = kn->queue_prev;
    kn->queue_prev = kn->queue_next = NULL;
    kn->queued = 0;
    kq->queue_length--;
}

/* Queues kn for evaluation. wake: 1 when called for a change, so a thread blocked in kevent() looks. */
static void queue_add(struct kq *kq, struct knote *kn, int wake)
{
    if (kn->queued || !kn->enabled) {
        return;
    }
    kn->queue_next = NULL;
    kn->queue_prev = kq->queue_tail;
    if (kq->queue_tail) kq->queue_tail->queue_next = kn; else kq->queue_head = kn;
    kq->queue_tail = kn;
    kn->queued = 1;
    kq->queue_length++;
    if (wake && kq->waiters > 0) {
        wake_waiters(kq);
    }
}

static void timer_disarm(struct kq *kq, struct knote *kn)
{
    if (kn->timer_fd >= 0) {
        epoll_ctl(kq->wait_fd, EPOLL_CTL_DEL, kn->timer_fd, NULL);
        close_quietly(kn->timer_fd);
        kn->timer_fd = -1;
    }
}

/* Unregisters and frees kn. */
static void knote_drop(struct kq *kq, struct knote *kn)
{
    queue_remove(kq, kn);
    knote_hash_remove(kq, kn);
    switch (kn->kind) {
    case KIND_READ:
    case KIND_WRITE:
        /* Fails harmlessly (EBADF/ENOENT) when the fd was closed: epoll already forgot a released file. */
        epoll_ctl(kn->kind == KIND_READ ? kq->read_ep : kq->write_ep, EPOLL_CTL_DEL, (int) kn->ident, NULL);
        break;
    case KIND_TIMER:
        timer_disarm(kq, kn);
        break;
    case KIND_USER:
        break;
    }
    free(kn);
}

/* ---------------------------------------------------------------------------------------------------- */
/* filters                                                                                               */

static int fd_identity(uintptr_t ident, struct stat *st)
{
    if (ident > INT_MAX) {
        return EBADF;
    }
    return fstat((int) ident, st) == 0 ? 0 : errno;
}

/* Takes the pending socket error (Linux clears it on reading) and keeps it on both filters of the fd. */
static void take_socket_error(struct kq *kq, struct knote *kn)
{
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt((int) kn->ident, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error == 0) {
        return;
    }
    kn->socket_error = error;
    struct knote *sibling = knote_find(kq, kn->ident, kn->filter == EVFILT_READ ? EVFILT_WRITE : EVFILT_READ);
    if (sibling != NULL && sibling->dev == kn->dev && sibling->ino == kn->ino) {
        sibling->socket_error = error;
    }
}

static int64_t pending_connections(int fd)
{
    struct tcp_info info;
    socklen_t len = sizeof info;
    memset(&info, 0, sizeof info);
    /* For a TCP listener tcpi_unacked is the accept-queue length; other listeners report 1 when readable. */
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0 && info.tcpi_unacked > 0) {
        return info.tcpi_unacked;
    }
    return 1;
}

static int64_t send_space(int fd)
{
    int sndbuf = 0, queued = 0;
    socklen_t len = sizeof sndbuf;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == 0) {
        if (ioctl(fd, SIOCOUTQ, &queued) != 0) {
            queued = 0;
        }
        return sndbuf > queued ? (int64_t) sndbuf - queued : 0;
    }
    int pipe_size = fcntl(fd, F_GETPIPE_SZ);
    if (pipe_size > 0) {
        if (ioctl(fd, FIONREAD, &queued) != 0) {
            queued = 0;
        }
        return pipe_size > queued ? (int64_t) pipe_size - queued : 0;
    }
    return 0;
}

/*
 * Evaluates a read or write knote against the file's current state.
 * Returns 1 (ready, *out filled except ident/filter/udata/ext), 0 (not ready), -1 (the fd was closed or
 * now names another file: the registration is dead).
 */
static int fd_filter_event(struct kq *kq, struct knote *kn, struct kevent *out)
{
    struct stat st;
    if (fd_identity(kn->ident, &st) != 0 || st.st_dev != kn->dev || st.st_ino != kn->ino) {
        return -1;
    }
    int fd = (int) kn->ident;
    struct pollfd p = { .fd = fd, .events = kn->kind == KIND_READ ? (POLLIN | POLLRDHUP) : POLLOUT };
    if (poll(&p, 1, 0) < 0) {
        return 0;
    }
    if (p.revents & POLLNVAL) {
        return -1;
    }
    int eof;
    if (kn->kind == KIND_READ) {
        if (!(p.revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR))) {
            return 0;
        }
        eof = (p.revents & (POLLRDHUP | POLLHUP)) != 0;
        int listening = 0;
        socklen_t len = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening) {
            out->data = pending_connections(fd);
        } else {
            int available = 0;
            out->data = ioctl(fd, FIONREAD, &available) == 0 ? available : 0;
        }
    } else {
        if (!(p.revents & (POLLOUT | POLLHUP | POLLERR))) {
            return 0;
        }
        eof = (p.revents & POLLHUP) != 0;
        out->data = send_space(fd);
    }
    out->fflags = 0;
    out->flags = kn->flags;
    if (eof) {
        if ((p.revents & POLLERR) && kn->socket_error == 0) {
            take_socket_error(kq, kn);
        }
        out->flags |= EV_EOF;
        out->fflags = (unsigned int) kn->socket_error;
    }
    return 1;
}

static void timer_collect(struct knote *kn)
{
    uint64_t count;
    if (kn->timer_fd >= 0 && read(kn->timer_fd, &count, sizeof count) == (ssize_t) sizeof count) {
        kn->expirations += count;
    }
}

/* (Re)programs kn's timer from a change; any undelivered expirations are discarded (FreeBSD 12+ re-add). */
static int timer_arm(struct kq *kq, struct knote *kn, const struct kevent *kev)
{
    unsigned int unit = kev->fflags & (NOTE_SECONDS | NOTE_MSECONDS | NOTE_USECONDS | NOTE_NSECONDS);
    if ((unit & (unit - 1)) != 0 || kev->data < 0) {
        return EINVAL;
    }
    int absolute = (kev->fflags & NOTE_ABSTIME) != 0;
    int periodic = !absolute && !(kev->flags & EV_ONESHOT);
    int64_t amount = kev->data;
    if (amount == 0 && periodic) {
        amount = 1; /* a zero period means the smallest one of the unit */
    }
    int64_t per_sec;
    switch (unit) {
    case NOTE_SECONDS: per_sec = 1; break;
    case NOTE_USECONDS: per_sec = 1000000; break;
    case NOTE_NSECONDS: per_sec = NSEC_PER_SEC; break;
    default: per_sec = 1000; break; /* NOTE_MSECONDS or no unit */
    }
    int64_t sec = amount / per_sec;
    int64_t nsec = (amount % per_sec) * (NSEC_PER_SEC / per_sec);
    if (sec > TIMER_MAX_SEC) {
        sec = TIMER_MAX_SEC;
    }
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t) sec;
    spec.it_value.tv_nsec = (long) nsec;
    if (!absolute && sec == 0 && nsec == 0) {
        spec.it_value.tv_nsec = 1; /* zero would disarm the timerfd: fire as soon as possible instead */
    }
    if (periodic) {
        spec.it_interval = spec.it_value;
    }
    timer_disarm(kq, kn);
    kn->expirations = 0;
    int fd = timerfd_create(absolute ? CLOCK_REALTIME : CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = kn };
    if (timerfd_settime(fd, absolute ? TFD_TIMER_ABSTIME : 0, &spec, NULL) != 0
            || epoll_ctl(kq->wait_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        int error = errno;
        close_quietly(fd);
        return error;
    }
    kn->timer_fd = fd;
    return 0;
}

/* EVFILT_USER part of a change: fflags operation, data, reset (EV_CLEAR), then trigger (NOTE_TRIGGER). */
static void user_touch(struct knote *kn, const struct kevent *kev)
{
    unsigned int value = kev->fflags & NOTE_FFLAGSMASK;
    switch (kev->fflags & NOTE_FFCTRLMASK) {
    case NOTE_FFAND: kn->user_fflags &= value; break;
    case NOTE_FFOR: kn->user_fflags |= value; break;
    case NOTE_FFCOPY: kn->user_fflags = value; break;
    default: break; /* NOTE_FFNOP */
    }
    kn->user_data = kev->data;
    if (kev->flags & EV_CLEAR) {
        kn->triggered = 0;
    }
    if (kev->fflags & NOTE_TRIGGER) {
        kn->triggered = 1;
    }
}

/* Evaluates any knote. Same results as fd_filter_event; fills the whole *out when ready. */
static int knote_event(struct kq *kq, struct knote *kn, struct kevent *out)
{
    int ready;
    switch (kn->kind) {
    case KIND_READ:
    case KIND_WRITE:
        ready = fd_filter_event(kq, kn, out);
        break;
    case KIND_TIMER:
        timer_collect(kn);
        ready = kn->expirations > 0;
        if (ready) {
            out->flags = kn->flags;
            out->fflags = 0;
            out->data = (int64_t) (kn->expirations > INT64_MAX ? INT64_MAX : kn->expirations);
            kn->expirations = 0;
        }
        break;
    case KIND_USER:
        ready = kn->triggered;
        if (ready) {
            out->flags = kn->flags;
            out->fflags = kn->user_fflags;
            out->data = kn->user_data;
            if (kn->flags & EV_CLEAR) {
                kn->triggered = 0;
            }
        }
        break;
    default:
        ready = 0;
    }
    if (ready > 0) {
        out->ident = kn->ident;
        out->filter = kn->filter;
        out->udata = kn->udata;
        memcpy(out->ext, kn->ext, sizeof out->ext);
    }
    return ready;
}

/* ---------------------------------------------------------------------------------------------------- */
/* changes                                                                                               */

static int fd_register(struct kq *kq, struct knote *kn)
{
    int ep = kn->kind == KIND_READ ? kq->read_ep : kq->write_ep;
    struct epoll_event ev = {
        .events = (kn->kind == KIND_READ ? (EPOLLIN | EPOLLRDHUP) : EPOLLOUT) | EPOLLET,
        .data.u64 = kn->ident,
    };
    if (epoll_ctl(ep, EPOLL_CTL_ADD, (int) kn->ident, &ev) == 0) {
        return 0;
    }
    if (errno == EEXIST && epoll_ctl(ep, EPOLL_CTL_MOD, (int) kn->ident, &ev) == 0) {
        return 0; /* a leftover registration of the same file (dropped knote): reuse it */
    }
    return errno; /* EPERM for regular files and directories, which epoll cannot watch */
}

/* Applies one change. Returns 0 or an errno value. */
static int apply_change(struct kq *kq, const struct kevent *kev)
{
    enum knote_kind kind;
    switch (kev->filter) {
    case EVFILT_READ: kind = KIND_READ; break;
    case EVFILT_WRITE: kind = KIND_WRITE; break;
    case EVFILT_TIMER: kind = KIND_TIMER; break;
    case EVFILT_USER: kind = KIND_USER; break;
    default: return EINVAL;
    }
    unsigned short flags = kev->flags & (unsigned short) ~EV_SYSFLAGS;
    struct knote *kn = knote_find(kq, kev->ident, kev->filter);
    struct stat st;
    if (kind == KIND_READ || kind == KIND_WRITE) {
        int error = fd_identity(kev->ident, &st);
        if (error != 0) {
            if (kn != NULL) {
                knote_drop(kq, kn); /* its descriptor was closed: on BSD the knote went with it */
            }
            return error;
        }
        if (kn != NULL && (kn->dev != st.st_dev || kn->ino != st.st_ino)) {
            knote_drop(kq, kn);     /* closed and reused by another file: the old registration is gone */
            kn = NULL;
        }
    }

    if (flags & EV_DELETE) {
        if (kn == NULL) {
            return ENOENT;
        }
        knote_drop(kq, kn);
        return 0;
    }

    if (kn == NULL) {
        if (!(flags & EV_ADD)) {
            return ENOENT;
        }
        kn = calloc(1, sizeof *kn);
        if (kn == NULL) {
            return ENOMEM;
        }
        kn->kind = kind;
        kn->ident = kev->ident;
        kn->filter = kev->filter;
        kn->flags = flags & KEPT_FLAGS;
        kn->udata = kev->udata;
        memcpy(kn->ext, kev->ext, sizeof kn->ext);
        kn->timer_fd = -1;
        kn->enabled = !(flags & EV_DISABLE);
        int error = 0;
        switch (kind) {
        case KIND_READ:
        case KIND_WRITE:
            kn->dev = st.st_dev;
            kn->ino = st.st_ino;
            error = fd_register(kq, kn);
            break;
        case KIND_TIMER:
            kn->flags |= EV_CLEAR; /* timers report expirations since the last delivery */
            error = timer_arm(kq, kn, kev);
            break;
        case KIND_USER:
            user_touch(kn, kev);
            break;
        }
        if (error != 0) {
            free(kn);
            return error;
        }
        knote_hash_insert(kq, kn);
        queue_add(kq, kn, 1);
        return 0;
    }

    /* Existing registration: EV_ADD modifies its parameters (its behaviour flags stay as created). */
    if (flags & EV_ADD) {
        kn->udata = kev->udata;
        memcpy(kn->ext, kev->ext, sizeof kn->ext);
        if (kind == KIND_TIMER) {
            queue_remove(kq, kn);
            int error = timer_arm(kq, kn, kev);
            if (error != 0) {
                knote_drop(kq, kn);
                return error;
            }
        } else if (kind == KIND_READ || kind == KIND_WRITE) {
            int error = fd_register(kq, kn); /* MOD re-arms the edge */
            if (error != 0) {
                knote_drop(kq, kn);
                return error;
            }
        }
    }
    if (kind == KIND_USER) {
        user_touch(kn, kev);
    }
    if (flags & EV_DISABLE) {
        kn->enabled = 0;
        queue_remove(kq, kn);
    } else if (flags & (EV_ENABLE | EV_ADD)) {
        kn->enabled = 1;
    }
    /* Re-evaluate the current state once after any change, as FreeBSD does for a modified knote. */
    queue_add(kq, kn, 1);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------- */
/* collecting events                                                                                     */

static void drain_inner_set(struct kq *kq, int ep, short filter)
{
    struct epoll_event evs[EPOLL_BATCH];
    int n;
    do {
        n = epoll_wait(ep, evs, EPOLL_BATCH, 0);
        for (int i = 0; i < n; i++) {
            struct knote *kn = knote_find(kq, (uintptr_t) evs[i].data.u64, filter);
            if (kn != NULL) {
                queue_add(kq, kn, 0);
            }
        }
    } while (n == EPOLL_BATCH);
}

/* Moves every pending kernel notification onto the active queue without blocking. */
static void harvest(struct kq *kq)
{
    struct epoll_event evs[EPOLL_BATCH];
    int n, rounds = 0;
    do {
        n = epoll_wait(kq->wait_fd, evs, EPOLL_BATCH, 0);
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_READ_EP) {
                drain_inner_set(kq, kq->read_ep, EVFILT_READ);
            } else if (tag == TAG_WRITE_EP) {
                drain_inner_set(kq, kq->write_ep, EVFILT_WRITE);
            } else if (tag == TAG_WAKE) {
                uint64_t count;
                if (read(kq->wake_fd, &count, sizeof count) < 0) {
                    /* EAGAIN: another waiter drained it first */
                }
            } else {
                struct knote *kn = evs[i].data.ptr;
                timer_collect(kn); /* drain the timerfd even when disabled, so it stops being readable */
                if (kn->expirations > 0) {
                    queue_add(kq, kn, 0);
                }
            }
        }
    } while (n == EPOLL_BATCH && ++rounds < 16);
}

/* Evaluates the active queue once, writing up to nevents ready events. */
static int scan(struct kq *kq, struct kevent *eventlist, int nevents)
{
    int count = 0;
    size_t todo = kq->queue_length; /* knotes re-queued below are not looked at again in this call */
    while (todo-- > 0 && count < nevents && kq->queue_head != NULL) {
        struct knote *kn = kq->queue_head;
        queue_remove(kq, kn);
        if (!kn->enabled) {
            continue;
        }
        struct kevent out;
        int ready = knote_event(kq, kn, &out);
        if (ready < 0) {
            knote_drop(kq, kn);
            continue;
        }
        if (ready == 0) {
            continue;
        }
        eventlist[count++] = out;
        if (kn->flags & EV_ONESHOT) {
            knote_drop(kq, kn);
        } else if (kn->flags & EV_DISPATCH) {
            kn->enabled = 0;
        } else if (!(kn->flags & EV_CLEAR)) {
            queue_add(kq, kn, 0); /* level-triggered: look again next time */
        }
    }
    return count;
}

static void add_timespec(struct timespec *a, const struct timespec *b)
{
    a->tv_sec += b->tv_sec;
    a->tv_nsec += b->tv_nsec;
    if (a->tv_nsec >= NSEC_PER_SEC) {
        a->tv_sec++;
        a->tv_nsec -= NSEC_PER_SEC;
    }
}

/* remaining = deadline - now; returns 0 when the deadline has passed. */
static int remaining_time(const struct timespec *deadline, struct timespec *remaining)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    remaining->tv_sec = deadline->tv_sec - now.tv_sec;
    remaining->tv_nsec = deadline->tv_nsec - now.tv_nsec;
    if (remaining->tv_nsec < 0) {
        remaining->tv_sec--;
        remaining->tv_nsec += NSEC_PER_SEC;
    }
    return remaining->tv_sec > 0 || (remaining->tv_sec == 0 && remaining->tv_nsec > 0);
}

static int wait_outer(int wait_fd, const struct timespec *remaining)
{
    struct epoll_event ev;
    int rc = epoll_pwait2(wait_fd, &ev, 1, remaining, NULL);
    if (rc < 0 && errno == ENOSYS) { /* kernel older than 5.11: millisecond resolution, rounded up */
        int ms = -1;
        if (remaining != NULL) {
            int64_t total = (int64_t) remaining->tv_sec * 1000 + (remaining->tv_nsec + 999999) / 1000000;
            ms = total > INT_MAX ? INT_MAX : (int) total;
        }
        rc = epoll_wait(wait_fd, &ev, 1, ms);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------------- */
/* kqueue table                                                                                          */

static void kq_free(struct kq *kq)
{
    for (size_t i = 0; i < kq->bucket_count; i++) {
        struct knote *next;
        for (struct knote *kn = kq->buckets[i]; kn; kn = next) {
            next = kn->hash_next;
            close_quietly(kn->timer_fd);
            free(kn);
        }
    }
    free(kq->buckets);
    close_quietly(kq->read_ep);
    close_quietly(kq->write_ep);
    close_quietly(kq->wake_fd);
    close_quietly(kq->wait_fd);
    pthread_mutex_destroy(&kq->lock);
    free(kq);
}

/* table_lock held. Drops one reference; frees on the last. */
static void kq_unref_locked(struct kq *kq)
{
    if (--kq->refs == 0) {
        kq_free(kq);
    }
}

static void kq_unref(struct kq *kq)
{
    pthread_mutex_lock(&table_lock);
    kq_unref_locked(kq);
    pthread_mutex_unlock(&table_lock);
}

/* table_lock held. Removes table entry fd (whose user descriptor is gone) and wakes its waiters. */
static void kq_detach_locked(int fd)
{
    struct kq *kq = table[fd];
    table[fd] = NULL;
    pthread_mutex_lock(&kq->lock);
    kq->closing = 1;
    wake_waiters(kq);
    pthread_mutex_unlock(&kq->lock);
    kq_unref_locked(kq);
}

/* Finds the kqueue of descriptor fd and takes a reference, or returns NULL. */
static struct kq *kq_acquire(int fd)
{
    struct kq *kq = NULL;
    pthread_mutex_lock(&table_lock);
    if (fd >= 0 && fd < table_length && table[fd] != NULL) {
        if (same_open_file(fd, table[fd]->wait_fd) == 0) {
            kq_detach_locked(fd); /* closed with plain close(), maybe reused: not a kqueue any more */
        } else {
            kq = table[fd];
            kq->refs++;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return kq;
}

int emu_kqueue_collect(void)
{
    int reclaimed = 0;
    pthread_mutex_lock(&table_lock);
    for (int fd = 0; fd < table_length; fd++) {
        if (table[fd] != NULL && same_open_file(fd, table[fd]->wait_fd) == 0) {
            kq_detach_locked(fd);
            reclaimed++;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return reclaimed;
}

static int add_to_outer(int outer, int fd, uint64_t tag)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };
    return epoll_ctl(outer, EPOLL_CTL_ADD, fd, &ev);
}

int emu_kqueue(void)
{
    emu_kqueue_collect();
    struct kq *kq = calloc(1, sizeof *kq);
    if (kq == NULL) {
        errno = ENOMEM;
        return -1;
    }
    kq->bucket_count = 64;
    kq->buckets = calloc(kq->bucket_count, sizeof *kq->buckets);
    kq->read_ep = kq->write_ep = kq->wake_fd = kq->wait_fd = -1;
    int outer = -1;
    int error = 0;
    if (kq->buckets == NULL) {
        error = ENOMEM;
    } else if ((outer = epoll_create1(EPOLL_CLOEXEC)) < 0
            || (kq->wait_fd = fcntl(outer, F_DUPFD_CLOEXEC, 0)) < 0
            || (kq->read_ep = epoll_create1(EPOLL_CLOEXEC)) < 0
            || (kq->write_ep = epoll_create1(EPOLL_CLOEXEC)) < 0
            || (kq->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0
            || add_to_outer(outer, kq->read_ep, TAG_READ_EP) != 0
            || add_to_outer(outer, kq->write_ep, TAG_WRITE_EP) != 0
            || add_to_outer(outer, kq->wake_fd, TAG_WAKE) != 0) {
        error = errno;
    }
    if (error == 0) {
        error = pthread_mutex_init(&kq->lock, NULL);
    }
    if (error == 0) {
        pthread_mutex_lock(&table_lock);
        if (outer >= table_length) {
            int length = table_length > 0 ? table_length : 64;
            while (length <= outer) {
                length *= 2;
            }
            struct kq **grown = realloc(table, (size_t) length * sizeof *grown);
            if (grown == NULL) {
                error = ENOMEM;
            } else {
                memset(grown + table_length, 0, (size_t) (length - table_length) * sizeof *grown);
                table = grown;
                table_length = length;
            }
        }
        if (error == 0) {
            if (table[outer] != NULL) {
                kq_detach_locked(outer); /* that kqueue's descriptor was closed: its number is free again */
            }
            kq->refs = 1;
            table[outer] = kq;
        }
        pthread_mutex_unlock(&table_lock);
        if (error != 0) {
            pthread_mutex_destroy(&kq->lock);
        }
    }
    if (error != 0) {
        close_quietly(outer);
        close_quietly(kq->read_ep);
        close_quietly(kq->write_ep);
        close_quietly(kq->wake_fd);
        close_quietly(kq->wait_fd);
        free(kq->buckets);
        free(kq);
        errno = error;
        return -1;
    }
    return outer;
}

int emu_close(int fd)
{
    struct kq *kq = NULL;
    pthread_mutex_lock(&table_lock);
    if (fd >= 0 && fd < table_length && table[fd] != NULL) {
        if (same_open_file(fd, table[fd]->wait_fd) == 0) {
            kq_detach_locked(fd); /* stale entry: fd is something else now, close that below */
        } else {
            kq = table[fd];
            table[fd] = NULL;
        }
    }
    pthread_mutex_unlock(&table_lock);
    if (kq != NULL) {
        pthread_mutex_lock(&kq->lock);
        kq->closing = 1;
        wake_waiters(kq);
        pthread_mutex_unlock(&kq->lock);
    }
    int rc = close(fd);
    if (kq != NULL) {
        int saved = errno;
        kq_unref(kq);
        errno = saved;
    }
    return rc;
}

int emu_kevent(int kqfd, const struct kevent *changelist, int nchanges,
               struct kevent *eventlist, int nevents, const struct timespec *timeout)
{
    if (nchanges < 0 || nevents < 0
            || (timeout != NULL && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= NSEC_PER_SEC))) {
        errno = EINVAL;
        return -1;
    }
    if ((nchanges > 0 && changelist == NULL) || (nevents > 0 && eventlist == NULL)) {
        errno = EFAULT;
        return -1;
    }
    struct kq *kq = kq_acquire(kqfd);
    if (kq == NULL) {
        errno = EBADF;
        return -1;
    }
    int result = 0;
    int error = 0;
    pthread_mutex_lock(&kq->lock);
    if (kq->closing) {
        error = EBADF;
        goto out;
    }

    /* Changes, in order. An entry of eventlist may alias the change being applied, so copy it first. */
    int receipts = 0;
    for (int i = 0; i < nchanges; i++) {
        struct kevent change = changelist[i];
        if (change.filter == 0) {
            continue; /* as on FreeBSD, an entry without a filter is skipped */
        }
        int change_error = apply_change(kq, &change);
        if (change_error != 0 || (change.flags & EV_RECEIPT)) {
            if (receipts == nevents) {
                if (change_error != 0) {
                    error = change_error; /* no room to report it: fail the call, skip the rest */
                } else {
                    result = receipts;
                }
                goto out;
            }
            change.flags = EV_ERROR;
            change.data = change_error;
            eventlist[receipts++] = change;
        }
    }
    if (receipts > 0 || nevents == 0) {
        result = receipts;
        goto out;
    }

    struct timespec deadline;
    int forever = timeout == NULL;
    int poll_only = !forever && timeout->tv_sec == 0 && timeout->tv_nsec == 0;
    if (!forever && !poll_only) {
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        add_timespec(&deadline, timeout);
    }
    for (;;) {
        if (kq->closing) {
            error = EBADF;
            goto out;
        }
        harvest(kq);
        result = scan(kq, eventlist, nevents);
        if (result > 0 || poll_only) {
            goto out;
        }
        struct timespec remaining;
        if (!forever && !remaining_time(&deadline, &remaining)) {
            goto out;
        }
        kq->waiters++;
        pthread_mutex_unlock(&kq->lock);
        int rc = wait_outer(kq->wait_fd, forever ? NULL : &remaining);
        int wait_error = errno;
        pthread_mutex_lock(&kq->lock);
        kq->waiters--;
        if (rc < 0) {
            error = wait_error; /* EINTR: a signal arrived before any event */
            goto out;
        }
    }

out:
    pthread_mutex_unlock(&kq->lock);
    kq_unref(kq);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return result;
}
