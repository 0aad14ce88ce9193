package io.anteroom.door;

import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.admission.RoomGate.Outcome;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.queue.ChallengeResponder;
import io.anteroom.door.ticket.TicketCookie;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stages of a room's door, in their fixed order, and the one place that chains them ({@link
 * #chain}): a suspended room skips everything; bypass rules (only when the room has any); the
 * ticket, opened once; the invitation (only when the room or one of its events requires them),
 * checked; the proof of work (only when the room or one of its events turns it on); the invitation,
 * used; admission, whose verdict {@link Answers} turns into the answer.
 */
final class Stages {
  private static final Logger LOG = LoggerFactory.getLogger(Door.class);

  private Stages() {}

  /** The first stage of {@code room}'s chain. */
  static Step chain(RoomRuntime room, Answers answers) {
    if (room.settings().suspended()) {
      return v -> CompletableFuture.completedFuture(Answers.skip(v, "suspended"));
    }
    Step admission = new Admission(room.gate(), room.settings(), answers);
    Step claim = room.invitations() == null ? admission : new InvitationClaim(room, admission);
    Step proof = room.door() == null ? claim : new ProofOfWorkCheck(room, answers, claim);
    Step invited = room.invitations() == null ? proof : new InvitationCheck(room, proof);
    Step open = new OpenTicket(room.cookie(), invited);
    return room.bypass().isEmpty() ? open : new Bypass(room, open);
  }

  /** Lets a request that a bypass rule matches skip the room. */
  private record Bypass(RoomRuntime room, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      return room.bypass().bypasses(v)
          ? CompletableFuture.completedFuture(Answers.skip(v, "bypass"))
          : next.enter(v);
    }
  }

  /** Opens the room's cookie into the visit's ticket, once for the whole request. */
  private record OpenTicket(TicketCookie cookie, Step next) implements Step {
    @Override
    public CompletionStage<Answer> enter(Visit v) {
      String value = v.cookie(cookie.name());
      TicketCookie.Opened opened = value == null ? null : cookie.openValue(value);
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
      this.cookieName = ChallengeResponder.cookieName(s.id(), s.cookieSuffix());
      this.clearAnswer = cookieName + "=; Max-Age=0; Path=/; SameSite=Lax";
    }

    @Override
    public CompletionStage<Answer> enter(Visit v) {
      RoomSettings s = room.settings();
      // the check in force now: the room's, or the running event's (pre-queue included)
      ProofOfWork inForce =
          s.events().isEmpty() ? s.proofOfWork() : s.at(Instant.ofEpochMilli(v.now)).proofOfWork();
      if (!inForce.enabled() || v.ticket != null && !room.gate().startsOver(v.ticket, v.now)) {
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
      if (!inForce.invitations().required() || !startsOver(room, v)) {
        return next.enter(v);
      }
      String token = v.facts.header(Invitations.HEADER);
      if (token == null) {
        token = queryParameter(v.target.query(), Invitations.QUERY_PARAMETER);
      }
      String event = s.eventAt(now).map(e -> e.window().name()).orElse(null);
      return switch (room.invitations().verify(token, event, v.now)) {
        case Invitations.Valid valid -> {
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
                      Outcome.queued(settings.at(Instant.ofEpochMilli(v.now)).queueingMethod()),
                      v.ticket,
                      QueueView.unknown(v.now));
            }
            return answers.verdict(v, verdict);
          });
    }
  }
}
