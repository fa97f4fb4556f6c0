package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The distribution started with a transport selection that cannot be satisfied: one clear line, no stack trace, a
 * banner naming the selection error as a problem, and (with {@code --no-shell}) exit status 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NoTransportDistributionIT {

    @Test
    void anUnknownStrictTransportStopsTheGatewayWithOneClearProblem() throws Exception {
        GatewayProcess.Exit exit = GatewayProcess.runToExit(
                "-Dconduit.transport=bogus -Dconduit.transport.strict=true");
        String out = exit.output();
        System.out.println(out);
        assertEquals(2, exit.status(), out);
        assertTrue(out.contains("transport: none \u2014 "), out);
        assertTrue(out.contains("bogus"), out);
        assertFalse(out.contains("is a transport bundle in bundles/?"), out);
        assertTrue(out.contains("Ready: 0 endpoint(s) listening, 1 problem(s)"), out);
        assertFalse(out.contains("InvocationTargetException"), out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
    }

    @Test
    void aMalformedPlatformPropertyStopsTheGatewayNamingThatProperty() throws Exception {
        GatewayProcess.Exit exit = GatewayProcess.runToExit("-Dconduit.leakDetection=bogus");
        String out = exit.output();
        System.out.println(out);
        assertEquals(2, exit.status(), out);
        assertTrue(out.contains("conduit.leakDetection='bogus'"), out);
        assertTrue(out.contains("disabled, simple, paranoid"), "the accepted values:\n" + out);
        assertTrue(out.contains("(fix conduit.leakDetection, e.g. in JAVA_OPTS, and restart)"), out);
        assertTrue(out.contains("Ready: 0 endpoint(s) listening, 1 problem(s)"), out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
    }
}
