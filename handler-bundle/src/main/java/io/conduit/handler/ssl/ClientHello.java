package io.conduit.handler.ssl;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Finds the server name (SNI, RFC 6066 section 3) in the first TLS record a client sends, without consuming it: the
 * {@link javax.net.ssl.SSLEngine} reads the same bytes afterwards, or a router forwards them untouched. Only what is
 * needed to choose a context or a route is read; whatever is not a ClientHello with a host name yields "no name", and
 * the engine then judges the bytes itself. Stateless and thread-safe.
 */
public final class ClientHello {

    /** {@link #serverName} needs more bytes; compare by identity. */
    public static final String NEED_MORE = new String("need more");

    /** The most bytes {@link #serverName} looks at: a record header and the longest record body it can announce. */
    public static final int MAX_RECORD_BYTES = 5 + 0xffff;

    private static final int RECORD_HEADER = 5;
    private static final int HANDSHAKE = 22;
    private static final int CLIENT_HELLO = 1;
    private static final int SERVER_NAME_EXTENSION = 0;
    private static final int HOST_NAME = 0;

    private ClientHello() {
    }

    /**
     * @param in the bytes received so far, from its position to its limit (not changed)
     * @return the host name in lower case; null when the client sent none or the bytes are not a ClientHello (the
     *         engine decides); {@link #NEED_MORE} (compare by identity) when the first record is not complete yet
     */
    public static String serverName(ByteBuffer in) {
        int base = in.position();
        int available = in.remaining();
        if (available < RECORD_HEADER) {
            return NEED_MORE;
        }
        if ((in.get(base) & 0xff) != HANDSHAKE || in.get(base + 1) != 3) {
            return null;
        }
        int recordLength = in.getShort(base + 3) & 0xffff;
        if (available < RECORD_HEADER + recordLength) {
            return NEED_MORE;
        }
        int end = base + RECORD_HEADER + recordLength;
        int p = base + RECORD_HEADER;
        if (recordLength < 4 || (in.get(p) & 0xff) != CLIENT_HELLO) {
            return null;
        }
        p += 4 + 2 + 32;                                          // handshake header, client_version, random
        p = skip(in, p, end, 1);                                  // session_id
        p = skip(in, p, end, 2);                                  // cipher_suites
        p = skip(in, p, end, 1);                                  // compression_methods
        if (p < 0 || p + 2 > end) {
            return null;
        }
        int extensionsEnd = Math.min(end, p + 2 + (in.getShort(p) & 0xffff));
        p += 2;
        while (p + 4 <= extensionsEnd) {
            int type = in.getShort(p) & 0xffff;
            int length = in.getShort(p + 2) & 0xffff;
            p += 4;
            if (p + length > extensionsEnd) {
                return null;
            }
            if (type == SERVER_NAME_EXTENSION) {
                int q = p + 2;                                    // server_name_list length
                int listEnd = p + length;
                while (q + 3 <= listEnd) {
                    int nameType = in.get(q) & 0xff;
                    int nameLength = in.getShort(q + 1) & 0xffff;
                    q += 3;
                    if (q + nameLength > listEnd) {
                        return null;
                    }
                    if (nameType == HOST_NAME) {
                        byte[] name = new byte[nameLength];
                        in.get(q, name);
                        return new String(name, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
                    }
                    q += nameLength;
                }
                return null;
            }
            p += length;
        }
        return null;
    }

    /** Skips a vector with a {@code lengthBytes}-byte length at {@code p}; -1 when it does not fit before end. */
    private static int skip(ByteBuffer in, int p, int end, int lengthBytes) {
        if (p < 0 || p + lengthBytes > end) {
            return -1;
        }
        int length = lengthBytes == 1 ? in.get(p) & 0xff : in.getShort(p) & 0xffff;
        int next = p + lengthBytes + length;
        return next > end ? -1 : next;
    }
}
