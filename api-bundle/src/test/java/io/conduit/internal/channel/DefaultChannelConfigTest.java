package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;

import java.text.MessageFormat;
import java.util.List;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What setting an option the channel cannot take logs ("closed" for a closed channel, "not supported" otherwise);
 * core options kept in fields, other supported options in a map made on first use.
 */
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

    @Test
    void coreOptionsHaveTheirDefaultsAndKeepWhatWasSet() {
        TestChannel ch = new TestChannel(null);
        DefaultChannelConfig config = new DefaultChannelConfig(ch);
        assertEquals(Boolean.TRUE, config.getOption(ChannelOption.AUTO_READ));
        assertEquals(30_000, config.getOption(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertEquals(16, config.getOption(ChannelOption.WRITE_SPIN_COUNT));
        assertEquals(16, config.getOption(ChannelOption.MAX_MESSAGES_PER_READ));
        assertEquals(WriteBufferWaterMark.DEFAULT, config.getOption(ChannelOption.WRITE_BUFFER_WATER_MARK));
        assertEquals(Boolean.FALSE, config.getOption(ChannelOption.ALLOW_HALF_CLOSURE));
        BufferAllocator resolved = config.getAllocator();
        assertSame(resolved, config.getOption(ChannelOption.ALLOCATOR), "the default allocator is resolved once");

        WriteBufferWaterMark marks = new WriteBufferWaterMark(1, 2);
        assertTrue(config.setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5));
        assertTrue(config.setOption(ChannelOption.WRITE_SPIN_COUNT, 3));
        assertTrue(config.setOption(ChannelOption.MAX_MESSAGES_PER_READ, 4));
        assertTrue(config.setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, marks));
        assertTrue(config.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true));
        assertTrue(config.setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled()));
        assertEquals(5, config.connectTimeoutMillis());
        assertEquals(3, config.writeSpinCount());
        assertEquals(4, config.maxMessagesPerRead());
        assertSame(marks, config.waterMark());
        assertTrue(config.allowHalfClosure());
        assertSame(BufferAllocator.unpooled(), config.getAllocator());
        Map<ChannelOption<?>, Object> all = config.getOptions();
        assertEquals(List.copyOf(DefaultChannelConfig.CORE_OPTIONS), List.copyOf(all.keySet()));
        assertEquals(5, all.get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertTrue(records.isEmpty(), records.toString());
    }

    @Test
    void turningAutoReadOnStartsOneReadAndTurningItOffTellsTheSubclass() {
        TestChannel ch = new TestChannel(null);
        List<String> offs = new CopyOnWriteArrayList<>();
        DefaultChannelConfig config = new DefaultChannelConfig(ch) {
            @Override
            protected void autoReadTurnedOff() {
                offs.add("off, isAutoRead=" + isAutoRead());
            }
        };
        config.setAutoRead(true); // already on: nothing
        assertEquals(0, ch.io.reads.get());
        config.setAutoRead(false);
        config.setAutoRead(false);
        assertEquals(List.of("off, isAutoRead=false"), offs, "once per on-to-off change, the new value visible");
        config.setAutoRead(true);
        config.setAutoRead(true);
        assertEquals(1, ch.io.reads.get(), "one read per off-to-on change");
        assertTrue(config.isAutoRead());
    }

    @Test
    void anotherSupportedOptionIsKeptInAMapMadeWhenTheFirstIsSet() {
        TestChannel ch = new TestChannel(null);
        DefaultChannelConfig config = new DefaultChannelConfig(ch) {
            @Override
            protected boolean isSupported(ChannelOption<?> option) {
                return super.isSupported(option) || option == ChannelOption.SO_LINGER
                        || option == ChannelOption.TCP_NODELAY;
            }
        };
        assertNull(config.getOption(ChannelOption.SO_LINGER), "never set, no default");
        assertFalse(config.getOptions().containsKey(ChannelOption.SO_LINGER));
        assertTrue(config.setOption(ChannelOption.SO_LINGER, 7));
        assertTrue(config.setOption(ChannelOption.TCP_NODELAY, true)); // set after the map was made
        assertTrue(config.setOption(ChannelOption.AUTO_READ, false)); // a core option after the map was made
        assertEquals(7, config.getOption(ChannelOption.SO_LINGER));
        assertEquals(Boolean.TRUE, config.getOption(ChannelOption.TCP_NODELAY));
        assertEquals(Boolean.FALSE, config.getOption(ChannelOption.AUTO_READ));
        assertEquals(7, config.getOptions().get(ChannelOption.SO_LINGER));
        assertTrue(config.setOption(ChannelOption.SO_LINGER, 0));
        assertEquals(0, config.getOption(ChannelOption.SO_LINGER));
        assertTrue(records.isEmpty(), records.toString());
    }

    @Test
    void optionsSetFromManyThreadsAtOnceAreAllKept() throws Exception {
        TestChannel ch = new TestChannel(null);
        List<ChannelOption<Integer>> options = List.of(ChannelOption.SO_LINGER, ChannelOption.SO_SNDBUF,
                ChannelOption.SO_RCVBUF, ChannelOption.IP_TOS);
        DefaultChannelConfig config = new DefaultChannelConfig(ch) {
            @Override
            protected boolean isSupported(ChannelOption<?> option) {
                return super.isSupported(option) || options.contains(option);
            }
        };
        List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < options.size(); i++) {
            ChannelOption<Integer> option = options.get(i);
            int value = i + 1;
            threads.add(new Thread(() -> config.setOption(option, value)));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(10_000);
        }
        for (int i = 0; i < options.size(); i++) {
            assertEquals(i + 1, config.getOption(options.get(i)), options.get(i).name()
                    + ": the racing first sets made one map");
        }
    }
}
