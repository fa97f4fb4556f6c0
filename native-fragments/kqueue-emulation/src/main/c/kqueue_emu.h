/*
 * kqueue_emu.h - a TEST-ONLY emulation of the BSD kqueue(2)/kevent(2) interface on Linux.
 *
 * Conduit's kqueue transport targets macOS and FreeBSD. So that its native code and its Java side can be
 * exercised on Linux build machines, this header declares the subset of FreeBSD's <sys/event.h> that the
 * transport uses, implemented in kqueue_emu.c over epoll, eventfd and timerfd. It is linked only into test
 * builds and is never shipped in a fragment bundle. See ../../../README.md for what is and is not emulated.
 *
 * Layout and constants follow FreeBSD 12 and later (the values are ABI facts of that platform): on LP64
 * struct kevent is 64 bytes.
 *
 * Symbols are prefixed (emu_kqueue, emu_kevent, emu_close) so nothing clashes with libc; the macros
 * kqueue(), kevent() and EV_SET() let transport code compile unchanged. Define KQUEUE_EMU_WRAP_CLOSE before
 * including this header to also route close(fd) through emu_close(), which frees a kqueue's state at once;
 * without it, state of a kqueue closed with plain close() is reclaimed lazily (see emu_kqueue_collect()).
 *
 * Threading: every function may be called from any thread. Each kqueue has one mutex; a kevent() call that
 * waits does not hold it, so other threads can change the same kqueue (e.g. NOTE_TRIGGER) meanwhile and
 * wake the waiter.
 */
#ifndef CONDUIT_KQUEUE_EMU_H
#define CONDUIT_KQUEUE_EMU_H

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One change (input) or event (output), laid out as in FreeBSD 12+ <sys/event.h>. */
struct kevent {
    uintptr_t      ident;   /* identifier: a file descriptor, or any value for EVFILT_TIMER/EVFILT_USER */
    short          filter;  /* EVFILT_* */
    unsigned short flags;   /* EV_* action flags in, EV_* status flags out */
    unsigned int   fflags;  /* filter-specific flags (NOTE_*) */
    int64_t        data;    /* filter-specific data in and out (bytes, expirations, errno with EV_ERROR) */
    void          *udata;   /* opaque user value, returned unchanged */
    uint64_t       ext[4];  /* extensions: zeroed by EV_SET, returned as given, otherwise unused here */
};

#define EV_SET(kevp, a, b, c, d, e, f) do {     \
        struct kevent *ev_set_p_ = (kevp);      \
        ev_set_p_->ident = (a);                 \
        ev_set_p_->filter = (b);                \
        ev_set_p_->flags = (c);                 \
        ev_set_p_->fflags = (d);                \
        ev_set_p_->data = (e);                  \
        ev_set_p_->udata = (f);                 \
        ev_set_p_->ext[0] = 0;                  \
        ev_set_p_->ext[1] = 0;                  \
        ev_set_p_->ext[2] = 0;                  \
        ev_set_p_->ext[3] = 0;                  \
    } while (0)

/* Filters (FreeBSD numbering). Only READ, WRITE, TIMER and USER are emulated; others fail with EINVAL. */
#define EVFILT_READ     (-1)
#define EVFILT_WRITE    (-2)
#define EVFILT_AIO      (-3)
#define EVFILT_VNODE    (-4)
#define EVFILT_PROC     (-5)
#define EVFILT_SIGNAL   (-6)
#define EVFILT_TIMER    (-7)
#define EVFILT_PROCDESC (-8)
#define EVFILT_FS       (-9)
#define EVFILT_LIO      (-10)
#define EVFILT_USER     (-11)
#define EVFILT_SENDFILE (-12)
#define EVFILT_EMPTY    (-13)

