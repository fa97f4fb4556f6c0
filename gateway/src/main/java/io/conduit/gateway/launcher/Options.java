package io.conduit.gateway.launcher;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The launcher's command line and system properties: {@code --no-shell}, {@code --shell}, {@code --conf DIR},
 * {@code --help};
 * {@value #BANNER_TIMEOUT_PROPERTY}; the home directory ({@code conduit.gateway.home}). Wrong input (an unknown
 * option, {@code --conf} without a directory, {@code --shell} with {@code --no-shell}) prints one line saying what is
 * wrong, then the usage, and exits with status 2; {@code --help} prints the usage and exits with 0.
 *
 * @param shell whether to run the interactive Gogo shell
 * @param conf  the configuration directory given with {@code --conf}, {@code null} for {@code <home>/conf}
 */
record Options(boolean shell, Path conf) {

    /** System property: how long the banner waits for everything to report, in milliseconds. */
    static final String BANNER_TIMEOUT_PROPERTY = "conduit.gateway.bannerTimeoutMillis";
    /** Default of {@link #BANNER_TIMEOUT_PROPERTY}. */
    static final long DEFAULT_BANNER_TIMEOUT_MILLIS = 15_000;
    /** System property: the home directory, which the script sets. */
    static final String HOME_PROPERTY = "conduit.gateway.home";

    /**
     * Parses the command line; prints the usage and exits on {@code --help} and on anything it does not know.
     *
     * @param args          the command line
     * @param stdinIsTerminal whether standard input is a terminal ({@link #stdinIsTerminal()}): the shell's default
     */
    static Options parse(String[] args, boolean stdinIsTerminal) {
        Options options;
        try {
            options = read(args, stdinIsTerminal);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            throw e; // not reached: usage exits
        }
        if (options == null) {
            usage(null);
        }
        return options;
    }

