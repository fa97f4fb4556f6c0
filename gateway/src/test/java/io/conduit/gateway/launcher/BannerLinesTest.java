package io.conduit.gateway.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The banner's lines of a component state it as {@code conduit:gateway} does. */
class BannerLinesTest {

    @Test
    void aComponentWithOneBadEndpointIsPartialAndOneWithNothingBoundIsFailed() {
        assertEquals(List.of(
                "  listening echo  tcp://127.0.0.1:7007  (io.conduit.gateway.echo-default.cfg)",
                "  PARTIAL   echo  cannot listen on tcp://10.255.255.1:16385: no  (io.conduit.gateway.echo-default.cfg)"),
                Banner.componentLines("echo", "io.conduit.gateway.echo-default.cfg",
                        new String[] {"tcp://127.0.0.1:7007"},
                        new String[] {"cannot listen on tcp://10.255.255.1:16385: no"}));
        assertEquals(List.of("  FAILED    relay bad configuration: missing 'upstream'  (r.cfg)"),
                Banner.componentLines("relay", "r.cfg", new String[0],
                        new String[] {"bad configuration: missing 'upstream'"}));
    }

    @Test
    void theReadyLineOfAScriptSaysNothingAboutStopping() {
        assertEquals("", Banner.readyEnding(true, true, false));
        assertEquals("; no transport, so nothing will listen", Banner.readyEnding(true, true, true));
        assertEquals("; stop with 'exit 0' or Ctrl-D", Banner.readyEnding(true, false, false));
        assertEquals("; no transport, so nothing will listen: leave with 'exit 0' or Ctrl-D and start again",
                Banner.readyEnding(true, false, true));
        assertEquals("; stop with Ctrl-C", Banner.readyEnding(false, false, false));
        assertEquals("; no transport, so nothing can listen: exiting", Banner.readyEnding(false, false, true));
    }
}
