package io.conduit.internal.nio;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Starts virtual threads on a 21+ JVM without compiling against Java 21 APIs (the bytecode level is 17): the
 * method handle of {@code Thread.startVirtualThread(Runnable)} is looked up once. Thread-safe.
 */
final class VirtualThreads {

    private static final MethodHandle START;      // null when unavailable
    private static final Throwable UNAVAILABILITY; // null when available

    static {
        MethodHandle start = null;
        Throwable cause = null;
        int feature = Runtime.version().feature();
        if (feature < 21) {
            cause = new UnsupportedOperationException("the 'nio-vthread' transport needs a 21+ JVM (virtual threads);"
                    + " this JVM is " + Runtime.version() + " (" + System.getProperty("java.vm.name")
                    + "). Run on Java 21 or newer, or use the 'nio' transport");
        } else {
            try {
                start = MethodHandles.publicLookup().findStatic(Thread.class, "startVirtualThread",
                        MethodType.methodType(Thread.class, Runnable.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                cause = new UnsupportedOperationException("the 'nio-vthread' transport needs virtual threads, but "
                        + "Thread.startVirtualThread(Runnable) could not be found on JVM " + Runtime.version(), e);
            }
        }
        START = start;
        UNAVAILABILITY = cause;
    }

    private VirtualThreads() {
    }

    /** @return why virtual threads cannot be used, or {@code null} */
    static Throwable unavailabilityCause() {
        return UNAVAILABILITY;
    }

    /**
     * Starts {@code task} on a new virtual thread named {@code name}.
     *
     * @throws UnsupportedOperationException when virtual threads are unavailable (the cause says why)
     */
    static Thread start(String name, Runnable task) {
        if (START == null) {
            throw new UnsupportedOperationException(UNAVAILABILITY.getMessage(), UNAVAILABILITY);
        }
        try {
            Thread t = (Thread) START.invokeExact(task);
            t.setName(name);
            return t;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("starting a virtual thread failed", t);
        }
    }
}