/* Actions (input). */
#define EV_ADD       0x0001  /* add, or modify an existing registration (implies EV_ENABLE) */
#define EV_DELETE    0x0002  /* remove; ENOENT when there is no such registration */
#define EV_ENABLE    0x0004  /* report events again */
#define EV_DISABLE   0x0008  /* keep the registration but report nothing */
/* Behaviour flags (input, kept with the registration and returned in events). */
#define EV_ONESHOT   0x0010  /* delete the registration after its first event is returned */
#define EV_CLEAR     0x0020  /* reset state after an event is returned: report again only on a new change */
#define EV_RECEIPT   0x0040  /* return an EV_ERROR entry for this change (data 0 on success) */
#define EV_DISPATCH  0x0080  /* disable the registration after each returned event */
#define EV_SYSFLAGS  0xF000  /* reserved: ignored on input */
/* Returned flags. */
#define EV_ERROR     0x4000  /* the change failed (or EV_RECEIPT): data holds an errno value, 0 = success */
#define EV_EOF       0x8000  /* EOF: peer shut down writing (READ) or the connection is gone (WRITE) */

/* EVFILT_USER fflags. */
#define NOTE_FFNOP      0x00000000u  /* leave the stored user flags alone */
#define NOTE_FFAND      0x40000000u  /* stored &= fflags */
#define NOTE_FFOR       0x80000000u  /* stored |= fflags */
#define NOTE_FFCOPY     0xc0000000u  /* stored = fflags */
#define NOTE_FFCTRLMASK 0xc0000000u  /* which of the four operations above */
#define NOTE_FFLAGSMASK 0x00ffffffu  /* the user-defined flag bits */
#define NOTE_TRIGGER    0x01000000u  /* trigger the user event */

/* EVFILT_TIMER fflags: the unit of data (at most one; milliseconds when none is given). */
#define NOTE_SECONDS    0x00000001u
#define NOTE_MSECONDS   0x00000002u
#define NOTE_USECONDS   0x00000004u
#define NOTE_NSECONDS   0x00000008u
#define NOTE_ABSTIME    0x00000010u  /* data is an absolute CLOCK_REALTIME time since the epoch; fires once */

/*
 * kqueue(2): a new kernel event queue. Returns its file descriptor (the descriptor of an epoll instance,
 * close-on-exec), or -1 with errno (EMFILE, ENFILE, ENOMEM).
 */
int emu_kqueue(void);

/*
 * kevent(2): apply nchanges changes from changelist in order, then (unless a change produced an EV_ERROR
 * entry) wait for up to nevents events. timeout NULL waits forever, {0,0} polls; the wait has nanosecond
 * resolution. Returns the number of entries written to eventlist, 0 on timeout, or -1 with errno:
 * EBADF (kq is not a kqueue of this emulation, or it was closed while waiting), EINVAL (negative counts,
 * invalid timeout), EINTR (a signal arrived while waiting), or the error of a change when eventlist had no
 * room for its EV_ERROR entry (the remaining changes are then not applied).
 */
int emu_kevent(int kq, const struct kevent *changelist, int nchanges,
               struct kevent *eventlist, int nevents, const struct timespec *timeout);

/*
 * close(2) that knows kqueues: if fd is a kqueue of this emulation, its registrations, timers and helper
 * descriptors are freed now and a thread waiting in kevent() on it returns -1/EBADF. Any other fd is
 * simply closed. Returns close()'s result.
 */
int emu_close(int fd);

/*
 * Frees the state of every kqueue whose descriptor was closed with plain close() (detected with
 * kcmp(KCMP_FILE) against a private duplicate). Called by emu_kqueue() automatically. Returns how many
 * kqueues were reclaimed.
 */
int emu_kqueue_collect(void);

#define kqueue() emu_kqueue()
#define kevent(kq, changelist, nchanges, eventlist, nevents, timeout) \
    emu_kevent((kq), (changelist), (nchanges), (eventlist), (nevents), (timeout))
#ifdef KQUEUE_EMU_WRAP_CLOSE
#define close(fd) emu_close(fd)
#endif

#ifdef __cplusplus
}
#endif

#endif /* CONDUIT_KQUEUE_EMU_H */
