package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.ChannelOption;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What setting an option the channel cannot take logs: "closed" for a closed channel, "not supported" otherwise. */
class DefaultChannelConfigTest {

    private final List<String> records = new CopyOnWriteArrayList<>();
    private System.Logger previous;

    @BeforeEach
    void recordLogs() {
        previous = DefaultChannelConfig.log;
        DefaultChannelConfig.log = new System.Logger() {
            @Override
            public String getName() {
                return "test";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                records.add(level.getName() + " " + msg);
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                records.add(level.getName() + " " + (params == null ? format : MessageFormat.format(format, params)));
            }
        };
    }

    @AfterEach
    void restore() {
        DefaultChannelConfig.log = previous;
    }

    @Test
    void anOptionSetOnAClosedChannelSaysTheChannelIsClosedAndDoesNotWarnUnsupported() {
        TestChannel ch = new TestChannel(null);
        ch.open = false;
        DefaultChannelConfig config = new DefaultChannelConfig(ch);
        assertFalse(config.setOption(ChannelOption.SO_LINGER, 5));
        assertEquals(1, records.size(), records.toString());
        assertTrue(records.get(0).startsWith("DEBUG channel option SO_LINGER=5 was not applied: channel "), records.toString());
        assertTrue(records.get(0).endsWith(" is closed"), records.toString());

        // the once-per-transport warning was not used up by the closed channel
        ch.open = true;
        assertFalse(config.setOption(ChannelOption.SO_LINGER, 5));
        assertEquals(2, records.size(), records.toString());
        assertTrue(records.get(1).startsWith("WARNING channel option SO_LINGER is not supported by transport test"),
                records.toString());
    }
}
