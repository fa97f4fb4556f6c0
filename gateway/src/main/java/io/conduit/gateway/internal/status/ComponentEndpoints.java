package io.conduit.gateway.internal.status;

import java.util.List;

/**
 * The endpoints of one component as its {@link ComponentStatus} reports them; the network's listeners implement it.
 * Thread-safe, like {@link GatewayStatus}.
 */
public interface ComponentEndpoints {

    /** @return see {@link GatewayStatus#listening()} */
    List<String> listening();

    /** @return see {@link GatewayStatus#bindings()} */
    List<String> bindings();

    /** @return see {@link GatewayStatus#failures()} */
    List<String> failures();

    /** @return see {@link GatewayStatus#now()} */
    GatewayStatus.Now now();
}
