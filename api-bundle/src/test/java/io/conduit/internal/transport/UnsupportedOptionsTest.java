package io.conduit.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.conduit.channel.ChannelOption;
import org.junit.jupiter.api.Test;

class UnsupportedOptionsTest {

    @Test
    void warnsOncePerOptionAndTransportPair() {
        RecordingLogger log = new RecordingLogger();
        String transport = "fake-" + System.nanoTime(); // the warned set is global: use a fresh name
        assertTrue(UnsupportedOptions.warnOnce(ChannelOption.TCP_CORK, transport, log));
        assertFalse(UnsupportedOptions.warnOnce(ChannelOption.TCP_CORK, transport, log));
        assertTrue(UnsupportedOptions.warnOnce(ChannelOption.SO_REUSEPORT, transport, log));
        assertTrue(UnsupportedOptions.warnOnce(ChannelOption.TCP_CORK, transport + "-other", log));
        assertFalse(UnsupportedOptions.warnOnce(ChannelOption.SO_REUSEPORT, transport, log));
        assertFalse(UnsupportedOptions.warnOnce(ChannelOption.SO_REUSEPORT, transport), "the pair is global");
        assertEquals(List.of(
                "channel option TCP_CORK is not supported by transport " + transport + "; ignored",
                "channel option SO_REUSEPORT is not supported by transport " + transport + "; ignored",
                "channel option TCP_CORK is not supported by transport " + transport + "-other; ignored"),
                log.warnings());
    }
}
