package io.conduit.internal.config;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;


/**
 * Facts about the running JVM and OS that Conduit reports and decides on: the OSGi processor alias, the
 * {@code sun.misc.Unsafe} status and whether native access is enabled for a module.
 *
 * <p><b>Unsafe.</b> Conduit never uses {@code sun.misc.Unsafe}: buffers and native transports work without
 * it. It is <em>detected</em> once, for the diagnostics report and for code that might one day want it, and the
 * detection neither loads nor calls {@code Unsafe}, so it never provokes the JDK 24+ memory-access warning
 * (JEP 498). The JVM's mode comes from the system property {@code sun.misc.unsafe.memory.access}, which the
 * JDK 23+ launcher sets from {@code --sun-misc-unsafe-memory-access=allow|warn|debug|deny} (verified on
 * Temurin 25: the property is present exactly when the option is given) and which {@code sun.misc.Unsafe}
 * itself reads; when it is unset, JDK 23 allows memory access and JDK 24+ warns on first use.
 *
 * <p>Thread-safe; the Unsafe status is computed once per class loader.
 */
public final class PlatformInfo {

    /** The JVM's setting for {@code --sun-misc-unsafe-memory-access} (JDK 23+). */
    public static final String UNSAFE_MEMORY_ACCESS_PROPERTY = "sun.misc.unsafe.memory.access";

    private PlatformInfo() {
    }

    /** What Conduit may assume about {@code sun.misc.Unsafe}. */
    public enum UnsafeStatus {
        /** Present and the JVM allows memory access without warnings; Conduit still does not use it. */
        AVAILABLE,
        /** {@code conduit.noUnsafe=true}: not even looked for. */
        DISABLED_BY_PROPERTY,
        /**
         * {@code conduit.noUnsafe} has a value other than {@code true}/{@code false}: an error, as for every Conduit
         * property (transport selection fails naming it); not looked for until it is fixed.
         */
        INVALID_PROPERTY,
        /** The JVM runs with {@code --sun-misc-unsafe-memory-access=deny}: memory access throws. */
        DENIED_BY_JVM,
        /** The JVM warns on first memory access ({@code warn}, {@code debug}, or the JDK 24+ default). */
        WARNED_BY_JVM,
        /** The {@code jdk.unsupported} module is not in the boot layer (e.g. a jlink image without it). */
        ABSENT;

        /** @return {@code true} only for {@link #AVAILABLE} */
        public boolean usable() {
            return this == AVAILABLE;
        }
    }

    /** A status with the sentence that explains it. */
    public static final class UnsafeInfo {
        private final UnsafeStatus status;
        private final String explanation;

        public UnsafeInfo(UnsafeStatus status, String explanation) {
            this.status = status;
            this.explanation = explanation;
        }

        public UnsafeStatus status() {
            return status;
        }

        /** @return why, e.g. {@code "the JVM runs with --sun-misc-unsafe-memory-access=deny"} */
        public String explanation() {
            return explanation;
        }

        @Override
        public String toString() {
            return status.name().toLowerCase(Locale.ROOT).replace('_', ' ') + " (" + explanation + ")";
        }
    }

    private static final class UnsafeHolder {
        static final UnsafeInfo INFO = detectUnsafe(System::getProperty, Runtime.version().feature(),
                () -> ModuleLayer.boot().findModule("jdk.unsupported").isPresent());
    }

    /** @return the Unsafe status of this JVM, detected on the first call */
    public static UnsafeInfo unsafe() {
        return UnsafeHolder.INFO;
    }

