package io.anteroom.door;

import io.anteroom.door.config.GatewayConfig.Account;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.InvitationKey;
import io.anteroom.door.proof.Accounts;
import io.anteroom.door.ticket.AccountCookie;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.room.AccountPlaces;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a room that knows its users' accounts ({@code account}) needs on the request path: the
 * verifier of the application's assertions, the cookie that binds a ticket to its account, and this
 * gateway's own memory of the accounts' places (the places the coordinator answered, read while it
 * cannot answer; the room's memory where there is no shared coordination).
 */
final class RoomAccounts {
  private static final Logger LOG = LoggerFactory.getLogger(RoomAccounts.class);

  /** Places remembered per room on one gateway. */
  static final int LOCAL_PLACES = 1 << 16;

  /** Keys of a {@code jwksUrl} are fetched with these bounds (milliseconds, bytes). */
  private static final int FETCH_TIMEOUT_MILLIS = 2_000;

  private static final int FETCH_LIMIT_BYTES = 256 * 1024;

  final Account settings;
  final Accounts accounts;
  final AccountCookie cookie;
  final AccountPlaces local;

  private RoomAccounts(
      Account settings, Accounts accounts, AccountCookie cookie, AccountPlaces local) {
    this.settings = settings;
    this.accounts = accounts;
    this.cookie = cookie;
    this.local = local;
  }

  /**
   * The room's accounts, or null when it does not know them; keeps the previous verifier while the
   * settings are the same (its fetched keys) and the previous memory of places.
   *
   * @throws IllegalArgumentException when a key file cannot be read (any more)
   */
  static RoomAccounts of(RoomSettings s, TicketCodec codec, RoomAccounts previous) {
    Account a = s.protection().account();
    if (!a.enabled()) {
      return null;
    }
    Accounts accounts =
        previous != null && previous.settings.equals(a) ? previous.accounts : verifier(s.id(), a);
    return new RoomAccounts(
        a,
        accounts,
        new AccountCookie(
            s.id(),
            s.generation(),
            s.cookie().cookieSuffix(),
            s.cookie().cookieSecure(),
            s.cookie().cookieSameSite(),
            codec),
        previous != null ? previous.local : new AccountPlaces(LOCAL_PLACES));
  }

  private static Accounts verifier(String roomId, Account a) {
    long skew = a.clockSkewSeconds() * 1000L;
    if (a.hs256SecretFile().isPresent()) {
      return Accounts.hs256(InvitationKey.read(a.hs256SecretFile().get(), "an identity key"), skew);
    }
    var oidc = a.oidc().orElseThrow();
    if (oidc.jwksFile().isPresent()) {
      try {
        return Accounts.oidc(
            oidc.issuer(),
            oidc.audience(),
            com.nimbusds.jose.jwk.JWKSet.load(oidc.jwksFile().get().toFile()),
            null,
            skew);
      } catch (java.io.IOException | java.text.ParseException e) {
        throw new IllegalArgumentException(
            "room " + roomId + ": account.oidc.jwksFile: " + e.getMessage(), e);
      }
    }
    URI url = oidc.jwksUrl().orElseThrow();
    java.util.function.Supplier<com.nimbusds.jose.jwk.JWKSet> fetch =
        () -> {
          try {
            return com.nimbusds.jose.jwk.JWKSet.load(
                url.toURL(), FETCH_TIMEOUT_MILLIS, FETCH_TIMEOUT_MILLIS, FETCH_LIMIT_BYTES);
          } catch (java.io.IOException | java.text.ParseException e) {
            throw new IllegalStateException(url + ": " + e.getMessage(), e);
          }
        };
    com.nimbusds.jose.jwk.JWKSet first = null;
    try {
      first = fetch.get();
    } catch (RuntimeException e) {
      LOG.warn(
          "room {}: the identity provider's keys could not be fetched ({}); ID tokens are refused"
              + " as unknownKey until a fetch works (tried again at most once a minute)",
          roomId,
          e.getMessage());
    }
    return Accounts.oidc(oidc.issuer(), oidc.audience(), first, fetch, skew);
  }
}
