package io.conduit.gateway.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Handles SIGTERM and SIGHUP in the launcher instead of the JVM, so something can run before the JVM's shutdown hooks
 * (which run all at once, in no order): the launcher stops the interactive shell there, before jline's own hook
 * restores the terminal under the shell's feet ({@link InteractiveShell}). The handler then exits with the status the
 * JVM gives a signal it ends on, 128 + the signal's number (143 for SIGTERM), which runs the shutdown hooks as before.
 *
 * <p>Through {@code sun.misc.Signal} (module {@code jdk.unsupported}, the JDK's supported way for applications to
 * handle signals, as jline does for SIGWINCH), by reflection: javac warns about every use of it by name, a warning no
 * annotation suppresses. Where it is missing or refuses a signal ({@code -Xrs}, another platform) nothing changes:
 * the shutdown hook still stops everything.
 */
final class TerminationSignals {

    /** The signals handled: what {@code kill} sends by default, and the terminal going away. */
    static final List<String> SIGNALS = List.of("TERM", "HUP");

    private TerminationSignals() {
    }

    /**
     * @param beforeExit run on the JVM's signal thread, before {@code System.exit(128 + number)}; given the number
     * @return the signals now handled (empty when none could be)
     */
    static List<String> handle(IntConsumer beforeExit) {
        Class<?> signal;
        Class<?> handlerType;
        try {
            signal = Class.forName("sun.misc.Signal");
            handlerType = Class.forName("sun.misc.SignalHandler");
        } catch (ClassNotFoundException | LinkageError noJdkUnsupported) {
            return List.of();
        }
        Object handler = Proxy.newProxyInstance(TerminationSignals.class.getClassLoader(),
                new Class<?>[] {handlerType}, (proxy, method, args) -> switch (method.getName()) {
                    case "handle" -> {
                        int number = (Integer) signal.getMethod("getNumber").invoke(args[0]);
                        beforeExit.accept(number);
                        System.exit(128 + number);
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "conduit-gateway termination handler";
                });
        List<String> handled = new java.util.ArrayList<>();
        for (String name : SIGNALS) {
            try {
                Object s = signal.getConstructor(String.class).newInstance(name);
                Method handle = signal.getMethod("handle", signal, handlerType);
                handle.invoke(null, s, handler);
                handled.add(name);
            } catch (InvocationTargetException refused) {
                // IllegalArgumentException: the JVM keeps this signal (-Xrs) or the platform has none of that name
            } catch (ReflectiveOperationException | RuntimeException | LinkageError unusable) {
                return handled;
            }
        }
        return List.copyOf(handled);
    }
}
