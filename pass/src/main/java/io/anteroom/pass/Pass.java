package io.anteroom.pass;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A verified pass: the door admitted this request's user to {@code room}.
 *
 * @param room the room that admitted the user
 * @param event the room's event when the user was admitted, if it had one
 * @param passId the admitted user's pass id: the same on every request of one admission, at every
 *     gateway; use it to allow one order per pass
 * @param admittedAt when the user was admitted (whole seconds)
 * @param expiresAt when this pass expires (whole seconds; the next request carries a newer one)
 * @param account the account the application asserted for the user, in a room that knows its users'
 *     accounts ({@code account} room setting): one place per account, so use it to allow one order
 *     per account (and check it is the account of the user checking out)
 */
public record Pass(
    String room,
    Optional<String> event,
    String passId,
    Instant admittedAt,
    Instant expiresAt,
    Optional<String> account) {

  /** A pass that names no account. */
  public Pass(
      String room, Optional<String> event, String passId, Instant admittedAt, Instant expiresAt) {
    this(room, event, passId, admittedAt, expiresAt, Optional.empty());
  }

  public Pass {
    Objects.requireNonNull(account, "account");
    Objects.requireNonNull(room, "room");
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(passId, "passId");
    Objects.requireNonNull(admittedAt, "admittedAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}
