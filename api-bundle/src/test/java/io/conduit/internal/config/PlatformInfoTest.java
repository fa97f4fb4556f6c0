package io.conduit.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.internal.config.PlatformInfo.UnsafeInfo;
import io.conduit.internal.config.PlatformInfo.UnsafeStatus;
import org.junit.jupiter.api.Test;

class PlatformInfoTest {

    private static UnsafeInfo detect(Map<String, String> props, int feature, boolean present) {
        return PlatformInfo.detectUnsafe(props::get, feature, () -> present);
    }

    @Test
    void noUnsafeDisablesDetectionWithoutLookingForTheModule() {
        AtomicInteger looked = new AtomicInteger();
        UnsafeInfo info = PlatformInfo.detectUnsafe(Map.of("conduit.noUnsafe", "True",
                "sun.misc.unsafe.memory.access", "allow")::get, 25, () -> looked.incrementAndGet() > 0);
        assertEquals(UnsafeStatus.DISABLED_BY_PROPERTY, info.status());
        assertTrue(info.explanation().contains("conduit.noUnsafe"), info.explanation());
        assertEquals(0, looked.get());
        assertFalse(info.status().usable());
    }

    @Test
    void malformedNoUnsafeIsReportedAsAnErrorNotReadAsEitherValue() {
        UnsafeInfo info = detect(Map.of("conduit.noUnsafe", "yes"), 17, true);
        assertEquals(UnsafeStatus.INVALID_PROPERTY, info.status());
        assertTrue(info.explanation().contains("no transport is selected"), info.explanation());
        assertTrue(info.explanation().contains("conduit.noUnsafe='yes'")
                && info.explanation().contains("true, false"), info.explanation());
    }

    @Test
    void theJvmMemoryAccessModeDecides() {
        assertEquals(UnsafeStatus.DENIED_BY_JVM, detect(Map.of("sun.misc.unsafe.memory.access", "deny"), 25, true)
                .status());
        assertEquals(UnsafeStatus.WARNED_BY_JVM, detect(Map.of("sun.misc.unsafe.memory.access", "warn"), 25, true)
                .status());
        assertEquals(UnsafeStatus.WARNED_BY_JVM, detect(Map.of("sun.misc.unsafe.memory.access", "debug"), 24, true)
                .status());
        assertEquals(UnsafeStatus.AVAILABLE, detect(Map.of("sun.misc.unsafe.memory.access", "allow"), 25, true)
                .status());
        assertEquals(UnsafeStatus.WARNED_BY_JVM, detect(Map.of(), 25, true).status(), "JDK 24+ default is warn");
        assertEquals(UnsafeStatus.AVAILABLE, detect(Map.of(), 23, true).status());
        UnsafeInfo jdk17 = detect(Map.of(), 17, true);
        assertEquals(UnsafeStatus.AVAILABLE, jdk17.status());
        assertTrue(jdk17.status().usable());
        assertEquals(UnsafeStatus.ABSENT, detect(Map.of(), 25, false).status());
    }

    @Test
    void detectionHappensOnce() {
        assertSame(PlatformInfo.unsafe(), PlatformInfo.unsafe());
    }

    @Test
    void processorNamesFollowOsgi() {
        assertEquals("x86-64", PlatformInfo.osgiProcessor("amd64"));
        assertEquals("x86-64", PlatformInfo.osgiProcessor("x86_64"));
        assertEquals("aarch64", PlatformInfo.osgiProcessor("arm64"));
        assertEquals("x86", PlatformInfo.osgiProcessor("i686"));
        assertEquals("ppc64le", PlatformInfo.osgiProcessor("ppc64le"));
    }
}
