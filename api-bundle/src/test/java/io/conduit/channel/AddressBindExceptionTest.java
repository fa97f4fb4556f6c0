package io.conduit.channel;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link AddressBindException#reasonOf}: typed reasons win, the JDK's strerror text is read once, causes walked. */
class AddressBindExceptionTest {

    @Test
    void theReasonOfATypedExceptionIsItsOwnAlongTheCauses() {
        InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7);
        AddressBindException typed = new AddressBindException("taken", AddressBindException.Reason.IN_USE, a,
                new BindException("Cannot assign requested address"));
        assertEquals(AddressBindException.Reason.IN_USE, AddressBindException.reasonOf(typed));
        assertSame(a, typed.address());
        IOException wrapped = new IOException("listen failed", new RuntimeException(typed));
        assertEquals(AddressBindException.Reason.IN_USE, AddressBindException.reasonOf(wrapped));
    }

    @Test
    void aJdkBindExceptionIsToldByItsSystemText() {
        assertEquals(AddressBindException.Reason.IN_USE,
                AddressBindException.reasonOf(new BindException("Address already in use")));
        assertEquals(AddressBindException.Reason.NOT_AVAILABLE,
                AddressBindException.reasonOf(new BindException("Cannot assign requested address")));
        assertEquals(AddressBindException.Reason.ACCESS_DENIED,
                AddressBindException.reasonOf(new BindException("Permission denied")));
        assertEquals(AddressBindException.Reason.OTHER, AddressBindException.reasonOf(new BindException()));
        assertNull(AddressBindException.reasonOf(new IOException("Address already in use")));
        assertNull(AddressBindException.reasonOf(null));
    }

    @Test
    void aRealPortInUseAndAForeignAddressGetTheirReasons() throws IOException {
        try (ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket second = new Socket()) {
            BindException e = assertThrows(BindException.class, () -> second.bind(held.getLocalSocketAddress()));
            assertEquals(AddressBindException.Reason.IN_USE, AddressBindException.reasonOf(e));
        }
        try (Socket s = new Socket()) {
            // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this host
            BindException e = assertThrows(BindException.class,
                    () -> s.bind(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 0)));
            assertEquals(AddressBindException.Reason.NOT_AVAILABLE, AddressBindException.reasonOf(e));
        }
    }

    @Test
    void aReasonIsRequired() {
        assertThrows(NullPointerException.class, () -> new AddressBindException("x", null, null, null));
    }
}
