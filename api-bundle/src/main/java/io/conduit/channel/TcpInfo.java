package io.conduit.channel;

/**
 * What the kernel knows about one TCP connection, as Linux's {@code getsockopt(TCP_INFO)} reports it
 * ({@code tcp(7)}, {@code struct tcp_info} in {@code linux/tcp.h}). Names follow the kernel's fields without their
 * {@code tcpi_} prefix. A snapshot: each call of {@link SocketChannel#tcpInfo()} reads it anew.
 *
 * @param state        the TCP state as the kernel numbers it ({@code 1} = ESTABLISHED, see {@link #stateName()})
 * @param caState      the congestion-avoidance state ({@code 0} Open, {@code 1} Disorder, {@code 2} CWR,
 *                     {@code 3} Recovery, {@code 4} Loss)
 * @param retransmits  consecutive retransmissions of the current segment without an acknowledgement
 * @param rto          the retransmission timeout, in microseconds
 * @param sndMss       the maximum segment size sent, in bytes
 * @param rcvMss       the maximum segment size received (an estimate), in bytes
 * @param unacked      segments sent and not yet acknowledged
 * @param lost         segments the kernel considers lost
 * @param retrans      segments retransmitted and not yet acknowledged
 * @param pmtu         the path MTU, in bytes
 * @param rtt          the smoothed round-trip time, in microseconds
 * @param rttvar       the round-trip time's mean deviation, in microseconds
 * @param sndSsthresh  the slow-start threshold, in segments
 * @param sndCwnd      the congestion window, in segments
 * @param totalRetrans segments retransmitted over the connection's life
 * @since 0.5
 */
public record TcpInfo(int state, int caState, int retransmits, long rto, long sndMss, long rcvMss, long unacked,
        long lost, long retrans, long pmtu, long rtt, long rttvar, long sndSsthresh, long sndCwnd, long totalRetrans) {

    private static final String[] STATES = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
        "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV"};

    /** @return the state's name as {@code ss(8)} and {@code linux/tcp_states.h} spell it, e.g. {@code ESTABLISHED} */
    public String stateName() {
        return state > 0 && state < STATES.length ? STATES[state] : "state " + state;
    }

    /**
     * @return one line for an operator, e.g. {@code "ESTABLISHED rtt 0.052/0.021 ms rto 201 ms cwnd 10 ssthresh
     *         2147483647 unacked 0 lost 0 retrans 0/3 mss 32768 pmtu 65535"}
     */
    @Override
    public String toString() {
        return stateName() + " rtt " + millis(rtt) + "/" + millis(rttvar) + " ms rto " + rto / 1000 + " ms cwnd "
                + sndCwnd + " ssthresh " + sndSsthresh + " unacked " + unacked + " lost " + lost + " retrans "
                + retrans + "/" + totalRetrans + " mss " + sndMss + " pmtu " + pmtu;
    }

    private static String millis(long micros) {
        return String.format(java.util.Locale.ROOT, "%.3f", micros / 1000.0);
    }
}
