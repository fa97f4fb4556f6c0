package io.conduit.internal.concurrent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;

/**
 * Reaches {@code Thread.ofVirtual()} (Java 21) through method handles, because this code is compiled for
 * Java 17. The look-up runs once; on an older JVM {@link #factory(String)} throws.
 */
public final class VirtualThreads {

    private static final MethodHandle OF_VIRTUAL;   // () -> Thread.Builder.OfVirtual, or null
    private static final MethodHandle NAME;         // (Thread.Builder, String) -> Thread.Builder
    private static final MethodHandle FACTORY;      // (Thread.Builder) -> ThreadFactory
    private static final Throwable UNAVAILABILITY;

    static {
        MethodHandle ofVirtual = null;
        MethodHandle name = null;
        MethodHandle factory = null;
        Throwable cause = null;
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtualType = Class.forName("java.lang.Thread$Builder$OfVirtual");
            ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualType));
            name = lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class));
            factory = lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            cause = e;
            ofVirtual = null;
        }
        OF_VIRTUAL = ofVirtual;
        NAME = name;
        FACTORY = factory;
        UNAVAILABILITY = cause;
    }

    private VirtualThreads() {
    }

    /** @return {@code true} when this JVM has virtual threads (21+) */
    public static boolean isSupported() {
        return OF_VIRTUAL != null;
    }

    /**
     * @param name the name of every thread made
     * @return a factory of unstarted virtual threads
     * @throws UnsupportedOperationException on a JVM older than 21
     */
    public static ThreadFactory factory(String name) {
        if (OF_VIRTUAL == null) {
            UnsupportedOperationException e = new UnsupportedOperationException("virtual threads need a Java 21+ JVM; this is Java "
                    + Runtime.version().feature() + " (" + System.getProperty("java.vm.name") + " " + Runtime.version() + ")");
            if (UNAVAILABILITY != null) {
                e.initCause(UNAVAILABILITY);
            }
            throw e;
        }
        try {
            Object builder = OF_VIRTUAL.invoke();
            builder = NAME.invoke(builder, name);
            return (ThreadFactory) FACTORY.invoke(builder);
        } catch (Throwable t) {
            throw new UnsupportedOperationException("could not create a virtual thread factory: " + t, t);
        }
    }
}
