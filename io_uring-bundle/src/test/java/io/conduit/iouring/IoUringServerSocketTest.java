package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link IoUringServerSocket#acceptQueued()}, which the core calls before it closes a listener whose connections
 * are kept: every connection the kernel completed is handed over, whether its accept completion waits in the CQ
 * unreaped or no accept request was armed at all, so the close resets none of them.
 */
@Timeout(60)
class IoUringServerSocketTest {

    private static final int CLIENTS = 3;

    /** Events that nobody handles: the test calls the socket itself. */
    private static final IoEvents IGNORED = new IoEvents() {
        @Override
        public void readReady() {
        }

        @Override
        public void writeReady() {
        }

        @Override
        public void connectReady() {
        }

        @Override
        public void loopShuttingDown() {
        }
    };

    private static <T> T onLoop(EventLoop loop, Callable<T> task) throws Exception {
        return loop.submit(task).get(20, TimeUnit.SECONDS);
    }

    /**
     * Runs a listener on one loop: {@code accepting} sets the core's read interest (a multishot accept is armed);
     * then the loop is held while {@link #CLIENTS} clients connect, and in that same task
     * {@link IoUringServerSocket#acceptQueued()} is asked until it answers nothing.
     *
     * @return what it handed over
     */
    private static int takenBeforeClose(boolean accepting) throws Exception {
        try (EventLoopGroup g = IoUringPermutations.IO_URING.transport().newEventLoopGroup(1)) {
            EventLoop loop = g.next();
            IoUringServerSocket listener = IoUringServerSocket.open(false);
            List<Socket> clients = new ArrayList<>();
            try {
                InetSocketAddress address = onLoop(loop, () -> {
                    listener.register(loop, IGNORED);
                    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
                    listener.interestOps(accepting ? IoSocket.OP_READ : 0);
                    return (InetSocketAddress) listener.localAddress();
                });
                onLoop(loop, () -> null); // one loop turn: an armed accept is submitted
                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch connected = new CountDownLatch(1);
                var taken = loop.submit(() -> {
                    held.countDown();
                    assertTrue(connected.await(20, TimeUnit.SECONDS), "the clients connected");
                    List<IoStreamSocket> sockets = new ArrayList<>();
                    for (IoStreamSocket s; (s = listener.acceptQueued()) != null; ) {
                        sockets.add(s);
                    }
                    assertNull(listener.acceptQueued(), "nothing more once it answered nothing");
                    for (IoStreamSocket s : sockets) {
                        assertTrue(s.isConnected(), "an accepted socket is connected");
                        s.close();
                    }
                    return sockets.size();
                });
                assertTrue(held.await(20, TimeUnit.SECONDS), "the loop is held");
                for (int i = 0; i < CLIENTS; i++) {
                    Socket s = new Socket();
                    clients.add(s);
                    s.connect(address, 5_000); // the kernel completes the handshake; the loop is held
                }
                connected.countDown();
                return taken.get(20, TimeUnit.SECONDS);
            } finally {
                onLoop(loop, () -> {
                    listener.deregister(null);
                    listener.close();
                    return null;
                });
                for (Socket s : clients) {
                    s.close();
                }
            }
        }
    }

    @Test
    void withoutAnAcceptArmedItTakesWhatTheKernelQueued() throws Exception {
        assertEquals(CLIENTS, takenBeforeClose(false));
    }

    @Test
    void withAMultishotAcceptArmedItTakesTheCompletionsTheLoopHasNotReaped() throws Exception {
        assertEquals(CLIENTS, takenBeforeClose(true));
    }
}
