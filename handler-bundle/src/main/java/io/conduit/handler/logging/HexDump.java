package io.conduit.handler.logging;

import io.conduit.buffer.Buffer;

/**
 * Formats bytes as a hex dump: 16 bytes per line, each line an 8-digit hex offset, the bytes in hex (a wider gap
 * after the eighth), and the bytes as ASCII ({@code .} for what is not printable). Lines end with
 * {@link System#lineSeparator()}, except the last.
 */
public final class HexDump {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private HexDump() {
    }

    /**
     * Dumps {@code length} bytes at {@code index} of {@code buffer} without moving its indexes.
     *
     * @throws IndexOutOfBoundsException when the range is outside the buffer
     */
    public static String dump(Buffer buffer, int index, int length) {
        StringBuilder sb = new StringBuilder(length / 16 * 80 + 80);
        for (int line = 0; line < length; line += 16) {
            if (line > 0) {
                sb.append(System.lineSeparator());
            }
            for (int shift = 28; shift >= 0; shift -= 4) {
                sb.append(HEX[(line >>> shift) & 0xF]);
            }
            sb.append("  ");
            int n = Math.min(16, length - line);
            for (int i = 0; i < 16; i++) {
                if (i < n) {
                    int b = buffer.getByte(index + line + i) & 0xFF;
                    sb.append(HEX[b >>> 4]).append(HEX[b & 0xF]).append(' ');
                } else {
                    sb.append("   ");
                }
                if (i == 7) {
                    sb.append(' ');
                }
            }
            sb.append(" |");
            for (int i = 0; i < n; i++) {
                int b = buffer.getByte(index + line + i) & 0xFF;
                sb.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
            }
            sb.append('|');
        }
        return sb.toString();
    }
}
