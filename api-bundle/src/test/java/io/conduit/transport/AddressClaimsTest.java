package io.conduit.transport;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.net.BindException;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process claims of {@code ManagedServer} and {@code ManagedDatagramEndpoint} addresses: a claim conflicts with
 * another owner's of the same protocol and port at the same address or where either is the wildcard.
 */
class AddressClaimsTest {

    private static final Transport NIO = (Transport) Proxy.newProxyInstance(AddressClaimsTest.class.getClassLoader(),
            new Class<?>[] {Transport.class}, (self, m, a) -> m.getName().equals("name") ? "nio" : null);
    private final Object first = new Object();
    private final Object second = new Object();

    @AfterEach
    void release() {
        AddressClaims.release(first);
        AddressClaims.release(second);
    }

    private void claim(boolean stream, String host, int port, Object owner) throws BindException {
        AddressClaims.claim(stream, new InetSocketAddress(host, port), owner, "ManagedServer cannot listen on",
                "ManagedServer", NIO);
    }

    @Test
    void aSecondOwnerOfTheSamePortAndAddressFailsNamingTheFirst() throws Exception {
        claim(true, "127.0.0.1", 40001, first);
        BindException e = assertThrows(BindException.class, () -> claim(true, "127.0.0.1", 40001, second));
        assertEquals("ManagedServer cannot listen on /127.0.0.1:40001 (transport 'nio'): address already in use: "
                + "another ManagedServer of this process listens on /127.0.0.1:40001; close it or configure another "
                + "port", e.getMessage());
        assertDoesNotThrow(() -> claim(true, "127.0.0.1", 40001, first), "the same owner again");
        AddressClaims.release(first);
        assertDoesNotThrow(() -> claim(true, "127.0.0.1", 40001, second), "free once released");
    }

    @Test
    void theWildcardConflictsWithEveryAddressOfItsPortAndTcpNotWithUdp() throws Exception {
        claim(true, "0.0.0.0", 40002, first);
        assertThrows(BindException.class, () -> claim(true, "127.0.0.1", 40002, second));
        assertDoesNotThrow(() -> claim(false, "127.0.0.1", 40002, second), "UDP is another port space");
        assertDoesNotThrow(() -> claim(true, "127.0.0.1", 40003, second), "another port");
        AddressClaims.release(second);
        claim(true, "127.0.0.2", 40004, first);
        assertDoesNotThrow(() -> claim(true, "127.0.0.1", 40004, second), "two specific addresses do not conflict");
        assertThrows(BindException.class, () -> claim(true, "0.0.0.0", 40004, second));
    }

    @Test
    void portZeroIsNeverClaimed() throws Exception {
        claim(true, "127.0.0.1", 0, first);
        assertDoesNotThrow(() -> claim(true, "127.0.0.1", 0, second));
    }
}
