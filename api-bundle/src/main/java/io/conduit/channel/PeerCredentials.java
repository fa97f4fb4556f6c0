package io.conduit.channel;

/**
 * Identity of the process at the other end of a Unix-domain socket, as {@code SO_PEERCRED} reports it
 * ({@code struct ucred} in {@code unix(7)}).
 *
 * @param pid process id of the peer, or {@code -1} when the platform does not report it
 * @param uid effective user id
 * @param gid effective group id
 */
public record PeerCredentials(int pid, int uid, int gid) {
}
