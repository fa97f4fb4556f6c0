package io.conduit.epoll;

import io.conduit.transport.spi.unix.NativeMemory;

/**
 * The array {@code epoll_wait(2)} fills: {@code capacity} times
 * <pre>
 * struct epoll_event { uint32_t events; epoll_data_t data; } __EPOLL_PACKED;   // 12 bytes on x86_64, 16 on aarch64
 * </pre>
 * with size and offsets from {@link Native#EPOLL_EVENT_SIZE}, {@link Native#EPOLL_EVENT_EVENTS_OFFSET} and
 * {@link Native#EPOLL_EVENT_DATA_OFFSET} (data is unaligned on x86_64; the buffer accessors handle that).
 *
 * <p>Not thread-safe: owned by the event loop that calls {@code epoll_wait}.
 */
final class EpollEventArray {
    /** number of events the array holds */
    private final int capacity;
    private final NativeMemory memory;

    /** @param capacity events, &gt; 0 */
    EpollEventArray(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("epoll event array capacity " + capacity + " must be > 0");
        }
        this.capacity = capacity;
        this.memory = NativeMemory.allocate(capacity * NativeAbi.EPOLL_EVENT_SIZE, Native::addressOf);
    }

    /** @return the address to pass to {@link Native#epollWait} */
    long address() {
        return memory.address();
    }

    int capacity() {
        return capacity;
    }

    /** @return the {@code events} mask of entry {@code index} */
    int events(int index) {
        return memory.buffer().getInt(index * NativeAbi.EPOLL_EVENT_SIZE + NativeAbi.EPOLL_EVENT_EVENTS_OFFSET);
    }

    /** @return the {@code data.u64} of entry {@code index}, as given to {@link Native#epollCtl} */
    long data(int index) {
        return memory.buffer().getLong(index * NativeAbi.EPOLL_EVENT_SIZE + NativeAbi.EPOLL_EVENT_DATA_OFFSET);
    }
}
