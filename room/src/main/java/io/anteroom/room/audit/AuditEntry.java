package io.anteroom.room.audit;

/**
 * One change made through the admin API.
 *
 * @param seq the entry's number in the deployment's log (1, 2, ...; 0 before it is appended)
 * @param atMillis when the change was made (epoch milliseconds, the gateway's clock)
 * @param token the name of the admin token that made it
 * @param action what was done: the endpoint, e.g. {@code PUT /api/rooms/:id/queueAll}
 * @param room the room changed
 * @param client the address the request came from (as the gateway computes it behind its trusted
 *     proxies), or null when unknown
 * @param before the changed settings before, as JSON ({@code null} text: the room did not exist)
 * @param after the changed settings after, as JSON ({@code null} text: the room was deleted)
 */
public record AuditEntry(
    long seq,
    long atMillis,
    String token,
    String action,
    String room,
    String client,
    String before,
    String after) {

  /** This entry numbered {@code n}. */
  public AuditEntry withSeq(long n) {
    return new AuditEntry(n, atMillis, token, action, room, client, before, after);
  }
}
