package io.conduit.testsuite;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Assumptions;

/**
 * External programs that some tests drive (socat, curl, redis-server, script(1), unshare(1), ...), found on the
 * {@code PATH} as {@code execvp(3)} finds them; nothing is ever installed from here.
 *
 * <p>A missing program skips the tests that need it and prints one line per program and test JVM, naming the
 * program and the command that installs it:
 * <pre>[tools] SKIPPED: 'socat' is not on the PATH: the tests that need it are skipped; install it with 'apt-get install -y socat'</pre>
 * With the environment variable {@value #REQUIRE_ENV}{@code =true} (set by {@code .ci/run}) a missing program
 * fails the test instead, so CI skips nothing. Thread-safe: tests of one JVM may call it concurrently.
 */
public final class RequiredTools {

    /** The environment variable that turns every skip for a missing program into a failure: {@code true}. */
    public static final String REQUIRE_ENV = "CONDUIT_REQUIRE_TOOLS";

    /** What was already reported missing in this JVM: each is printed once. */
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private RequiredTools() {
    }

    /** @return whether {@value #REQUIRE_ENV} is {@code true} in this process's environment */
    public static boolean required() {
        return "true".equals(System.getenv(REQUIRE_ENV));
    }

    /**
     * @param program a program name without a directory, e.g. {@code socat}
     * @return the first executable {@code program} in a {@code PATH} directory, or {@code null} when there is none
     */
    public static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The program for a test that cannot run without it.
     *
     * @param program a program name without a directory, e.g. {@code redis-benchmark}
     * @param install the command that installs it, e.g. {@code apt-get install -y redis-tools}
     * @return its path on the {@code PATH}
     * @throws org.opentest4j.TestAbortedException when it is missing (the test is skipped; see {@link #missing})
     * @throws AssertionError when it is missing and {@value #REQUIRE_ENV} is {@code true}
     */
    public static Path require(String program, String install) {
        Path p = onPath(program);
        if (p == null) {
            Assumptions.assumeTrue(false, missing(notOnPath(program), "install it with '" + install + "'"));
        }
        return p;
    }

    /**
     * The program for a test that runs a part without it: {@code null} means that part is left out.
     *
     * @param program a program name without a directory
     * @param install the command that installs it
     * @return its path on the {@code PATH}, or {@code null} after {@link #missing} reported it
     * @throws AssertionError when it is missing and {@value #REQUIRE_ENV} is {@code true}
     */
    public static Path optional(String program, String install) {
        Path p = onPath(program);
        if (p == null) {
            missing(notOnPath(program), "install it with '" + install + "'");
        }
        return p;
    }

    /**
     * Reports a missing prerequisite: one printed line per {@code what} and JVM, or a failure under
     * {@value #REQUIRE_ENV}{@code =true}. {@link #require} and {@link #optional} use it for programs; a test calls
     * it itself for a prerequisite that is not a program (a private network namespace, say).
     *
     * @param what what is missing, e.g. {@code 'socat' is not on the PATH}
     * @param remedy what to do, e.g. {@code install it with 'apt-get install -y socat'}
     * @return the reason (the line without its {@code [tools] SKIPPED: } prefix), for an assumption's message
     * @throws AssertionError when {@value #REQUIRE_ENV} is {@code true}
     */
    public static String missing(String what, String remedy) {
        if (required()) {
            throw new AssertionError("[tools] FAILED: " + what + ", and " + REQUIRE_ENV + "=true forbids skipping; "
                    + remedy);
        }
        String reason = what + ": the tests that need it are skipped; " + remedy;
        if (REPORTED.add(what)) {
            System.out.println("[tools] SKIPPED: " + reason);
        }
        return reason;
    }

    private static String notOnPath(String program) {
        return "'" + program + "' is not on the PATH";
    }
}
