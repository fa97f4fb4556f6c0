package io.conduit.transport.spi.unix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A forwarding's pipe descriptors over fake natives: made once on first use, closed once, not made after a close. */
class SplicePipeDescriptorsTest {

    private static final int FLAGS = 04000 | 02000000;

    private final UnixErrors errors = new UnixErrors(FakeSocketLibrary.constants(), FakeSocketLibrary::strerror);
    private final List<Integer> closed = new ArrayList<>();
    private int made;
    private int result;

    private SplicePipeDescriptors pipe() {
        return new SplicePipeDescriptors((fds, flags) -> {
            assertEquals(FLAGS, flags, "the transport's flags are passed on");
            if (result < 0) {
                return result;
            }
            made++;
            fds[0] = 10 * made;
            fds[1] = 10 * made + 1;
            return 0;
        }, fd -> {
            closed.add(fd);
            return 0;
        }, FLAGS, errors);
    }

    @Test
    void madeOnFirstOpenOnlyAndClosedOnce() throws IOException {
        SplicePipeDescriptors p = pipe();
        assertEquals(-1, p.readEnd());
        assertEquals(-1, p.writeEnd());
        assertTrue(p.open());
        assertFalse(p.open(), "made once");
        assertEquals(1, made);
        assertEquals(10, p.readEnd());
        assertEquals(11, p.writeEnd());
        assertTrue(p.close());
        assertFalse(p.close(), "idempotent");
        assertEquals(List.of(10, 11), closed);
        assertEquals(-1, p.readEnd());
        IOException e = assertThrows(IOException.class, p::open);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(1, made);
    }

    @Test
    void aPipeNeverMadeClosesNothing() {
        SplicePipeDescriptors p = pipe();
        assertFalse(p.close());
        assertTrue(closed.isEmpty());
        assertThrows(IOException.class, p::open);
        assertEquals(0, made);
    }

    @Test
    void aFailedPipe2IsAnIoExceptionNamingTheCall() {
        result = -FakeSocketLibrary.EACCES;
        IOException e = assertThrows(IOException.class, pipe()::open);
        assertTrue(e.getMessage().contains("pipe2"), e.getMessage());
    }
}