    /**
     * Reads the command line without printing or exiting.
     *
     * @param args            the command line
     * @param stdinIsTerminal whether standard input is a terminal: the shell's default
     * @return the options; {@code null} for {@code --help}
     * @throws IllegalArgumentException one line saying what is wrong: an unknown option, {@code --conf} without a
     *                                  directory, or both {@code --shell} and {@code --no-shell}
     */
    static Options read(String[] args, boolean stdinIsTerminal) {
        Boolean shell = null;
        Path conf = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--no-shell":
                case "--shell":
                    boolean wanted = args[i].equals("--shell");
                    if (shell != null && shell != wanted) {
                        throw new IllegalArgumentException("--shell and --no-shell contradict each other: give one "
                                + "of them");
                    }
                    shell = wanted;
                    break;
                case "--conf":
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--conf needs a directory");
                    }
                    conf = Path.of(args[++i]);
                    break;
                case "-h":
                case "--help":
                    return null;
                default:
                    throw new IllegalArgumentException("unknown option '" + args[i] + "'");
            }
        }
        return new Options(shell == null ? stdinIsTerminal : shell, conf);
    }

    /**
     * Whether standard input is a terminal, which decides whether the shell runs by default. Standard output does not
     * matter: {@code conduit-gateway 2>&1 | tee log} still has a user typing at the terminal. ({@code System.console()}
     * was used before: it is {@code null} on JDK 17 unless standard output is a terminal too, and JDK 22 to 24 return
     * one also for redirected streams.) Standard input that is not a terminal (a service's {@code /dev/null}, a file,
     * a pipe) would end the shell, and with it the gateway, at its end of file; {@code --shell} runs the shell on it
     * anyway.
     *
     * @return on Linux, whether {@code /proc/self/fd/0} names a terminal device ({@code /dev/pts/N}, {@code /dev/ttyX},
     *         {@code /dev/console}); elsewhere whether the JVM has a console on a terminal
     */
    static boolean stdinIsTerminal() {
        try {
            return isTerminalDevice(java.nio.file.Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString());
        } catch (java.io.IOException | UnsupportedOperationException | SecurityException noProcFileSystem) {
            java.io.Console console = System.console();
            if (console == null) {
                return false;
            }
            try { // JDK 22 to 24 have a console also without a terminal; Console.isTerminal() (22+) tells
                return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
            } catch (ReflectiveOperationException | ClassCastException beforeJdk22) {
                return true; // JDK 17 to 21: a console means standard input and output are a terminal
            }
        }
    }

    /** The jline 3 system property that makes its terminal builder create a dumb terminal without a warning. */
    static final String JLINE_DUMB_PROPERTY = "org.jline.terminal.dumb";

    /**
     * For the shell on standard input that is not a terminal ({@code --shell} with a pipe or a file): sets
     * {@value #JLINE_DUMB_PROPERTY}{@code =true}, whatever the user set. The launcher gives the shell a dumb terminal
     * of its own ({@link ScriptTerminal}); this covers a jline that takes no terminal from outside. Left to the
     * property, jline 3.21 makes a dumb terminal quietly with {@code true}, with a {@code WARNING org.jline: Unable to
     * create a system terminal, creating a dumb terminal} when unset, and none with {@code false}: then no shell
     * started, and the gateway waited for a script nobody read.
     *
     * @param scriptOnStdin whether the shell runs and standard input is not a terminal
     * @return whether the property was set
     */
    static boolean useDumbTerminal(boolean scriptOnStdin) {
        if (!scriptOnStdin) {
            return false;
        }
        System.setProperty(JLINE_DUMB_PROPERTY, "true");
        return true;
    }

    /** @return whether {@code device}, the target of {@code /proc/self/fd/0}, is a terminal (tty(4), pts(4)) */
    static boolean isTerminalDevice(String device) {
        return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
    }

    /**
     * Checks {@code conduit.gateway.bannerTimeoutMillis}.
     *
     * @param value the property's value, {@code null} when unset
     * @return the timeout; {@value #DEFAULT_BANNER_TIMEOUT_MILLIS} when unset
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    static long bannerTimeoutMillis(String value) {
        if (value == null) {
            return DEFAULT_BANNER_TIMEOUT_MILLIS;
        }
        try {
            long millis = Long.parseLong(value.strip());
            if (millis >= 1 && millis <= Integer.MAX_VALUE) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("system property " + BANNER_TIMEOUT_PROPERTY + "='" + value
                + "' is not valid; allowed values: a whole number of milliseconds from 1 to " + Integer.MAX_VALUE
                + " (how long the banner waits for the configurations to report); default: "
                + DEFAULT_BANNER_TIMEOUT_MILLIS);
    }

    /**
     * @return the home directory: {@value #HOME_PROPERTY}, else the parent of the directory holding the launcher's
     *         jar, else the working directory
     */
    static Path home() {
        String h = System.getProperty(HOME_PROPERTY);
        if (h != null && !h.isBlank()) {
            return Path.of(h).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(Options.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent().toAbsolutePath().normalize();
        } catch (Exception e) {
            return Path.of("").toAbsolutePath();
        }
    }

    private static void usage(String error) {
        PrintStream s = error == null ? System.out : System.err;
        if (error != null) {
            s.println("conduit-gateway: " + error);
        }
        s.print(usageText());
        s.flush();
        System.exit(error == null ? 0 : 2);
    }

    /** @return the usage, one option or property a line, each line ending with a newline */
    static String usageText() {
        return "usage: conduit-gateway [--no-shell | --shell] [--conf DIR] [--help]\n"
                + "  --no-shell  run without the interactive Gogo shell (the default when stdin is not a terminal;\n"
                + "              stdout and stderr do not matter: '2>&1 | tee log' keeps the shell)\n"
                + "  --shell     run the shell also when stdin is not a terminal: it reads stdin as a script,\n"
                + "              line by line; 'exit N' stops the gateway at once with status N, the end of\n"
                + "              stdin stops it with status 0\n"
                + "  --conf DIR  read component configurations (*.cfg, *.config) from DIR instead of <home>/conf\n"
                + "  --help      print this usage and exit\n"
                + "System properties (JAVA_OPTS): conduit.transport=nio|epoll|..., conduit.gateway.home=DIR (the\n"
                + "  directory holding bundles/, conf/ and data/; default: the distribution directory),\n"
                + "  conduit.gateway.bannerTimeoutMillis=N (how long the banner waits for the configurations;\n"
                + "  default " + DEFAULT_BANNER_TIMEOUT_MILLIS + ")\n";
    }
}