    /**
     * The pure detection rule.
     *
     * @param properties system property lookup
     * @param javaFeatureVersion {@link Runtime.Version#feature()} of the JVM
     * @param jdkUnsupportedPresent tells whether {@code jdk.unsupported} is present; not called when
     *        {@code conduit.noUnsafe} is set
     */
    public static UnsafeInfo detectUnsafe(Function<String, String> properties, int javaFeatureVersion,
            BooleanSupplier jdkUnsupportedPresent) {
        String noUnsafe = properties.apply(ConduitProperties.NO_UNSAFE);
        try {
            if (ConduitProperties.parseBoolean(ConduitProperties.NO_UNSAFE, noUnsafe, false)) {
                return new UnsafeInfo(UnsafeStatus.DISABLED_BY_PROPERTY,
                        "-D" + ConduitProperties.NO_UNSAFE + "=" + noUnsafe + ": Conduit does not look for it");
            }
        } catch (IllegalArgumentException e) {
            return new UnsafeInfo(UnsafeStatus.INVALID_PROPERTY, e.getMessage()
                    + "; not looked for, and no transport is selected, until it is fixed");
        }
        if (!jdkUnsupportedPresent.getAsBoolean()) {
            return new UnsafeInfo(UnsafeStatus.ABSENT, "module jdk.unsupported is not in this runtime image");
        }
        String mode = properties.apply(UNSAFE_MEMORY_ACCESS_PROPERTY);
        if (mode == null) {
            if (javaFeatureVersion >= 24) {
                return new UnsafeInfo(UnsafeStatus.WARNED_BY_JVM, "JDK " + javaFeatureVersion
                        + " warns on the first memory access by default (no --sun-misc-unsafe-memory-access given)");
            }
            return new UnsafeInfo(UnsafeStatus.AVAILABLE, "JDK " + javaFeatureVersion
                    + " allows memory access" + (javaFeatureVersion >= 23 ? " by default" : "")
                   );
        }
        String option = "the JVM runs with --sun-misc-unsafe-memory-access=" + mode;
        switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "allow":
                return new UnsafeInfo(UnsafeStatus.AVAILABLE, option);
            case "deny":
                return new UnsafeInfo(UnsafeStatus.DENIED_BY_JVM, option);
            case "warn":
            case "debug":
                return new UnsafeInfo(UnsafeStatus.WARNED_BY_JVM, option);
            default:
                return new UnsafeInfo(UnsafeStatus.WARNED_BY_JVM, option
                        + " (unknown mode; assumed to warn or deny)");
        }
    }

    /**
     * The processor name as OSGi spells it in {@code Bundle-NativeCode} (OSGi Core, "Environment Properties"):
     * {@code x86-64}, {@code x86}, {@code aarch64}, {@code arm}, {@code ppc64le}, ...
     *
     * @param osArch the {@code os.arch} system property
     */
    public static String osgiProcessor(String osArch) {
        String a = osArch.toLowerCase(Locale.ROOT).trim();
        switch (a) {
            case "amd64":
            case "x86_64":
            case "x86-64":
            case "em64t":
                return "x86-64";
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
            case "pentium":
                return "x86";
            case "aarch64":
            case "arm64":
                return "aarch64";
            case "arm":
            case "armv7l":
            case "arm_le":
                return "arm";
            default:
                return a;
        }
    }

    /** @return the OSGi processor alias of this JVM */
    public static String osgiProcessor() {
        return osgiProcessor(System.getProperty("os.arch", "unknown"));
    }

    /** @return the architecture as it appears in Conduit library names: {@code x86_64}, {@code aarch64}, {@code armv7}, ... */
    public static String libraryArch() {
        String p = osgiProcessor();
        return p.equals("x86-64") ? "x86_64" : p.equals("arm") ? "armv7" : p;
    }

    /**
     * Whether {@code --enable-native-access} covers {@code module}: JDK 22+ {@code Module.isNativeAccessEnabled()}
     * called through reflection (the bytecode targets 17).
     *
     * @return empty before JDK 22, where loading a native library needs no flag
     */
    public static Optional<Boolean> nativeAccessEnabled(Module module) {
        Method m;
        try {
            m = Module.class.getMethod("isNativeAccessEnabled");
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
        try {
            return Optional.of((Boolean) m.invoke(module));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
