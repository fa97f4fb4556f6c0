package io.conduit.handler.timeout;

import java.util.Objects;

/**
 * User event fired by {@link IdleStateHandler}: {@link #state()} says which side was idle, {@link #isFirst()}
 * whether it is the first such event since the channel was last active on that side. Immutable.
 */
public final class IdleStateEvent {

    public static final IdleStateEvent FIRST_READER_IDLE = new IdleStateEvent(IdleState.READER_IDLE, true);
    public static final IdleStateEvent READER_IDLE = new IdleStateEvent(IdleState.READER_IDLE, false);
    public static final IdleStateEvent FIRST_WRITER_IDLE = new IdleStateEvent(IdleState.WRITER_IDLE, true);
    public static final IdleStateEvent WRITER_IDLE = new IdleStateEvent(IdleState.WRITER_IDLE, false);
    public static final IdleStateEvent FIRST_ALL_IDLE = new IdleStateEvent(IdleState.ALL_IDLE, true);
    public static final IdleStateEvent ALL_IDLE = new IdleStateEvent(IdleState.ALL_IDLE, false);

    private final IdleState state;
    private final boolean first;

    private IdleStateEvent(IdleState state, boolean first) {
        this.state = Objects.requireNonNull(state);
        this.first = first;
    }

    /** @return the shared event for {@code state} and {@code first} */
    public static IdleStateEvent of(IdleState state, boolean first) {
        return switch (state) {
            case READER_IDLE -> first ? FIRST_READER_IDLE : READER_IDLE;
            case WRITER_IDLE -> first ? FIRST_WRITER_IDLE : WRITER_IDLE;
            case ALL_IDLE -> first ? FIRST_ALL_IDLE : ALL_IDLE;
        };
    }

    public IdleState state() {
        return state;
    }

    public boolean isFirst() {
        return first;
    }

    @Override
    public String toString() {
        return "IdleStateEvent(" + state + (first ? ", first" : "") + ")";
    }
}
