package io.conduit.handler.codec;

import java.util.Objects;

import io.conduit.channel.ChannelHandler;

/**
 * What the message codecs share: the type of message they handle (others pass through) and the message of the
 * exception that wraps a failure.
 *
 * @param <I> the type of message handled
 */
abstract class TypedHandler<I> implements ChannelHandler {

    private final Class<? extends I> messageType;

    TypedHandler(Class<? extends I> messageType) {
        this.messageType = Objects.requireNonNull(messageType, "messageType");
    }

    /** @return {@code true} when {@code msg} is an instance of the handled type */
    final boolean isHandled(Object msg) {
        return messageType.isInstance(msg);
    }

    /** @return "{@code Class.operation(MessageClass) failed: cause}" */
    final String failed(String operation, Object msg, Throwable cause) {
        return getClass().getName() + "." + operation + "(" + msg.getClass().getName() + ") failed: " + cause;
    }
}
