package io.conduit.testsuite;

import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;

import java.util.function.Consumer;

/**
 * One sequence of transport swaps for load tests, run on the calling thread: the preference flips epoll → nio →
 * epoll → nio → epoll (selection changes), moves to a second epoll instance (a {@link RenamedTransport} registered by
 * the caller as {@code secondEpoll}), whose provider is then unregistered while in use (the transport goes away:
 * nio is selected), and returns to epoll. Before each step {@code mark} is told what the step is (e.g.
 * {@link UdpEchoLoad#mark}).
 */
public final class EpollNioSwaps {

    private EpollNioSwaps() {
    }

    /**
     * @param secondEpoll a registered provider of a second epoll instance; unregistered by the sequence
     * @param pauseMillis time before each step and after the last one
     * @param mark        told each step's label just before the step
     */
    public static void run(TransportProvider secondEpoll, long pauseMillis, Consumer<String> mark)
            throws InterruptedException {
        run("epoll", secondEpoll, pauseMillis, mark);
    }

    /**
     * The same sequence with the transport named {@code first} in the place of epoll (e.g. {@code kqueue}).
     *
     * @param second a registered provider of a second instance of {@code first}; unregistered by the sequence
     */
    public static void run(String first, TransportProvider second, long pauseMillis, Consumer<String> mark)
            throws InterruptedException {
        String b = second.name();
        String[][] plan = {
            {"nio", "selection " + first + " -> nio"}, {first, "selection nio -> " + first},
            {"nio", "selection " + first + " -> nio"}, {first, "selection nio -> " + first},
            {b + ",nio", "selection " + first + " -> " + b}, {null, b + " goes away -> nio"},
            {first, "selection nio -> " + first},
        };
        for (String[] step : plan) {
            Thread.sleep(pauseMillis);
            mark.accept(step[1]);
            if (step[0] == null) {
                Transports.unregister(second);
            } else {
                Transports.setPreference(step[0]);
            }
        }
        Thread.sleep(pauseMillis);
    }
}
