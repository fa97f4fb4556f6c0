/**
 * Conduit epoll transport (Linux): JNI facade over epoll, eventfd, timerfd and socket system calls. The
 * implementation package is not exported; the native library comes from an arch-named fragment
 * ({@code io.conduit.epoll.linux.<arch>}) or is extracted from {@code META-INF/native/} on the class/module path.
 */
module io.conduit.epoll {
    requires io.conduit.api;
}
