package io.anteroom.door;

import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.admission.RoomGate.Outcome;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.door.config.GatewayConfig.HumanCheck;
import io.anteroom.door.config.GatewayConfig.HumanFailure;
import io.anteroom.door.config.GatewayConfig.HumanUnavailable;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.RuleAction;
import io.anteroom.door.match.Cidr;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.queue.ChallengeResponder;
import io.anteroom.door.queue.HumanCheckResponder;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.room.AccountPlaces;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stages of a room's door, in their fixed order, and the one place that chains them ({@link
 * #chain}): a suspended room skips everything; the room's rules (only when it has any: bypass,
 * block, challenge, queue); the ticket, opened once; the account (only when the room knows its
 * users' accounts): the account's own place; the invitation (only when the room or one of its
 * events requires them), checked; the room's check: the human check when it is on, else the proof
 * of work (only when the room, one of its events or a {@code challenge} rule turns it on); the
 * limit per address; the invitation, used; admission, whose verdict {@link Answers} turns into the
 * answer.
 */
final class Stages {
  private static final Logger LOG = LoggerFactory.getLogger(Door.class);

  private Stages() {}

  /** The first stage of {@code room}'s chain. */
  static Step chain(RoomRuntime room, Answers answers) {
    if (room.settings().switches().suspended()) {
      return v -> CompletableFuture.completedFuture(Answers.skip(v, "suspended"));
    }
    Step admission = new Admission(room.gate(), room.settings(), answers);
    Step claim = room.invitations() == null ? admission : new InvitationClaim(room, admission);
    Step limited = room.limit() == null ? claim : new AddressLimit(room, answers, claim);
    Step proof =
        room.human() != null
            ? new HumanCheckStage(room, answers, limited)
            : room.door() == null ? limited : new ProofOfWorkCheck(room, answers, limited);
    Step invited = room.invitations() == null ? proof : new InvitationCheck(room, proof);
    Step known = room.accounts() == null ? invited : new AccountPlace(room, answers, invited);
    Step open = new OpenTicket(room.cookie(), known);
    return room.rules().isEmpty() ? open : new Rules(room, answers, open);
  }

  /**
   * The first of the room's rules that matches decides: {@code bypass} skips the room, {@code
   * block} answers 403, {@code challenge} marks the visit for the room's check, {@code queue} (or
   * no match) goes on as usual.
   */
  private record Rules(RoomRuntime room, Answers answers, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      RuleAction action = room.rules().decide(v);
      if (action == null) {
        return next.enter(v);
      }
      return switch (action) {
        case BYPASS -> CompletableFuture.completedFuture(Answers.skip(v, "bypass"));
        case BLOCK -> CompletableFuture.completedFuture(answers.blocked(v));
        case CHALLENGE -> {
          v.challenge = true;
          yield next.enter(v);
        }
        case QUEUE -> next.enter(v);
      };
    }
  }

  /**
   * Opens the room's cookie into the visit's ticket, once for the whole request: from the first
   * {@code Cookie} header without copying it out (the common case), else as {@link Visit#cookie}
   * finds it in the others.
   */
  private record OpenTicket(TicketCookie cookie, Step next) implements Step {
    /** {@link TicketCookie#openIn}'s answer when the first header does not hold the cookie. */
    private static final TicketCookie.Opened ABSENT = new TicketCookie.Opened(null, false);

    @Override
    public CompletionStage<Answer> enter(Visit v) {
      String first = v.facts.header("Cookie");
      TicketCookie.Opened opened = first == null ? null : cookie.openIn(first, ABSENT, v.now);
      if (opened == ABSENT) {
        String value = v.cookie(cookie.name());
        opened = value == null ? null : cookie.openValue(value, v.now);
      }
      if (opened != null) {
        v.ticket = opened.ticket();
        v.reseal = opened.reseal();
      }
      return next.enter(v);
    }
  }

  /**
   * The proof-of-work check ({@link DoorCheck}) for every request the room would give a new
   * identity: no ticket, and also a ticket the room no longer honours (a revoked or ended session,
   * a copy of a waiting ticket let in before), since the room gives those a new ticket id too
   * ({@link RoomGate#startsOver}). A challenge or the endless queue is answered here; an answer
   * that holds at this door is then claimed at the room's coordinator (so it admits once in the
   * whole deployment), and the visit goes on to admission with the answer cookie cleared. A claim
   * refused as a replay gets a fresh challenge.
   */
  private static final class ProofOfWorkCheck implements Step {
    private final RoomRuntime room;
    private final Answers answers;
    private final Step next;
    private final String cookieName;
    private final String clearAnswer;

    ProofOfWorkCheck(RoomRuntime room, Answers answers, Step next) {
      this.room = room;
      this.answers = answers;
      this.next = next;
      RoomSettings s = room.settings();
      this.cookieName = ChallengeResponder.cookieName(s.id(), s.cookie().cookieSuffix());
      this.clearAnswer = cookieName + "=; Max-Age=0; Path=/; SameSite=Lax";
    }

    @Override
    public CompletionStage<Answer> enter(Visit v) {
      RoomSettings s = room.settings();
      // the check in force now: the room's, or the running event's (pre-queue included)
      ProofOfWork inForce =
          s.events().isEmpty()
              ? s.protection().proofOfWork()
              : s.at(Instant.ofEpochMilli(v.now)).protection().proofOfWork();
      if (!inForce.enabled() && !v.challenge || !v.newIdentity()) {
        return next.enter(v);
      }
      DoorCheck check =
          inForce.equals(room.door().settings())
              ? room.door()
              : room.door().withSettings(s.id(), s.generation(), inForce);
      String answer = v.facts.header(ChallengeResponder.ANSWER_HEADER);
      boolean fromCookie = false;
      if (answer == null) {
        answer = v.cookie(cookieName);
        fromCookie = answer != null;
      }
      String client = v.clientIp();
      String binding = client == null ? "" : client;
      int ttl = check.settings().challengeTtlSeconds();
      return switch (check.decide(answer, binding, v.now)) {
        case DoorCheck.Pass p -> {
          if (fromCookie) { // used once: a later request must not send it again
            v.setCookies = List.of(clearAnswer);
          }
          CompletableFuture<Boolean> claimed =
              room.gate().claimChallenge(p.nonce(), p.expiresAtMillis()).toCompletableFuture();
          if (claimed.isDone()) {
            yield afterClaim(
                v, check, binding, ttl, claimed.isCompletedExceptionally() || claimed.join());
          }
          // the room decides on the request's own thread, as for any other request
          yield claimed
              .handle((first, failure) -> failure != null || first)
              .thenComposeAsync(first -> afterClaim(v, check, binding, ttl, first), v.resume);
        }
        case DoorCheck.Challenge c ->
            CompletableFuture.completedFuture(Answers.challenge(v, c, cookieName, ttl));
        case DoorCheck.EndlessQueue e -> CompletableFuture.completedFuture(answers.endlessQueue(v));
      };
    }

    private CompletionStage<Answer> afterClaim(
        Visit v, DoorCheck check, String binding, int ttl, boolean first) {
      if (first) {
        return next.enter(v);
      }
      return CompletableFuture.completedFuture(
          switch (check.replayed(binding, v.now)) {
            case DoorCheck.Challenge c -> Answers.challenge(v, c, cookieName, ttl);
            default -> answers.endlessQueue(v);
          });
    }
  }

  /**
   * The human check ({@code humanCheck}; it replaces the proof of work while it is on) for every
   * request the room would give a new identity: without a token, the provider's widget (page or
   * JSON); with one, the provider's verdict (siteverify), then admission, or the widget again
   * ({@code onFailure: retry}) or the endless queue for the address ({@code endlessQueue}); while
   * the provider cannot answer, admission ({@code onUnavailable: open}) or the widget again ({@code
   * closed}). The answer cookie is cleared in the response either way: a token is single use.
   */
  private static final class HumanCheckStage implements Step {
    private final RoomRuntime room;
    private final Answers answers;
    private final Step next;
    private final String cookieName;
    private final String clearAnswer;

    HumanCheckStage(RoomRuntime room, Answers answers, Step next) {
      this.room = room;
      this.answers = answers;
      this.next = next;
      RoomSettings s = room.settings();
      this.cookieName = HumanCheckResponder.cookieName(s.id(), s.cookie().cookieSuffix());
      this.clearAnswer = cookieName + "=; Max-Age=0; Path=/; SameSite=Lax";
    }

    @Override
    public CompletionStage<Answer> enter(Visit v) {
      if (!v.newIdentity()) {
        return next.enter(v);
      }
      HumanCheck h = room.settings().protection().humanCheck();
      String client = v.clientIp();
      String binding = client == null ? "" : client;
      if (h.onFailure() == HumanFailure.ENDLESS_QUEUE
          && room.humanFailures().marked(binding, v.now)) {
        return CompletableFuture.completedFuture(answers.endlessQueue(v));
      }
      String token = v.facts.header(HumanCheckResponder.ANSWER_HEADER);
      if (token == null) {
        token = v.cookie(cookieName);
        if (token != null) {
          v.setCookies = List.of(clearAnswer);
          token = decodeCookie(token);
        }
      }
      if (token == null) {
        return CompletableFuture.completedFuture(Answers.humanCheck(v, h, cookieName, null));
      }
      return room.human()
          .verify(token, client)
          .thenComposeAsync(
              result ->
                  switch (result.outcome()) {
                    case PASSED -> next.enter(v);
                    case FAILED -> {
                      LOG.info(
                          "room {}: human check refused for {} ({})",
                          room.settings().id(),
                          binding,
                          result.detail());
                      room.humanFailures().failed(binding, v.now);
                      yield CompletableFuture.completedFuture(
                          h.onFailure() == HumanFailure.ENDLESS_QUEUE
                              ? answers.endlessQueue(v)
                              : Answers.humanCheck(v, h, cookieName, "failed"));
                    }
                    case UNAVAILABLE -> {
                      LOG.warn(
                          "room {}: human check unavailable ({}), {}",
                          room.settings().id(),
                          result.detail(),
                          h.onUnavailable() == HumanUnavailable.OPEN
                              ? "letting the request go on (onUnavailable: open)"
                              : "asking again (onUnavailable: closed)");
                      yield h.onUnavailable() == HumanUnavailable.OPEN
                          ? next.enter(v)
                          : CompletableFuture.completedFuture(
                              Answers.humanCheck(v, h, cookieName, "unavailable"));
                    }
                  },
              v.resume);
    }

    private static String decodeCookie(String value) {
      if (value.indexOf('%') < 0) {
        return value;
      }
      try {
        return java.net.URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return value;
      }
    }
  }

  /**
   * The limit of new identities per client address prefix ({@code addressLimit}), after the proof
   * of work (a client over its limit has paid for the answer it wastes): a request that would get a
   * new identity takes one from its prefix's budget on this gateway, or is answered 429 with {@code
   * Retry-After}. Returning users are never counted. All clients a trusted proxy does not name
   * share one budget.
   */
  private record AddressLimit(RoomRuntime room, Answers answers, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      if (!v.newIdentity()) {
        return next.enter(v);
      }
      var a = room.settings().protection().addressLimit();
      String prefix = Cidr.prefixOf(v.clientIp(), a.ipv4PrefixLength(), a.ipv6PrefixLength());
      int retry = room.limit().take(prefix == null ? "unknown" : prefix, v.now);
      return retry == 0
          ? next.enter(v)
          : CompletableFuture.completedFuture(answers.tooManyNewIdentities(v, retry));
    }
  }

  /**
   * Whether the visit would get a new identity in the room (no ticket, or one the room no longer
   * honours): what the door's checks are for.
   */
  private static boolean startsOver(RoomRuntime room, Visit v) {
    return v.ticket == null || room.gate().startsOver(v.ticket, v.now);
  }

  /**
   * The invitation check of an invite-only room or event, for every request the room would give a
   * new identity (as for the proof of work): the token from the {@value Invitations#HEADER} header
   * or else the {@value Invitations#QUERY_PARAMETER} query parameter must be valid for the room and
   * the event in force now. Without one the answer says why and nothing is counted; with one the
   * visit goes on, and the invitation is used only after the other checks ({@link
   * InvitationClaim}), so that a proof-of-work challenge on the way does not spend it.
   */
  private record InvitationCheck(RoomRuntime room, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      RoomSettings s = room.settings();
      Instant now = Instant.ofEpochMilli(v.now);
      RoomSettings inForce = s.events().isEmpty() ? s : s.at(now);
      if (!inForce.protection().invitations().required() || !startsOver(room, v)) {
        return next.enter(v);
      }
      String token = v.facts.header(Invitations.HEADER);
      if (token == null) {
        token = queryParameter(v.target.query(), Invitations.QUERY_PARAMETER);
      }
      String event = s.eventAt(now).map(e -> e.window().name()).orElse(null);
      return switch (room.invitations().verify(token, event, v.now)) {
        case Invitations.Valid valid -> {
          if (room.accounts() != null
              && valid.account() != null
              && !valid.account().equals(v.account)) {
            // an invitation sent to one account is that account's only (none: anonymous)
            yield CompletableFuture.completedFuture(
                Answers.invitation(v, Invitations.Refusal.OTHER_ACCOUNT));
          }
          v.invitation = valid;
          yield next.enter(v);
        }
        case Invitations.Refused r ->
            CompletableFuture.completedFuture(Answers.invitation(v, r.reason()));
      };
    }
  }

  /**
   * Uses the visit's checked invitation just before admission: once on this gateway, then claimed
   * at the room's coordinator (as a proof-of-work answer is), so that it gives one place in line in
   * the whole deployment. A copy is refused as {@code replayed}; if the coordinator cannot answer,
   * the gateway's own memory decides (the room is degraded).
   */
  private record InvitationClaim(RoomRuntime room, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      Invitations.Valid invitation = v.invitation;
      if (invitation == null) {
        return next.enter(v);
      }
      Invitations.Refusal here = room.invitations().useHere(invitation, v.now);
      if (here != null) {
        return CompletableFuture.completedFuture(Answers.invitation(v, here));
      }
      CompletableFuture<Boolean> claimed =
          room.gate()
              .claimChallenge(invitation.claim(), invitation.expiresAtMillis())
              .toCompletableFuture();
      if (claimed.isDone()) {
        return afterClaim(v, claimed.isCompletedExceptionally() || claimed.join());
      }
      return claimed
          .handle((first, failure) -> failure != null || first)
          .thenComposeAsync(first -> afterClaim(v, first), v.resume);
    }

    private CompletionStage<Answer> afterClaim(Visit v, boolean first) {
      if (!first) {
        LOG.info(
            "room {}: invitation {} refused: already used at another gateway",
            room.settings().id(),
            v.invitation.id());
        return CompletableFuture.completedFuture(
            Answers.invitation(v, Invitations.Refusal.REPLAYED));
      }
      return next.enter(v);
    }
  }

  /**
   * One place per account, in a room that knows its users' accounts ({@code account}): the
   * application's assertion of who the user is is checked on every request (a missing one, where
   * the room requires accounts, or one not accepted, is answered 403 with the reason: no ticket);
   * the request's ticket stands for the account only while the account cookie binds the two ({@link
   * io.anteroom.door.ticket.AccountCookie}), which costs no call. Otherwise (a new browser of the
   * account, a cookie of another account, a ticket that is over) the account's place is asked of
   * the room's coordinator: a live one becomes the request's ticket (another browser of the account
   * gets the same place, with no check to pay again); without one the request goes on as a new
   * identity (the room's checks apply), and the place the room then gives it is offered to the
   * coordinator. If another browser of the account offered its place first, the request is answered
   * 307 to itself with that place's cookies (an admission the request got meanwhile is given back).
   *
   * <p>A waiting place that gets admitted is offered again (the same id, admitted): the account's
   * other browsers share its session. That offer is a claim: the coordinator stores the place's
   * first admission only, so a gateway that lets in a copy of the waiting place that another
   * gateway let in first gives its admission back ({@link RoomGate#giveBack}) and answers with the
   * account's running session: one account, one session, on any number of gateways. Only an
   * account's admission costs this call, which the offer cost before anyway.
   *
   * <p>While the coordinator cannot answer, nothing makes a second place or a second session: a
   * browser that holds its account's ticket goes on as usual (no call), a browser new to the
   * account's place gets the place this gateway remembers, else the queue page without a place
   * (polled until the coordinator answers), and a waiting place about to be admitted is given back
   * and waits on. A gate without shared coordination (no coordinator at all) has this gateway's
   * memory of places decide.
   */
  private static final class AccountPlace implements Step {
    /** How long the coordinator remembers a place: the longest a ticket can live. */
    static final long PLACE_TTL_MILLIS = java.time.Duration.ofHours(24).toMillis();

    private final RoomRuntime room;
    private final RoomAccounts accounts;
    private final Answers answers;
    private final Step next;

    AccountPlace(RoomRuntime room, Answers answers, Step next) {
      this.room = room;
      this.accounts = room.accounts();
      this.answers = answers;
      this.next = next;
    }

    @Override
    public CompletionStage<Answer> enter(Visit v) {
      var a = accounts.settings;
      String token =
          io.anteroom.door.proof.Accounts.tokenOf(
              a.header(), v.facts.header(a.header()), a.cookie().map(v::cookie).orElse(null));
      if (token == null && !a.required()) {
        return next.enter(v); // an anonymous user in a room that lets them in
      }
      switch (accounts.accounts.verify(token, v.now)) {
        case io.anteroom.door.proof.Accounts.Refused r -> {
          LOG.debug("room {}: identity refused ({})", room.settings().id(), r.reason().jsonName());
          return CompletableFuture.completedFuture(
              Answers.account(v, r.reason(), a.required(), a.header()));
        }
        case io.anteroom.door.proof.Accounts.Known k -> {
          v.account = k.account();
          v.placeKey = io.anteroom.door.proof.Accounts.placeKey(room.settings().id(), k.account());
        }
      }
      if (v.ticket != null
          && accounts.cookie.binds(v.cookie(accounts.cookie.name()), v.ticket.id(), v.placeKey)
          && !v.newIdentity()) {
        v.placeId = v.ticket.id(); // the account's own place, as its browser holds it
        if (!v.ticket.admitted()) {
          admittedMeanwhile(v); // waiting: another browser of the account may have been let in
        }
        return after(v, next.enter(v));
      }
      return ask(v, null, 0, asked -> fromPlace(v, asked));
    }

    /**
     * A waiting browser of an account whose place another browser got admitted with on this gateway
     * (which remembers the admitted place): the session, not a waiting copy the room would queue.
     * Costs no call; only waiting tickets are looked at.
     */
    private void admittedMeanwhile(Visit v) {
      AccountPlaces.Place p = accounts.local.place(v.placeKey, null, 0, v.now).place();
      if (p == null || p.ticketId() != v.ticket.id() || !p.admitted()) {
        return;
      }
      TicketCookie.Opened opened = room.cookie().openValue(p.sealed());
      if (opened != null
          && opened.ticket().admitted()
          && !room.gate().startsOver(opened.ticket(), v.now)) {
        v.replaceTicket(opened.ticket());
        v.reseal = true;
      }
    }

    /**
     * The account's place as the coordinator (else this gateway) knows it: a live one becomes the
     * visit's ticket; without one, a new identity, unless the coordinator could not answer (then no
     * new place: the queue page without one).
     */
    private CompletionStage<Answer> fromPlace(Visit v, Asked asked) {
      AccountPlaces.Place p = asked.reply().place();
      if (p != null) {
        io.anteroom.room.Ticket own =
            v.ticket != null
                    && v.ticket.id() == p.ticketId()
                    && (v.ticket.admitted() || !p.admitted())
                ? v.ticket
                : null;
        if (own == null) {
          TicketCookie.Opened opened = room.cookie().openValue(p.sealed());
          own = opened == null ? null : opened.ticket();
        }
        if (own != null && !room.gate().startsOver(own, v.now)) {
          if (own != v.ticket) {
            v.replaceTicket(own);
            v.reseal = true; // the browser gets the place's cookie
          }
          v.placeId = own.id();
          v.setCookies = with(v.setCookies, accounts.cookie.set(own.id(), v.placeKey));
          return after(v, next.enter(v));
        }
        v.replacesId = p.ticketId(); // over: the new place replaces it
      }
      if (asked.unreachable()) {
        return CompletableFuture.completedFuture(noPlaceYet(v));
      }
      // no live place: a new identity for the account, whatever ticket came with the request (a
      // cookie of another account's place gives this account nothing)
      v.replaceTicket(null);
      return after(v, next.enter(v));
    }

    /**
     * The queue page (or JSON) without a place and without touching the browser's cookies: the
     * account's place cannot be looked up now; the page polls until it can.
     */
    private Answer noPlaceYet(Visit v) {
      LOG.debug(
          "room {}: an account's place cannot be looked up (coordinator unreachable): no new place",
          room.settings().id());
      return answers.queue(
          v,
          new Verdict(
              io.anteroom.door.admission.RoomGate.Outcome.QUEUE, null, QueueView.unknown(v.now)),
          true,
          "account",
          v.ticket);
    }

    /** Offers the place the answer gives the account, when it is new or newly admitted. */
    private CompletionStage<Answer> after(Visit v, CompletionStage<Answer> answered) {
      CompletableFuture<Answer> f = answered.toCompletableFuture();
      if (f.isDone() && !f.isCompletedExceptionally()) {
        return afterAnswer(v, f.join());
      }
      return f.thenCompose(answer -> afterAnswer(v, answer));
    }

    private CompletionStage<Answer> afterAnswer(Visit v, Answer answer) {
      io.anteroom.room.Ticket t = answer.ticket();
      if (t == null || v.account == null || !carriesTicket(answer)) {
        return CompletableFuture.completedFuture(answer);
      }
      if (t.id() == v.placeId) {
        if (t.admitted() && v.ticket != null && !v.ticket.admitted()) {
          // admitted just now: claimed as the place's one admission, so that the account's other
          // browsers get the session and no other gateway lets the waiting place in again
          return claimAdmission(v, v.ticket, t, answer);
        }
        if (t.admitted()
            && v.ticket != null
            && v.ticket.admitted()
            && answer instanceof Answer.Pass p
            && p.seal() != null) {
          // a running session renewed into a new cookie (at most once a minute a browser): the
          // account's place follows it, so a browser of the account that comes more than a
          // session length after the admission, while this one keeps the session alive, gets the
          // running session, not a new place
          return ask(
              v, offer(t, v.now), t.id(), asked -> CompletableFuture.completedFuture(answer));
        }
        return CompletableFuture.completedFuture(answer);
      }
      // a new place for the account
      return ask(
          v,
          offer(t, v.now),
          v.replacesId,
          asked -> {
            AccountPlaces.Reply reply = asked.reply();
            AccountPlaces.Place won = reply.place();
            if (reply.stored() || won == null || reply.full()) {
              return CompletableFuture.completedFuture(
                  Answers.withCookie(answer, accounts.cookie.set(t.id(), v.placeKey)));
            }
            // another browser of the account made its place first: that one is the account's
            if (t.admitted()) {
              giveBack(v, t, null); // the slot this request just took is not the account's
            }
            return CompletableFuture.completedFuture(
                Answers.toOwnPlace(
                    v,
                    room.cookie().setSealed(won.sealed()),
                    accounts.cookie.set(won.ticketId(), v.placeKey)));
          });
    }

    /**
     * Claims the admission {@code admitted} of the account's waiting place {@code waiting} at the
     * coordinator. The first admission stands; a second one (another gateway let the place in
     * first) is given back and the request goes on with the account's place as the coordinator
     * knows it (its running session). Unreachable: given back, the user waits on with its ticket.
     */
    private CompletionStage<Answer> claimAdmission(
        Visit v, io.anteroom.room.Ticket waiting, io.anteroom.room.Ticket admitted, Answer answer) {
      return ask(
          v,
          offer(admitted, v.now),
          0,
          asked -> {
            AccountPlaces.Reply reply = asked.reply();
            if (asked.unreachable()) {
              LOG.debug(
                  "room {}: an account's admission cannot be claimed (coordinator unreachable):"
                      + " given back, the place waits on",
                  room.settings().id());
              Verdict queued = giveBack(v, admitted, waiting);
              return CompletableFuture.completedFuture(
                  queued != null ? answers.verdict(v, queued) : noPlaceYet(v));
            }
            if (reply.stored() || reply.full() || reply.place() == null) {
              return CompletableFuture.completedFuture(answer);
            }
            giveBack(v, admitted, null); // the account's place was let in elsewhere first
            return fromPlace(v, asked);
          });
    }

    /** Gives the admission back to the room (its slot and count); the answer's meter too. */
    private Verdict giveBack(
        Visit v, io.anteroom.room.Ticket admitted, io.anteroom.room.Ticket waiting) {
      room.meters().admittedNew().dec();
      return room.gate().giveBack(admitted, waiting, waiting != null, v.now);
    }

    /** Whether the answer gives the browser a ticket (a place): a pass, or the queue. */
    private static boolean carriesTicket(Answer answer) {
      return switch (answer) {
        case Answer.Pass p -> p.seal() != null || p.session() != null;
        case Answer.Respond r ->
            r.status() == 200 && "queued".equals(r.decision()) || "admitted".equals(r.decision());
      };
    }

    private AccountPlaces.Place offer(io.anteroom.room.Ticket t, long now) {
      return new AccountPlaces.Place(
          t.id(), room.cookie().sealValue(t), now + PLACE_TTL_MILLIS, t.admitted());
    }

    /**
     * The account's place as asked of the coordinator.
     *
     * @param reply the coordinator's answer, or this gateway's memory's
     * @param unreachable the coordinator could not answer (the reply is this gateway's memory's)
     */
    private record Asked(AccountPlaces.Reply reply, boolean unreachable) {}

    /**
     * Asks the coordinator (else this gateway's memory) about the visit's account, then goes on
     * with {@code then} on the request's own thread.
     */
    private CompletionStage<Answer> ask(
        Visit v,
        AccountPlaces.Place offer,
        long replacesId,
        java.util.function.Function<Asked, CompletionStage<Answer>> then) {
      CompletableFuture<AccountPlaces.Reply> asked;
      try {
        asked = room.gate().place(v.placeKey, offer, replacesId).toCompletableFuture();
      } catch (RuntimeException e) {
        asked = CompletableFuture.failedFuture(e);
      }
      java.util.function.BiFunction<AccountPlaces.Reply, Throwable, Asked> settle =
          (reply, failure) -> {
            if (failure != null || reply == null) {
              // no shared coordination at all: this gateway's memory is the room's
              boolean unshared =
                  failure instanceof UnsupportedOperationException
                      || failure != null
                          && failure.getCause() instanceof UnsupportedOperationException;
              return new Asked(
                  accounts.local.place(v.placeKey, offer, replacesId, v.now), !unshared);
            }
            if (reply.place() != null) {
              accounts.local.remember(v.placeKey, reply.place(), v.now);
            }
            return new Asked(reply, false);
          };
      if (asked.isDone()) {
        Asked reply;
        try {
          reply = settle.apply(asked.join(), null);
        } catch (RuntimeException e) {
          reply = settle.apply(null, e);
        }
        return then.apply(reply);
      }
      return asked.handle(settle).thenComposeAsync(then, v.resume);
    }

    private static List<String> with(List<String> cookies, String cookie) {
      var all = new java.util.ArrayList<String>(cookies.size() + 1);
      all.addAll(cookies);
      all.add(cookie);
      return List.copyOf(all);
    }
  }

  /**
   * The value of parameter {@code name} in {@code query} (the first occurrence), percent-decoded;
   * null when absent or not decodable.
   */
  static String queryParameter(String query, String name) {
    if (query == null) {
      return null;
    }
    int from = 0;
    while (from <= query.length()) {
      int end = query.indexOf('&', from);
      if (end < 0) {
        end = query.length();
      }
      if (query.startsWith(name, from)
          && (from + name.length() == end || query.charAt(from + name.length()) == '=')) {
        String raw =
            from + name.length() == end ? "" : query.substring(from + name.length() + 1, end);
        try {
          return java.net.URLDecoder.decode(raw, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          return raw; // refused as malformed by the check
        }
      }
      from = end + 1;
    }
    return null;
  }

  /**
   * The room's decision on the visit's ticket (null: a new user), then the answer. A decision that
   * fails never admits: the user is queued (the room's {@code queueingMethod}).
   */
  private record Admission(RoomGate gate, RoomSettings settings, Answers answers) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      CompletableFuture<Verdict> decided = gate.decide(v.ticket, v.now).toCompletableFuture();
      if (decided.isDone() && !decided.isCompletedExceptionally()) {
        return CompletableFuture.completedFuture(answers.verdict(v, decided.join()));
      }
      return decided.handle(
          (verdict, failure) -> {
            if (failure != null) {
              LOG.warn(
                  "room {}: admission decision failed, queueing the user", settings.id(), failure);
              verdict =
                  new Verdict(
                      Outcome.queued(
                          settings.at(Instant.ofEpochMilli(v.now)).limits().queueingMethod()),
                      v.ticket,
                      QueueView.unknown(v.now));
            }
            return answers.verdict(v, verdict);
          });
    }
  }
}
