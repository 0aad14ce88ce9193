package io.anteroom.door;

import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.route.ClientAddress;
import io.anteroom.door.route.RuleMatcher;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.room.Ticket;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One request on its way through a room's stages: its facts, its normalised target, the time it is
 * judged at, and what the stages learnt (the ticket, opened once; cookies to add). Also the view
 * rules read ({@link RuleMatcher.Request}). Belongs to one request; a stage that continues later
 * does so through {@link #resume}, on the request's own thread where its server has one.
 */
final class Visit implements RuleMatcher.Request {
  final RequestFacts facts;
  final RequestTarget target;
  final RoomRuntime room;
  final long now;
  final Executor resume;
  private final ClientAddress clients;

  /** The request's ticket, opened once ({@code OpenTicket}); null: a new user. */
  Ticket ticket;

  /** The cookie held an older layout: seal the ticket again. */
  boolean reseal;

  /** A {@code challenge} rule matched: the room's check applies to a new identity. */
  boolean challenge;

  /** The request's invitation, checked but not yet used ({@code Stages}); null: none needed. */
  io.anteroom.door.proof.Invitations.Valid invitation;

  /** The account the application asserted for this request ({@code account}), or null. */
  String account;

  /** The account's place key ({@link io.anteroom.door.proof.Accounts#placeKey}). */
  String placeKey;

  /** The ticket id this request knows as the account's place (0: none yet). */
  long placeId;

  /** The account's place that is over, which a new place replaces (0: none). */
  long replacesId;

  /** {@code Set-Cookie} values every answer to this request carries. */
  List<String> setCookies = List.of();

  private Boolean newIdentity;

  private String client;
  private boolean clientKnown;

  /** Signs the pass of an admitted user's request ({@link Answers}). */
  final io.anteroom.pass.PassIssuer passes;

  Visit(
      RequestFacts facts,
      RequestTarget target,
      RoomRuntime room,
      long now,
      Executor resume,
      ClientAddress clients,
      io.anteroom.pass.PassIssuer passes) {
    this.facts = facts;
    this.target = target;
    this.room = room;
    this.now = now;
    this.resume = resume;
    this.clients = clients;
    this.passes = passes;
  }

  @Override
  public String path() {
    return target.path();
  }

  /** The first value of header {@code name}, or null. */
  public String header(String name) {
    return facts.header(name);
  }

  @Override
  public String method() {
    return facts.method();
  }

  @Override
  public String query() {
    return target.query();
  }

  @Override
  public List<String> headers(String name) {
    return facts.headers(name);
  }

  @Override
  public long nowMillis() {
    return now;
  }

  /**
   * The value of cookie {@code name} (the first one if it occurs twice), or null: reads only the
   * first {@code Cookie} header unless the cookie is not in it.
   */
  @Override
  public String cookie(String name) {
    return cookie(facts, name);
  }

  /** The value of cookie {@code name} in the request's {@code Cookie} headers, or null. */
  static String cookie(RequestFacts facts, String name) {
    String first = facts.header("Cookie");
    if (first == null) {
      return null;
    }
    String found = TicketCookie.scan(first, name);
    if (found != null) {
      return found;
    }
    List<String> all = facts.headers("Cookie");
    return all.size() < 2 ? null : TicketCookie.scan(all.subList(1, all.size()), name);
  }

  /**
   * Whether the room would give this request a new identity: no ticket, or one the room no longer
   * honours ({@link io.anteroom.door.admission.RoomGate#startsOver}); asked once, after the ticket
   * is opened.
   */
  boolean newIdentity() {
    if (newIdentity == null) {
      newIdentity = ticket == null || room.gate().startsOver(ticket, now);
    }
    return newIdentity;
  }

  /**
   * The visit's ticket replaced (the account's own place, or none): asks {@link #newIdentity}
   * again.
   */
  void replaceTicket(Ticket replacement) {
    ticket = replacement;
    newIdentity = null;
  }

  /** The client's address (trusted proxies applied), resolved once. */
  @Override
  public String clientIp() {
    if (!clientKnown) {
      client = clients.of(facts.peerAddress(), () -> facts.headers("X-Forwarded-For"));
      clientKnown = true;
    }
    return client;
  }
}
