/*
 * check.h - a tiny assertion helper for the kqueue emulation's C tests.
 *
 * CHECK* macros record a failure for the current test and carry on (a test is a plain function);
 * REQUIRE* macros record it and return from the test function. run_test() runs one test and keeps the
 * tally; finish_tests() prints "N passed, N failed" as the last line and returns the exit status.
 */
#ifndef CONDUIT_KQUEUE_EMU_CHECK_H
#define CONDUIT_KQUEUE_EMU_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_current_failed;
static const char *check_current_name = "(none)"; /* for the watchdog's message */
static int check_passed;
static int check_failed;

#define CHECK_FAIL_(...) do {                                                   \
        printf("    %s:%d: ", __FILE__, __LINE__);                               \
        printf(__VA_ARGS__);                                                     \
        putchar('\n');                                                           \
        check_current_failed = 1;                                                \
    } while (0)

#define CHECK(cond) do {                                                        \
        if (!(cond)) CHECK_FAIL_("CHECK(%s) failed", #cond);                     \
    } while (0)

#define CHECK_EQ(actual, expected) do {                                         \
        long long check_a_ = (long long) (actual);                               \
        long long check_e_ = (long long) (expected);                             \
        if (check_a_ != check_e_)                                                \
            CHECK_FAIL_("%s == %lld, expected %s == %lld",                       \
                        #actual, check_a_, #expected, check_e_);                 \
    } while (0)

/* Checks that a call returned >= 0; otherwise names the call and errno. */
#define CHECK_OK(call) do {                                                     \
        if ((call) < 0)                                                          \
            CHECK_FAIL_("%s failed: %s (errno %d)", #call, strerror(errno), errno); \
    } while (0)

#define REQUIRE(cond) do {                                                      \
        if (!(cond)) { CHECK_FAIL_("REQUIRE(%s) failed", #cond); return; }       \
    } while (0)

#define REQUIRE_OK(call) do {                                                   \
        if ((call) < 0) {                                                        \
            CHECK_FAIL_("%s failed: %s (errno %d)", #call, strerror(errno), errno); \
            return;                                                              \
        }                                                                        \
    } while (0)

static void run_test(const char *name, void (*test)(void))
{
    check_current_failed = 0;
    check_current_name = name;
    test();
    if (check_current_failed) {
        check_failed++;
        printf("FAIL %s\n", name);
    } else {
        check_passed++;
        printf("ok   %s\n", name);
    }
    fflush(stdout);
}

#define RUN(test) run_test(#test, test)

static int finish_tests(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    fflush(stdout);
    return check_failed == 0 ? 0 : 1;
}

#endif /* CONDUIT_KQUEUE_EMU_CHECK_H */
