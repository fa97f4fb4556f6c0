package io.conduit.gateway.internal.shell;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Registers the {@link ShellInterruptHint}, {@link ShellExit} and {@link TerminalWithoutSize} with the Gogo runtime (whiteboard
 * {@code CommandSessionListener}s) when the Gogo and jline packages are wired; without them (optional imports) it
 * does nothing, quietly.
 */
@Component(service = {}, immediate = true)
public final class ShellInterruptHintComponent {

    private static final String LISTENER = "org.apache.felix.service.command.CommandSessionListener";

    /** {@code null} when Gogo or jline is not there. */
    private final ServiceRegistration<?> registration;
    /** {@code null} when Gogo or jline is not there. */
    private final ServiceRegistration<?> exit;
    /** {@code null} when Gogo or jline is not there. */
    private final ServiceRegistration<?> terminalSize;

    /** @param context this bundle's context */
    @Activate
    public ShellInterruptHintComponent(BundleContext context) {
        ServiceRegistration<?> r;
        ServiceRegistration<?> e;
        ServiceRegistration<?> t;
        try {
            t = context.registerService(LISTENER, new TerminalWithoutSize(), null);
            r = context.registerService(LISTENER, new ShellInterruptHint(), null);
            e = context.registerService(LISTENER, new ShellExit(context), null);
        } catch (NoClassDefFoundError | IllegalArgumentException noGogoOrJline) {
            r = null; // the shell's packages are not wired: no shell, no hint
            e = null;
            t = null;
        }
        registration = r;
        exit = e;
        terminalSize = t;
    }

    /** Withdraws the listeners. */
    @Deactivate
    public void deactivate() {
        for (ServiceRegistration<?> r : new ServiceRegistration<?>[] {registration, exit, terminalSize}) {
            if (r != null) {
                try {
                    r.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // unregistered by the framework
                }
            }
        }
    }
}
