package io.conduit.internal.metrics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import io.conduit.internal.config.ConduitProperties;

/**
 * Registers the metrics views on the platform MBean server, and only there. Every registration made is
 * remembered, so {@link #stop()} (the API bundle stops) unregisters all of them. The views are API-bundle classes
 * that refer to counters and names only, never to a transport bundle's class.
 *
 * <p>{@value #PROPERTY}{@code =false} turns registration off; it is read at each registration. A failure to
 * register (no JMX in a trimmed runtime, a name taken) is logged at DEBUG and ignored: metrics never break I/O.
 */
public final class Jmx {

    /** The system property that turns JMX registration off when {@code false}. */
    public static final String PROPERTY = ConduitProperties.JMX;
    /** The JMX domain of every Conduit MBean. */
    public static final String DOMAIN = "io.conduit";

    private static final System.Logger LOG = System.getLogger(Jmx.class.getName());
    private static final Set<ObjectName> REGISTERED = ConcurrentHashMap.newKeySet();
    /** {@code true} after {@link #stop()}, until {@link #start()}: nothing is registered. */
    private static volatile boolean stopped;

    private Jmx() {
    }

    /** The malformed value last warned about, so each one is logged once. */
    private static volatile String warnedValue;

    /**
     * @return whether registrations are made now: not after {@link #stop()}, and not with {@value #PROPERTY}
     *         {@code =false}; a value that is no boolean is logged once as a WARNING and leaves JMX on
     */
    public static boolean enabled() {
        if (stopped) {
            return false;
        }
        String value = System.getProperty(PROPERTY);
        try {
            return ConduitProperties.parseBoolean(PROPERTY, value, true);
        } catch (IllegalArgumentException e) {
            if (!value.equals(warnedValue)) {
                warnedValue = value;
                LOG.log(System.Logger.Level.WARNING, e.getMessage() + "; JMX registration stays on");
            }
            return true;
        }
    }

    /** Allows registrations again (the API bundle started). */
    public static void start() {
        stopped = false;
    }

    /** Unregisters everything registered here and registers nothing until {@link #start()}. */
    public static void stop() {
        stopped = true;
        for (ObjectName n : new ArrayList<>(REGISTERED)) {
            unregister(n);
        }
    }

    /**
     * @param key the key properties after the domain, e.g. {@code type=Transport,name=epoll}
     * @return the name, or {@code null} when it is malformed (logged)
     */
    static ObjectName name(String key) {
        try {
            return new ObjectName(DOMAIN + ":" + key);
        } catch (MalformedObjectNameException e) {
            LOG.log(System.Logger.Level.DEBUG, "no JMX name for " + key, e);
            return null;
        }
    }

    /** @return {@code value} quoted when it holds a character an unquoted object name value may not hold */
    static String value(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (",=:\"*?\n\\ ".indexOf(value.charAt(i)) >= 0) {
                return ObjectName.quote(value);
            }
        }
        return value;
    }

    /**
     * Registers {@code view} as an MXBean of interface {@code type}, replacing nothing.
     *
     * @return whether it is registered now
     */
    static <T> boolean register(ObjectName name, T view, Class<T> type) {
        if (name == null || !enabled()) {
            return false;
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            server.registerMBean(new StandardMBean(view, type, true), name);
            REGISTERED.add(name);
            if (stopped) {
                unregister(name); // raced with stop()
                return false;
            }
            return true;
        } catch (Exception | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "JMX registration of " + name + " failed", e);
            return false;
        }
    }

    /** Unregisters {@code name} when it was registered here; {@code null} is ignored. */
    static void unregister(ObjectName name) {
        if (name == null || !REGISTERED.remove(name)) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (InstanceNotFoundException e) {
            // someone else unregistered it
        } catch (Exception | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "JMX unregistration of " + name + " failed", e);
        }
    }

    /** @return whether {@code name} is registered here now */
    static boolean isRegistered(ObjectName name) {
        return name != null && REGISTERED.contains(name);
    }
}
