package io.conduit.gateway.internal.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Function;
import org.jline.reader.LineReader;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * Where the gateway's {@code exit} goes in an interactive Gogo session: into the variables {@code exit} and
 * {@code system:exit} (so Gogo's {@code System.exit} under the name {@code help} lists is the gateway's too), never
 * over a variable the user set, and only in a session with a line reader while the launcher is there.
 */
class ShellExitTest {

    /** Session variables as Gogo keeps them; {@code get} of an unset scoped name gives the command of that name. */
    private final Map<String, Object> variables = new HashMap<>();
    private final Function gogoSystemExit = (session, args) -> "System.exit";

    private CommandSession session(boolean reader) {
        if (reader) {
            variables.put(".reader", Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {LineReader.class}, (p, m, a) -> null));
        }
        return (CommandSession) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CommandSession.class}, (p, m, a) -> switch (m.getName()) {
                    case "get" -> ".variables".equals(a[0]) ? variables.keySet()
                            : variables.containsKey(a[0]) ? variables.get(a[0])
                            : "system:exit".equals(a[0]) ? gogoSystemExit : null;
                    case "put" -> variables.put((String) a[0], a[1]);
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    /** A bundle context in which the launcher's exit service is registered, or not. */
    private static BundleContext context(boolean launcher) {
        ServiceReference<?> ref = (ServiceReference<?>) Proxy.newProxyInstance(ShellExitTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (p, m, a) -> null);
        return (BundleContext) Proxy.newProxyInstance(ShellExitTest.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> {
                    if (m.getName().equals("getServiceReferences") && a[0] == java.util.function.IntConsumer.class) {
                        assertEquals("(" + ShellExit.EXIT_PROPERTY + "=true)", a[1]);
                        return launcher ? List.of(ref) : List.of();
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void exitAndSystemExitBecomeTheGatewaysExit() {
        ShellExit exit = new ShellExit(context(true));
        CommandSession s = session(true);
        exit.afterCommand(s);
        assertSame(exit, variables.get("exit"));
        assertSame(exit, variables.get("system:exit"), "the variable comes before Gogo's command of that name");
        exit.afterCommand(s);
        assertSame(exit, variables.get("system:exit"));
    }

    @Test
    void aVariableTheUserSetIsLeftAlone() {
        CommandSession s = session(true);
        Function mine = (session, args) -> "mine";
        variables.put("system:exit", mine);
        variables.put("exit", "bye");
        new ShellExit(context(true)).afterCommand(s);
        assertSame(mine, variables.get("system:exit"));
        assertEquals("bye", variables.get("exit"));
    }

    @Test
    void withoutALineReaderOrTheLauncherNothingIsTakenOver() {
        new ShellExit(context(true)).afterCommand(session(false));
        assertNull(variables.get("exit"), "no jline reader: Karaf's console, bin/client -b");
        new ShellExit(context(false)).afterCommand(session(true));
        assertNull(variables.get("exit"), "no launcher: a framework started otherwise");
        assertNull(variables.get("system:exit"));
    }

    /** Stands for Gogo jline's shell service: {@code stop()} ends its session's loop before the next line. */
    public static final class FakeGogoShell {
        volatile boolean stopped;

        public void stop() {
            stopped = true;
        }
    }

    /**
     * On a dumb terminal (the launcher's {@code --shell} on a pipe: a script) {@code exit 3} records the status with
     * the launcher's exit status service and stops the Gogo shell at once, so no later line runs and the session's end
     * stops the framework; the exit service, which would stop it only once the shell is back at its prompt, is not
     * called. It then throws, which ends its own line: {@code exit 3; conduit:status} ran {@code conduit:status} while
     * {@code exit} only returned.
     */
    @Test
    void onADumbTerminalExitRecordsTheStatusAndEndsTheSessionAndItsLineAtOnce() throws Exception {
        assertEquals(List.of("status 3"), exitOnAScript(List.of("3")));
    }

    /**
     * {@code exit foo} on a script is one line (not Gogo's {@code IllegalArgumentException} with the script going on)
     * and ends the script with status 2, as a POSIX shell's script does.
     */
    @Test
    void onADumbTerminalABadArgumentEndsTheScriptWithStatus2() throws Exception {
        assertEquals(List.of("status 2"), exitOnAScript(List.of("foo")));
        assertEquals(List.of("status 2"), exitOnAScript(List.of("1", "2")));
    }

    /** @return the launcher services {@code exit ARGUMENTS} called on a dumb terminal, which must end the line */
    private List<String> exitOnAScript(List<Object> arguments) throws Exception {
        FakeGogoShell gogo = new FakeGogoShell();
        List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        ServiceReference<?> statusRef = reference();
        ServiceReference<?> exitRef = reference();
        ServiceReference<?> shellRef = reference();
        BundleContext context = (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> switch (m.getName()) {
                    case "getServiceReferences" -> a[1].equals("(" + ShellExit.EXIT_PROPERTY + "=true)")
                            ? List.of(exitRef) : List.of(statusRef);
                    case "getAllServiceReferences" -> {
                        assertEquals(ShellExit.SHELL_SERVICE, a[0]);
                        yield new ServiceReference<?>[] {shellRef};
                    }
                    case "getService" -> a[0] == shellRef ? gogo
                            : (java.util.function.IntConsumer) status -> calls.add((a[0] == statusRef ? "status "
                                    : "exit ") + status);
                    case "ungetService" -> true;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        try (org.jline.terminal.Terminal dumb = new org.jline.terminal.impl.DumbTerminal(
                new java.io.ByteArrayInputStream(new byte[0]), new java.io.ByteArrayOutputStream())) {
            assertTrue(ShellExit.isDumb(dumb));
            variables.put(".terminal", dumb);
            ShellExit.ScriptEnd end = assertThrows(ShellExit.ScriptEnd.class,
                    () -> new ShellExit(context).execute(session(true), arguments));
            assertTrue(end.getMessage().startsWith("exit "), end.getMessage());
            assertEquals(0, end.getStackTrace().length, "no stack trace");
        }
        assertTrue(gogo.stopped, "the shell reads no further line");
        return calls;
    }

    @Test
    void aSystemTerminalIsNotDumb() throws Exception {
        try (org.jline.terminal.Terminal xterm = new org.jline.terminal.impl.ExternalTerminal("t", "xterm",
                new java.io.ByteArrayInputStream(new byte[0]), new java.io.ByteArrayOutputStream(),
                java.nio.charset.StandardCharsets.UTF_8)) {
            assertFalse(ShellExit.isDumb(xterm));
        }
        assertFalse(ShellExit.isDumb(null));
    }

    private static ServiceReference<?> reference() {
        return (ServiceReference<?>) Proxy.newProxyInstance(ShellExitTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (p, m, a) -> switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    default -> null;
                });
    }

    @Test
    void theStatusIsAWholeNumber0To255() {
        assertEquals(0, ShellExit.status(List.of()));
        assertEquals(3, ShellExit.status(List.of("3")));
        assertEquals(4, ShellExit.status(List.of(4L)));
        assertEquals(255, ShellExit.status(List.of(" 255 ")));
        for (String bad : List.of("256", "-1", "foo", "3.5", "")) {
            assertEquals("exit: '" + bad.strip() + "' is not a number from 0 to 255", assertThrows(
                    IllegalArgumentException.class, () -> ShellExit.status(List.of(bad))).getMessage());
        }
        assertEquals("exit: too many arguments [1, 2]: give one status, a number from 0 to 255", assertThrows(
                IllegalArgumentException.class, () -> ShellExit.status(List.of("1", "2"))).getMessage());
    }
}
