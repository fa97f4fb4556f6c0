package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ExpositionTest {

    @Test
    void aFamilyIsWrittenOnceWithHelpAndTypeAndAllItsSamplesWhoeverAddedThem() {
        Exposition x = new Exposition();
        // two collectors, as two relays: each declares the families and adds its own endpoint
        x.counter("conduit_test_bytes_total", "Bytes.").sample(10, "listen", "a");
        x.gauge("conduit_test_open", "Open now.").sample(1, "listen", "a");
        x.counter("conduit_test_bytes_total", "Bytes.").sample(20, "listen", "b");
        x.gauge("conduit_test_open", "Open now.").sample(0, "listen", "b");
        assertEquals("""
                # HELP conduit_test_bytes_total Bytes.
                # TYPE conduit_test_bytes_total counter
                conduit_test_bytes_total{listen="a"} 10
                conduit_test_bytes_total{listen="b"} 20
                # HELP conduit_test_open Open now.
                # TYPE conduit_test_open gauge
                conduit_test_open{listen="a"} 1
                conduit_test_open{listen="b"} 0
                """, x.text());
    }

    @Test
    void labelValuesAndHelpAreEscaped() {
        Exposition x = new Exposition();
        x.gauge("g", "a \\ and a\nnewline").sample(1, "path", "C:\\x \"q\"\nnext");
        assertEquals("# HELP g a \\\\ and a\\nnewline\n# TYPE g gauge\ng{path=\"C:\\\\x \\\"q\\\"\\nnext\"} 1\n",
                x.text());
    }

    @Test
    void aHistogramIsCumulativeBucketsThenSumAndCount() {
        Exposition x = new Exposition();
        x.histogram("conduit_test_seconds", "Time.", new double[] {0.0005, 1, 2.5})
                .histogramSample(new long[] {1, 2, 0, 3}, 12.25, "listen", "a");
        assertEquals("""
                # HELP conduit_test_seconds Time.
                # TYPE conduit_test_seconds histogram
                conduit_test_seconds_bucket{listen="a",le="0.0005"} 1
                conduit_test_seconds_bucket{listen="a",le="1"} 3
                conduit_test_seconds_bucket{listen="a",le="2.5"} 3
                conduit_test_seconds_bucket{listen="a",le="+Inf"} 6
                conduit_test_seconds_sum{listen="a"} 12.25
                conduit_test_seconds_count{listen="a"} 6
                """, x.text());
    }

    @Test
    void valuesAreWholeNumbersWhenWholeAndJavaDecimalsOtherwise() {
        assertEquals("0", Exposition.value(0));
        assertEquals("0.25", Exposition.value(0.25));
        assertEquals("1.0E-4", Exposition.value(0.0001));
        assertEquals("1.0E15", Exposition.value(1e15));
        assertEquals("+Inf", Exposition.value(Double.POSITIVE_INFINITY));
        assertEquals("-Inf", Exposition.value(Double.NEGATIVE_INFINITY));
        assertEquals("NaN", Exposition.value(Double.NaN));
        assertEquals("0.0001", Exposition.bound(0.0001));
        assertEquals("10", Exposition.bound(10));
    }

    @Test
    void aWholeValueAbove2To53IsWrittenExactly() {
        Exposition x = new Exposition();
        x.counter("c_total", "C.").sample(9007199254740993L);
        assertEquals("# HELP c_total C.\n# TYPE c_total counter\nc_total 9007199254740993\n", x.text());
    }

    @Test
    void aFamilyWithoutSamplesIsLeftOut() {
        Exposition x = new Exposition();
        x.counter("a_total", "A.");
        x.gauge("b", "B.").sample(2);
        assertEquals("# HELP b B.\n# TYPE b gauge\nb 2\n", x.text());
    }

    @Test
    void whatPrometheusWouldRejectIsRefusedBeforeItIsWritten() {
        Exposition x = new Exposition();
        assertThrows(IllegalArgumentException.class, () -> x.counter("bytes", "no _total"));
        assertThrows(IllegalArgumentException.class, () -> x.gauge("1st", "bad name"));
        Exposition.Family g = x.gauge("g", "G.");
        assertThrows(IllegalArgumentException.class, () -> x.counter("g_total", "G.").sample(-1));
        assertThrows(IllegalArgumentException.class, () -> x.counter("g", "declared as a gauge"));
        assertThrows(IllegalArgumentException.class, () -> x.gauge("g", "another help"));
        assertThrows(IllegalArgumentException.class, () -> g.sample(1, "a"));
        assertThrows(IllegalArgumentException.class, () -> g.sample(1, "a-b", "x"));
        assertThrows(IllegalArgumentException.class, () -> g.sample(1, "__name", "x"));
        assertThrows(IllegalArgumentException.class, () -> g.sample(1, "a", "x", "a", "y"));
        assertThrows(IllegalArgumentException.class, () -> g.sample(1, "a", null));
        g.sample(1, "a", "x");
        assertThrows(IllegalArgumentException.class, () -> g.sample(2, "a", "x"), "the same series twice");
        Exposition.Family h = x.histogram("h", "H.", new double[] {1, 2});
        assertThrows(IllegalArgumentException.class, () -> h.sample(1));
        assertThrows(IllegalArgumentException.class, () -> h.histogramSample(new long[] {1, 2}, 0));
        assertThrows(IllegalArgumentException.class, () -> h.histogramSample(new long[] {1, 2, 3}, 0, "le", "1"));
        assertThrows(IllegalArgumentException.class, () -> x.histogram("h2", "H.", new double[] {2, 1}));
        assertThrows(IllegalArgumentException.class, () -> x.histogram("h", "H.", new double[] {1, 3}));
        assertEquals("# HELP g G.\n# TYPE g gauge\ng{a=\"x\"} 1\n", x.text(), "nothing of a refused call was written");
    }
}
