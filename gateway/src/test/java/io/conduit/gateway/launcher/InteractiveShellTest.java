package io.conduit.gateway.launcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which shell threads the launcher interrupts before the shell bundle stops: only one waiting for a key, as the stacks
 * of Gogo jline 1.1.8 with jline 3.21 show it (the running distribution is checked by ShellTerminalIT).
 */
class InteractiveShellTest {

    private static StackTraceElement frame(String className, String method) {
        return new StackTraceElement(className, method, null, -1);
    }

    private static final StackTraceElement[] READ_LINE = {
        frame("org.jline.reader.impl.LineReaderImpl", "readLine"),
        frame("org.apache.felix.gogo.jline.Shell", "runShell"),
        frame("java.lang.Thread", "run"),
    };

    private static StackTraceElement[] on(StackTraceElement... top) {
        StackTraceElement[] stack = new StackTraceElement[top.length + READ_LINE.length];
        System.arraycopy(top, 0, stack, 0, top.length);
        System.arraycopy(READ_LINE, 0, stack, top.length, READ_LINE.length);
        return stack;
    }

    @Test
    void aShellWaitingForAKeyIsInterrupted() {
        assertTrue(InteractiveShell.waitingForKey(on(frame("java.io.FileInputStream", "read0"),
                frame("org.jline.terminal.impl.AbstractPty$PtyInputStream", "read"),
                frame(InteractiveShell.KEY_READER, "readCharacter"),
                frame(InteractiveShell.KEY_READER, "readBinding"))));
    }

    @Test
    void aShellRunningSttyOrACommandIsNot() {
        assertFalse(InteractiveShell.waitingForKey(on(frame("java.lang.ProcessImpl", "waitFor"),
                frame(InteractiveShell.EXEC, "exec"),
                frame("org.jline.terminal.impl.AbstractPty", "setAttr"),
                frame("org.jline.terminal.impl.AbstractPty$PtyInputStream", "read"),
                frame(InteractiveShell.KEY_READER, "readCharacter"))), "stty of the raw mode");
        assertFalse(InteractiveShell.waitingForKey(on(frame("java.lang.ProcessImpl", "waitFor"),
                frame(InteractiveShell.EXEC, "exec"),
                frame("org.jline.terminal.impl.AbstractPosixTerminal", "setAttributes"))), "the reader's cleanup");
        assertFalse(InteractiveShell.waitingForKey(new StackTraceElement[] {frame("java.lang.Object", "wait"),
                frame("org.apache.felix.gogo.jline.Shell", "waitJobCompletion"),
                frame("org.apache.felix.gogo.jline.Shell", "runShell")}), "a command running");
    }
}
