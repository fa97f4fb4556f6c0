package io.conduit.handler.codec;

/** Argument checks shared by the frame decoders. */
final class FrameChecks {
    private FrameChecks() {
    }

    static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0: " + value);
        }
    }
}
