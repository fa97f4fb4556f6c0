package io.conduit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The table of {@code relay.sh}: medians over rounds and same-round ratios against the HAProxy of equal threads. */
class RelayReportTest {

    private static final List<String> CONTENDERS = List.of("direct", "haproxy-1t", "relay-epoll-1t", "haproxy-2t",
            "relay-nio-2t");

    @Test
    void relaysAreComparedWithTheHaproxyOfTheirThreadCount() {
        assertEquals("haproxy-1t", RelayReport.baselineOf("relay-epoll-1t", CONTENDERS));
        assertEquals("haproxy-2t", RelayReport.baselineOf("relay-nio-2t", CONTENDERS));
        assertNull(RelayReport.baselineOf("haproxy-1t", CONTENDERS));
        assertNull(RelayReport.baselineOf("direct", CONTENDERS));
        assertNull(RelayReport.baselineOf("relay-nio-2t", List.of("haproxy-1t", "relay-nio-2t")));
    }

    @Test
    void cellsShowTheMedianOfRoundsAndTheMedianAndRangeOfSameRoundRatios() {
        List<String> raw = List.of(
                "1\thaproxy-1t\trt/s\t100", "2\thaproxy-1t\trt/s\t200", "3\thaproxy-1t\trt/s\t400",
                "1\trelay-epoll-1t\trt/s\t110", "2\trelay-epoll-1t\trt/s\t180", "3\trelay-epoll-1t\trt/s\t600",
                "1\tdirect\trt/s\t1000", "2\tdirect\trt/s\t3000",
                "1\trelay-nio-2t\tp99\t5", "not\ta\tvalue\tline", "1\thaproxy-2t\tp99\tnot-a-number");
        String table = RelayReport.table(raw, CONTENDERS);
        List<String> lines = table.lines().toList();
        assertEquals("| row | direct | haproxy-1t | relay-epoll-1t (÷ haproxy-1t) | haproxy-2t "
                + "| relay-nio-2t (÷ haproxy-2t) |", lines.get(0));
        assertEquals("|---|---:|---:|---:|---:|---:|", lines.get(1));
        // relay median 180; ratios 1.1, 0.9, 1.5: median 1.1, range 0.9-1.5; direct: median of 1,000 and 3,000
        assertEquals("| rt/s | 2,000 | 200 | 180 (1.10×, 0.90–1.50) | n/a | n/a |", lines.get(2));
        // no HAProxy value in that row: the relay's value alone
        assertEquals("| p99 | n/a | n/a | n/a | n/a | 5.00 |", lines.get(3));
        assertEquals(4, lines.size());
    }

    @Test
    void rowsFollowTheContenderWithTheMostRowsSoProxyCpuStaysBesideItsStep() {
        String table = RelayReport.table(List.of("1\tdirect\tA rate\t1", "1\tdirect\tB rate\t2",
                "1\thaproxy-1t\tA rate\t1", "1\thaproxy-1t\tA cpu\t3", "1\thaproxy-1t\tB rate\t2"),
                List.of("direct", "haproxy-1t"));
        assertEquals(List.of("A rate", "A cpu", "B rate"),
                table.lines().skip(2).map(l -> l.split(" \\| ")[0].substring(2)).toList());
    }

    @Test
    void oneRoundShowsTheRatioWithoutARange() {
        String table = RelayReport.table(List.of("1\thaproxy-1t\tMB/s\t1000", "1\trelay-epoll-1t\tMB/s\t1700"),
                List.of("haproxy-1t", "relay-epoll-1t"));
        assertEquals("| MB/s | 1,000 | 1,700 (1.70×) |", table.lines().toList().get(2));
    }

    @Test
    void numbersKeepThreeSignificantDigitsBelowAThousandAndMediansAverageTheMiddleTwo() {
        double[] values = {0.4512, 15.06, 863.7, 657894.7};
        List<String> shown = List.of("0.45", "15.1", "864", "657,895");
        for (int i = 0; i < values.length; i++) {
            assertEquals(shown.get(i), Figures.format(values[i]), "format(" + values[i] + ")");
        }
        assertEquals(2.5, RelayReport.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertEquals(3.0, RelayReport.median(List.of(5.0, 1.0, 3.0)));
    }
}
