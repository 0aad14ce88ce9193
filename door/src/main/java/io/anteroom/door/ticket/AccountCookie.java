package io.anteroom.door.ticket;

import io.anteroom.door.config.CookieSameSite;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * Which account a ticket belongs to, in a room that knows its users' accounts: a second cookie
 * ({@code __anteroom_<room><suffix>.account}: a dot, which no room id or suffix has) holding the
 * ticket's id and the account's place key ({@code Accounts.placeKey}), sealed like a ticket
 * (AES-GCM under the deployment's ticket keys, for the room id with a {@code #account} suffix,
 * which no room id has, so neither cookie opens as the other). The door lets a ticket stand for an
 * account only while this cookie names both; anything else (no cookie, another ticket, another
 * account: a cookie copied from another account's browser) makes the door ask the coordinator for
 * the account's own place.
 *
 * <p>Thread-safe.
 */
public final class AccountCookie {
  private static final int KEY_BYTES = 12;

  private final String name;
  private final TicketCodec codec;
  private final TicketCodec.Scope scope;
  private final String attributes;

  public AccountCookie(
      String roomId,
      long generation,
      String cookieSuffix,
      boolean secure,
      CookieSameSite sameSite,
      TicketCodec codec) {
    this.name = "__anteroom_" + roomId + cookieSuffix + ".account";
    this.codec = codec;
    this.scope = codec.scope(roomId + "#account", generation);
    String set = TicketCookie.setCookie(name, "x", secure, sameSite);
    this.attributes = set.substring(set.indexOf(';'));
  }

  /** The cookie's name. */
  public String name() {
    return name;
  }

  /** The {@code Set-Cookie} value binding ticket {@code ticketId} to place key {@code placeKey}. */
  public String set(long ticketId, String placeKey) {
    byte[] key = Base64.getUrlDecoder().decode(placeKey);
    byte[] payload =
        ByteBuffer.allocate(Long.BYTES + key.length).putLong(ticketId).put(key).array();
    return name + '=' + codec.seal(scope, payload) + attributes;
  }

  /**
   * Whether cookie value {@code value} (null: none) binds ticket {@code ticketId} to {@code
   * placeKey}.
   */
  public boolean binds(String value, long ticketId, String placeKey) {
    if (value == null) {
      return false;
    }
    byte[] payload = codec.open(scope, value).orElse(null);
    if (payload == null || payload.length != Long.BYTES + KEY_BYTES) {
      return false;
    }
    byte[] key = Base64.getUrlDecoder().decode(placeKey.getBytes(StandardCharsets.US_ASCII));
    return ByteBuffer.wrap(payload).getLong() == ticketId
        && Arrays.equals(payload, Long.BYTES, payload.length, key, 0, key.length);
  }
}
