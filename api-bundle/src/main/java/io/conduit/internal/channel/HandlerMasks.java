package io.conduit.internal.channel;

import java.lang.reflect.Method;
import java.net.SocketAddress;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;

/**
 * Which event methods a handler class overrides, as a bit mask computed once per class.
 *
 * <p>A pipeline skips a loop-bound handler for an event whose method the handler's class does not override
 * (the default would only forward it), so a pipeline of mostly-default handlers costs little per event.
 * Results are cached with a {@link ClassValue}: the value is stored with the handler's {@link Class} and goes
 * away with it, so the cache never pins a bundle's class loader.
 */
final class HandlerMasks {

    static final int REGISTERED = 1;
    static final int UNREGISTERED = 1 << 1;
    static final int ACTIVE = 1 << 2;
    static final int INACTIVE = 1 << 3;
    static final int EXCEPTION_CAUGHT = 1 << 4;
    static final int USER_EVENT = 1 << 5;
    static final int CHANNEL_READ = 1 << 6;
    static final int READ_COMPLETE = 1 << 7;
    static final int WRITABILITY_CHANGED = 1 << 8;
    static final int BIND = 1 << 9;
    static final int CONNECT = 1 << 10;
    static final int DISCONNECT = 1 << 11;
    static final int CLOSE = 1 << 12;
    static final int READ = 1 << 13;
    static final int WRITE = 1 << 14;
    static final int FLUSH = 1 << 15;

    static final int ALL_INBOUND = REGISTERED | UNREGISTERED | ACTIVE | INACTIVE | EXCEPTION_CAUGHT | USER_EVENT
            | CHANNEL_READ | READ_COMPLETE | WRITABILITY_CHANGED;
    static final int ALL_OUTBOUND = BIND | CONNECT | DISCONNECT | CLOSE | READ | WRITE | FLUSH;
    static final int ALL = ALL_INBOUND | ALL_OUTBOUND;

    private static final Class<?> CTX = ChannelHandlerContext.class;

    private static final ClassValue<Integer> MASKS = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            return compute(type);
        }
    };

    private HandlerMasks() {
    }

    /** @return the mask of {@code handlerType}; computed on first use, then cached with the class */
    static int mask(Class<?> handlerType) {
        return MASKS.get(handlerType);
    }

    private static int compute(Class<?> t) {
        int mask = 0;
        mask |= overridden(t, REGISTERED, "channelRegistered", CTX);
        mask |= overridden(t, UNREGISTERED, "channelUnregistered", CTX);
        mask |= overridden(t, ACTIVE, "channelActive", CTX);
        mask |= overridden(t, INACTIVE, "channelInactive", CTX);
        mask |= overridden(t, EXCEPTION_CAUGHT, "exceptionCaught", CTX, Throwable.class);
        mask |= overridden(t, USER_EVENT, "userEventTriggered", CTX, Object.class);
        mask |= overridden(t, CHANNEL_READ, "channelRead", CTX, Object.class);
        mask |= overridden(t, READ_COMPLETE, "channelReadComplete", CTX);
        mask |= overridden(t, WRITABILITY_CHANGED, "channelWritabilityChanged", CTX);
        mask |= overridden(t, BIND, "bind", CTX, SocketAddress.class, Promise.class);
        mask |= overridden(t, CONNECT, "connect", CTX, SocketAddress.class, SocketAddress.class, Promise.class);
        mask |= overridden(t, DISCONNECT, "disconnect", CTX, Promise.class);
        mask |= overridden(t, CLOSE, "close", CTX, Promise.class);
        mask |= overridden(t, READ, "read", CTX);
        mask |= overridden(t, WRITE, "write", CTX, Object.class, Promise.class);
        mask |= overridden(t, FLUSH, "flush", CTX);
        return mask;
    }

    /** @return {@code bit} unless the most specific public method is the forwarding default of ChannelHandler */
    private static int overridden(Class<?> type, int bit, String name, Class<?>... params) {
        try {
            Method m = type.getMethod(name, params);
            return m.getDeclaringClass() == ChannelHandler.class ? 0 : bit;
        } catch (NoSuchMethodException | SecurityException | LinkageError e) {
            return bit; // cannot tell: never skip
        }
    }
}
