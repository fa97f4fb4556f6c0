package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.ChannelHandler;
import io.conduit.transport.ManagedServer;
import org.apache.felix.hc.api.Result;
import org.apache.felix.hc.api.ResultLog;
import org.apache.felix.hc.api.execution.HealthCheckExecutionOptions;
import org.apache.felix.hc.api.execution.HealthCheckExecutionResult;
import org.apache.felix.hc.api.execution.HealthCheckExecutor;
import org.apache.felix.hc.api.execution.HealthCheckSelector;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;

/**
 * The health bundle's checks run by Felix Health Checks (hc.core's executor, as {@code hc:exec} and a system-ready
 * servlet run them) in Felix and Equinox, with the epoll bundle and its fragments: tag {@code conduit} selects the
 * three checks, tag {@code systemready} the transport and endpoint checks; on this machine the native transport is
 * selected and a running {@code ManagedServer} is reported as listening on it.
 */
@RunWith(PaxExam.class)
public class HealthChecksBundleTest {

    @Inject
    private BundleContext context;

    @Inject
    private HealthCheckExecutor executor;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.thirdParty("slf4j-api"), ItestOptions.thirdParty("slf4j-simple"),
                ItestOptions.thirdParty("org.osgi.service.event"),
                ItestOptions.thirdParty("org.apache.felix.http.servlet-api"),
                ItestOptions.thirdParty("org.osgi.service.http"),
                ItestOptions.thirdParty("org.osgi.service.http.whiteboard"),
                ItestOptions.thirdParty("org.apache.felix.healthcheck.api"),
                ItestOptions.thirdParty("org.apache.felix.healthcheck.core"),
                ItestOptions.ours("conduit.itest.healthJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    /** @return check name → its result, for the checks {@code selector} selects */
    private Map<String, Result> run(HealthCheckSelector selector) {
        Map<String, Result> results = new TreeMap<>();
        HealthCheckExecutionOptions now = new HealthCheckExecutionOptions();
        now.setForceInstantExecution(true); // not hc.core's result cache (2 s by default)
        for (HealthCheckExecutionResult r : executor.execute(selector, now)) {
            results.put(r.getHealthCheckMetadata().getName(), r.getHealthCheckResult());
        }
        return results;
    }

    private static String messages(Result r) {
        StringBuilder b = new StringBuilder();
        for (ResultLog.Entry e : r) {
            b.append(e.getStatus()).append(' ').append(e.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    public void theChecksRunThroughFelixHealthChecksAndReportEpollAndAListeningServer() throws Exception {
        assertEquals(List.of("Conduit buffer leaks", "Conduit endpoints", "Conduit transport"),
                List.copyOf(run(HealthCheckSelector.tags("conduit")).keySet()));
        assertEquals(List.of("Conduit endpoints", "Conduit transport"),
                List.copyOf(run(HealthCheckSelector.tags("systemready")).keySet()));

        Result transport = run(HealthCheckSelector.names("Conduit transport")).get("Conduit transport");
        assertEquals(messages(transport), Result.Status.OK, transport.getStatus());
        assertTrue(messages(transport), messages(transport).startsWith("OK Transport 'epoll' (native) is selected"));

        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0))
                .childHandler(new ChannelHandler() { });
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        try {
            Result endpoints = run(HealthCheckSelector.names("Conduit endpoints")).get("Conduit endpoints");
            assertEquals(messages(endpoints), Result.Status.OK, endpoints.getStatus());
            assertTrue(messages(endpoints), messages(endpoints).contains("ManagedServer /127.0.0.1:"
                    + address.getPort() + " listens on 'epoll'"));
        } finally {
            server.close().await(10, TimeUnit.SECONDS);
        }
        Result leaks = run(HealthCheckSelector.names("Conduit buffer leaks")).get("Conduit buffer leaks");
        assertEquals(messages(leaks), Result.Status.OK, leaks.getStatus());
    }
}
