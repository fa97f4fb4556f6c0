package io.conduit.testsuite;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/** A plain JDK socket client (not Conduit) for tests that count what an echo server read and wrote. */
public final class SocketRoundTrip {

    private SocketRoundTrip() {
    }

    /**
     * Connects to {@code echo}, writes {@code data}, reads as many bytes back and closes the socket.
     *
     * @return the bytes read back
     * @throws IOException when the connection fails or ends before every byte came back
     */
    public static byte[] echo(InetSocketAddress echo, byte[] data) throws IOException {
        try (Socket s = new Socket(echo.getAddress(), echo.getPort())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(data);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] back = in.readNBytes(data.length);
            if (back.length != data.length) {
                throw new IOException("the echo ended after " + back.length + " of " + data.length + " bytes");
            }
            return back;
        }
    }
}
