package io.conduit.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChannelOptionTest {

    @Test
    void optionsAreUniqueByNameAndLookedUpByName() {
        assertSame(ChannelOption.SO_REUSEPORT, ChannelOption.valueOf("SO_REUSEPORT"));
        assertTrue(ChannelOption.SO_REUSEPORT.isNativeOnly());
        assertFalse(ChannelOption.TCP_NODELAY.isNativeOnly());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChannelOption.valueOf("SO_NOPE"));
        assertTrue(e.getMessage().contains("SO_NOPE") && e.getMessage().contains("TCP_NODELAY"), e.getMessage());
    }

    @Test
    void validateRejectsWrongTypesAndNegativeValuesWithTheOptionName() {
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
                () -> ChannelOption.SO_RCVBUF.validate("big"));
        assertTrue(wrongType.getMessage().contains("SO_RCVBUF"), wrongType.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> ChannelOption.SO_SNDBUF.validate(-1));
        assertTrue(negative.getMessage().contains("SO_SNDBUF"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChannelOption.WRITE_SPIN_COUNT.validate(0));
        assertEquals(-1, ChannelOption.SO_LINGER.validate(-1));
        assertThrows(NullPointerException.class, () -> ChannelOption.AUTO_READ.validate(null));
    }

    @Test
    void waterMarksMustBeOrdered() {
        assertThrows(IllegalArgumentException.class, () -> new WriteBufferWaterMark(10, 5));
        assertEquals(65536, WriteBufferWaterMark.DEFAULT.high());
    }

    @Test
    void reportsWhichJdkRunsThisPass() {
        System.out.println("test pass " + System.getProperty("conduit.test.pass") + " on Java "
                + Runtime.version() + " (" + System.getProperty("java.home") + ")");
    }
}
