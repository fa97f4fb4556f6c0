package io.conduit.handler.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.handler.LogCapture;
import org.junit.jupiter.api.Test;

/** The first occurrence at once, then a count at most once per interval, on a fake clock (no sleeps). */
class RateLimitedLogTest {

    private static final long INTERVAL = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong clock = new AtomicLong(123_456_789L); // any start: only differences count
    private final RateLimitedLog log = new RateLimitedLog(System.getLogger("io.conduit.handler.test"),
            System.Logger.Level.INFO, INTERVAL, clock::get);

    @Test
    void theFirstOccurrenceIsLoggedAtOnceThenACountPerInterval() {
        try (LogCapture capture = new LogCapture("io.conduit.handler.test")) {
            log.occurred(() -> "event 1");
            assertEquals(List.of("event 1 (repeats are counted: at most one line every 10 s)"),
                    capture.lines());
            assertEquals(java.util.logging.Level.INFO, capture.records().get(0).getLevel());
            for (int i = 2; i <= 302; i++) {
                int n = i;
                clock.addAndGet(INTERVAL / 400);
                log.occurred(() -> "event " + n);
            }
            assertEquals(1, capture.lines().size(), "301 more within 10 s: no line yet");
            assertEquals(301, log.unreported());

            clock.addAndGet(INTERVAL); // past the interval: the next occurrence writes the count
            log.occurred(() -> "event 303");
            assertEquals("event 303 (the latest of 302 in the last 17 s)", capture.lines().get(1));
            assertEquals(0, log.unreported());

            clock.addAndGet(INTERVAL * 6); // a later overload is seen too
            log.occurred(() -> "event 304");
            assertEquals("event 304 (the latest of 1 in the last 60 s)", capture.lines().get(2));
            assertEquals(3, capture.lines().size());
        }
    }

    @Test
    void flushWritesWhatIsUnreportedAndNothingWhenNothingIs() {
        try (LogCapture capture = new LogCapture("io.conduit.handler.test")) {
            log.flush();
            assertEquals(List.of(), capture.lines(), "nothing happened: nothing to say");
            log.occurred(() -> "first");
            log.flush();
            assertEquals(1, capture.lines().size(), "the first was reported at once");
            clock.addAndGet(TimeUnit.SECONDS.toNanos(3));
            log.occurred(() -> "second");
            log.occurred(() -> "third");
            log.flush();
            assertEquals("third (the latest of 2 in the last 3 s)", capture.lines().get(1));
            log.flush();
            assertEquals(2, capture.lines().size());
        }
    }

    @Test
    void suppressedLinesAreNeverMade() {
        AtomicInteger made = new AtomicInteger();
        try (LogCapture capture = new LogCapture("io.conduit.handler.test")) {
            for (int i = 0; i < 1000; i++) {
                log.occurred(() -> "line " + made.incrementAndGet());
            }
            assertEquals(1, made.get(), "only the first line was made");
            assertEquals(1, capture.lines().size());
        }
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RateLimitedLog(System.getLogger("x"), System.Logger.Level.INFO, 0, clock::get));
        assertEquals("intervalNanos must be > 0, was 0", e.getMessage());
    }
}
