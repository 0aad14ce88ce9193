package io.anteroom.door;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.anteroom.door.admission.RoomControl;
import io.anteroom.door.admission.RoomGate;
import io.anteroom.door.admission.RoomGate.Outcome;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.admission.RoomGate.RoomStatus;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.door.proof.ChallengeCodec;
import io.anteroom.door.queue.QueuePacing;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.room.Ticket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The door alone, without any server: request facts in, an answer out, over a room whose decision
 * the test sets. What every adapter relies on.
 */
class DoorTest {

  static final Instant NOW = Instant.parse("2026-11-22T10:00:05Z");
  static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  static final List<TicketKey> KEYS = List.of(new TicketKey(1, new byte[16]));

  /** A room whose every decision is {@link #verdict}, counting what the door asked. */
  static final class FakeRoom implements RoomGate, RoomControl {
    Verdict verdict = new Verdict(Outcome.ADMIT, new Ticket("shop", 7, 1, NOW, NOW, 0), null);
    int decisions;
    int passesUsed;
    final List<Ticket> revoked = new ArrayList<>();

    @Override
    public void passUsed(long nowMillis) {
      passesUsed++;
    }

    @Override
    public RoomGate gate() {
      return this;
    }

    @Override
    public CompletionStage<Verdict> decide(Ticket ticket, long nowMillis) {
      decisions++;
      return CompletableFuture.completedFuture(verdict);
    }

    @Override
    public boolean startsOver(Ticket ticket, long nowMillis) {
      return ticket == null;
    }

    @Override
    public void revoke(Ticket ticket, long nowMillis) {
      revoked.add(ticket);
    }

    @Override
    public RoomStatus status(long nowMillis) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void reconfigure(RoomSettings settings) {}

    @Override
    public void limitNewUsersPerMinute(int effective) {}

    @Override
    public void close() {}
  }

  static final QueuePacing PACING =
      new QueuePacing() {
        @Override
        public void recordQueueStatus(long nanos) {}

        @Override
        public int refreshIntervalSeconds() {
          return 20;
        }

        @Override
        public boolean throttle(long nowMillis) {
          return false;
        }
      };

  final FakeRoom room = new FakeRoom();

  Door door(String rooms) {
    var config = ConfigLoader.parse("dataDir: /nonexistent\n" + rooms, "test");
    return new Door(
        new Rooms(
            config,
            s -> room,
            new MetricRegistry(),
            s -> PACING,
            CLOCK,
            new TicketCodec(KEYS, CLOCK),
            new ChallengeCodec(KEYS)),
        CLOCK,
        io.anteroom.pass.PassIssuer.builder(PASS_KEYS).clock(CLOCK).build());
  }

  static final io.anteroom.pass.PassKeys PASS_KEYS = io.anteroom.pass.PassKeys.generate();

  /** A request for {@code uri} on host {@code shop.example} with these headers (name, value...). */
  static RequestFacts request(String uri, String... headers) {
    Map<String, List<String>> h = new HashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      h.computeIfAbsent(headers[i].toLowerCase(), k -> new ArrayList<>()).add(headers[i + 1]);
    }
    RequestTargetResult target = RequestTarget.parse(uri, "shop.example", null);
    return new RequestFacts() {
      @Override
      public RequestTargetResult target() {
        return target;
      }

      @Override
      public String method() {
        List<String> m = h.get(":method");
        return m == null ? "GET" : m.getFirst();
      }

      @Override
      public String header(String name) {
        List<String> v = h.get(name.toLowerCase());
        return v == null ? null : v.getFirst();
      }

      @Override
      public List<String> headers(String name) {
        return h.getOrDefault(name.toLowerCase(), List.of());
      }

      @Override
      public String peerAddress() {
        return "192.0.2.1";
      }
    };
  }

  static Answer enter(Door door, RequestFacts facts) {
    return door.enter(facts, Runnable::run).toCompletableFuture().join();
  }

  @Test
  void aPollHeldWhileItsRoomIsDeletedIsAnsweredNotYetAtOnceAndNothingOfTheRoomIsKept() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    RoomRuntime shop = door.rooms().get("shop").orElseThrow();
    String waiting = shop.cookie().sealValue(new Ticket("shop", 8, 1, NOW, null, 0));
    RequestFacts poll = request("/", "Cookie", shop.cookie().name() + "=" + waiting);
    // routed to the room, which is deleted (its listener runs) before the poll is in
    RequestFacts racing =
        new RequestFacts() {
          @Override
          public RequestTargetResult target() {
            return poll.target();
          }

          @Override
          public String method() {
            return poll.method();
          }

          @Override
          public String header(String name) {
            if (name.equals(Door.WATCH_HEADER)) {
              assertThat(door.rooms().delete("shop")).isTrue();
              return "0";
            }
            return poll.header(name);
          }

          @Override
          public List<String> headers(String name) {
            return poll.headers(name);
          }

          @Override
          public String peerAddress() {
            return poll.peerAddress();
          }
        };

    Watch watch = door.watch(racing);

    var answer = watch.answer().toCompletableFuture();
    assertThat(answer).as("answered at once, not held until it expires").isDone();
    assertThat(new String(answer.join().body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"enter\":false}");
    assertThat(door.heldPolls().held()).isZero();
    assertThat(door.heldPolls().rooms()).as("nothing kept of the deleted room").isZero();
  }

  @Test
  void anAmbiguousTargetIs400WithItsReasonAndTheConnectionClosed() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");

    var r = (Answer.Respond) enter(door, request("/a/%2e%2e%2fb"));

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.closeConnection()).isTrue();
    assertThat(new String(r.body(), StandardCharsets.UTF_8)).startsWith("400 Bad Request: ");
    assertThat(r.header("Anteroom-Throttle")).isEqualTo("0");
    assertThat(room.decisions).isZero();
  }

  @Test
  void aRequestOfNoRoomPassesUnjudged() {
    Door door = door("rooms: [ { id: shop, path: /shop/, totalActiveUsers: 1 } ]");

    var pass = (Answer.Pass) enter(door, request("/blog/"));

    assertThat(pass.room()).isNull();
    assertThat(pass.decision()).isEqualTo("no_room");
    assertThat(room.decisions).isZero();
  }

  @Test
  void aSuspendedRoomLetsEveryoneThroughWithoutDeciding() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1, suspended: true } ]");

    var pass = (Answer.Pass) enter(door, request("/"));

    assertThat(pass.decision()).isEqualTo("suspended");
    assertThat(pass.seal()).isNull();
    assertThat(room.decisions).isZero();
  }

  @Test
  void aNewUserLetInGetsItsTicketSealedOnTheOriginsResponse() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");

    var pass = (Answer.Pass) enter(door, request("/cart"));
    var origin = new MapResponse(200);
    origin.set("Cache-Control", "public, max-age=60");
    door.onOriginResponse(pass, origin, 1_000);

    assertThat(pass.decision()).isEqualTo("admitted");
    assertThat(pass.target().path()).isEqualTo("/cart");
    assertThat(origin.all("Set-Cookie")).singleElement().asString().startsWith("__anteroom_shop=");
    assertThat(origin.header("Cache-Control")).isEqualTo("private, max-age=60");
    assertThat(origin.header("Anteroom-Throttle")).isEqualTo("0");
  }

  /**
   * Reports' passes used: an admission on a page request is used at once; one made by the queue
   * page's status poll is used by the first request that reaches the origin with it, and only that
   * one (its renewed cookie is sealed, so the next request is not a first use).
   */
  @Test
  void anAdmissionsPassIsCountedOnceOnTheFirstRequestThatReachesTheOrigin() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    var page = (Answer.Pass) enter(door, request("/"));
    assertThat(room.passesUsed).as("let in on a page request").isEqualTo(1);
    assertThat(page.session().unused()).as("its cookie says it was used").isFalse();

    var poll =
        (Answer.Respond)
            enter(door, request("/", "Accept", "application/json", "Anteroom-Poll", "1"));
    assertThat(poll.decision()).isEqualTo("admitted");
    assertThat(room.passesUsed).as("the poll does not reach the origin").isEqualTo(1);
    String cookie = poll.header("Set-Cookie").split(";")[0];

    room.verdict =
        new Verdict(
            Outcome.ADMIT_SESSION, new Ticket("shop", 7, 1, NOW.plusSeconds(2), NOW, 0), null);
    var first = (Answer.Pass) enter(door, request("/", "Cookie", cookie));
    assertThat(room.passesUsed).as("the first page with the poll's cookie").isEqualTo(2);
    assertThat(first.seal()).as("sealed: its next request is no first use").isNotNull();
  }

  /**
   * One request, one reading of the clock: opening the cookie (its key's hour window), the
   * admission, the signed pass and the throttle header of the origin's response all date by it (so
   * they agree with each other, and an admitted request pays for one reading, not one per step).
   */
  @Test
  void anAdmittedUsersRequestAndItsOriginsResponseReadTheClockOnce() {
    var reads = new java.util.concurrent.atomic.AtomicInteger();
    Clock counting =
        new Clock() {
          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
          }

          @Override
          public long millis() {
            reads.incrementAndGet();
            return NOW.toEpochMilli();
          }

          @Override
          public Instant instant() {
            reads.incrementAndGet();
            return NOW;
          }
        };
    var config =
        ConfigLoader.parse(
            "dataDir: /nonexistent\nrooms: [ { id: shop, totalActiveUsers: 1 } ]", "test");
    Door door =
        new Door(
            new Rooms(
                config,
                s -> room,
                new MetricRegistry(),
                s -> new io.anteroom.door.queue.MonitoredQueuePacing(s, counting),
                counting,
                new TicketCodec(KEYS, counting),
                new ChallengeCodec(KEYS)),
            counting,
            io.anteroom.pass.PassIssuer.builder(PASS_KEYS).clock(counting).build());
    RoomRuntime shop = door.rooms().get("shop").orElseThrow();
    Ticket admitted = new Ticket("shop", 7, 1, NOW, NOW, 0).markedUsed();
    room.verdict = new Verdict(Outcome.ADMIT_SESSION, admitted, null);
    RequestFacts returning =
        request("/cart", "Cookie", shop.cookie().name() + "=" + shop.cookie().sealValue(admitted));
    // another user's request first takes the pacing's first throttle decision, which reads the
    // monitor's clock and is kept for 100 ms (the clock is fixed here)
    Ticket other = new Ticket("shop", 8, 1, NOW, NOW, 0).markedUsed();
    RequestFacts another =
        request("/", "Cookie", shop.cookie().name() + "=" + shop.cookie().sealValue(other));
    door.onOriginResponse((Answer.Pass) enter(door, another), new MapResponse(200), 1_000);

    // the cookie decrypted (not yet in the codec's cache), then opened from the cache
    for (String time : List.of("first", "again")) {
      reads.set(0);
      var pass = (Answer.Pass) enter(door, returning);
      var origin = new MapResponse(200);
      door.onOriginResponse(pass, origin, 1_000);

      assertThat(pass.decision()).as(time).isEqualTo("session");
      // dated by the reading, or by the session's check-in where that is later: a used ticket's
      // is 1 ms after its admission
      assertThat(pass.at()).as(time).isEqualTo(admitted.lastCheckInTime().toEpochMilli());
      assertThat(pass.originHeaders()).extracting(Answer.Header::name).contains(Door.PASS_HEADER);
      assertThat(origin.header("Anteroom-Throttle")).as(time).isEqualTo("0");
      assertThat(reads).as(time).hasValue(1);
    }
  }

  /**
   * An admission decided after a call to the coordinator is dated by the call's answer, later than
   * the request's reading of the clock: the pass (its issue time) and the origin's response are
   * dated no earlier than that admission.
   */
  @Test
  void aPassIsNeverDatedBeforeTheAdmissionItCarries() throws Exception {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    java.time.Instant answered = NOW.plusSeconds(2);
    room.verdict =
        new Verdict(Outcome.ADMIT, new Ticket("shop", 9, 1, answered, answered, 0), null);

    var pass = (Answer.Pass) enter(door, request("/"));

    assertThat(pass.at()).isGreaterThanOrEqualTo(answered.toEpochMilli());
    String header = pass.originHeaders().getFirst().value();
    var claims = com.nimbusds.jwt.SignedJWT.parse(header).getJWTClaimsSet();
    assertThat(claims.getIssueTime().toInstant()).isAfterOrEqualTo(answered);
  }

  @Test
  void theQueueIsJsonExactlyWhenTheClientAsksForIt() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    room.verdict =
        new Verdict(Outcome.QUEUE, new Ticket("shop", 8, 1, NOW, null, 3), QueueView.unknown(0));

    var page = (Answer.Respond) enter(door, request("/"));
    var json = (Answer.Respond) enter(door, request("/", "Accept", "application/json"));

    assertThat(page.header("Content-Type")).startsWith("text/html");
    assertThat(json.header("Content-Type")).isEqualTo("application/json");
    assertThat(json.header("Cache-Control")).isEqualTo("no-store");
    assertThat(json.header("Set-Cookie")).startsWith("__anteroom_shop=");
    assertThat(new String(json.body(), StandardCharsets.UTF_8)).contains("\"inWaitingRoom\":true");
  }

  @Test
  void aRejectionIs429WithRetryAfterAndNoCookie() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    room.verdict = new Verdict(Outcome.REJECT, null, null);

    var r = (Answer.Respond) enter(door, request("/"));

    assertThat(r.status()).isEqualTo(429);
    assertThat(r.header("Retry-After")).isEqualTo("20");
    assertThat(r.header("Set-Cookie")).isNull();
  }

  @Test
  void theOriginsRevokeEndsTheSessionClearsTheCookieAndIsNotSentOn() {
    Door door = door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    var pass = (Answer.Pass) enter(door, request("/logout"));
    var origin = new MapResponse(200);
    origin.set("Anteroom-Command", "revoke");

    door.onOriginResponse(pass, origin, 1_000);

    // the session the request was admitted with, marked as used at the origin (docs/reports.md)
    assertThat(room.revoked).containsExactly(room.verdict.ticket().markedUsed());
    assertThat(origin.header("Anteroom-Command")).isNull();
    assertThat(origin.all("Set-Cookie")).singleElement().asString().contains("Max-Age=0");
    assertThat(origin.header("Cache-Control")).isEqualTo("private");
  }

  @Test
  void anOriginsCacheControlIsMadePrivateTheSameWayEachTimeItComes() {
    // the last value made private is remembered: repeats and alternations give what the first
    // time gave
    for (int round = 0; round < 2; round++) {
      assertThat(Door.privateCacheControl("public, max-age=60")).isEqualTo("private, max-age=60");
      assertThat(Door.privateCacheControl("public, max-age=60")).isEqualTo("private, max-age=60");
      assertThat(Door.privateCacheControl("no-store")).isEqualTo("no-store");
      assertThat(Door.privateCacheControl("public, max-age=6")).isEqualTo("private, max-age=6");
      assertThat(Door.privateCacheControl("s-maxage=10, Private")).isEqualTo("Private");
      assertThat(Door.privateCacheControl("")).isEqualTo("private");
      assertThat(Door.privateCacheControl(null)).isEqualTo("private");
    }
  }

  /** An origin response as a map of headers. */
  static final class MapResponse implements OriginResponse {
    final int status;
    final Map<String, List<String>> headers = new HashMap<>();

    MapResponse(int status) {
      this.status = status;
    }

    List<String> all(String name) {
      return headers.getOrDefault(name.toLowerCase(), List.of());
    }

    @Override
    public int status() {
      return status;
    }

    @Override
    public String header(String name) {
      List<String> v = all(name);
      return v.isEmpty() ? null : v.getFirst();
    }

    @Override
    public void set(String name, String value) {
      headers.put(name.toLowerCase(), new ArrayList<>(List.of(value)));
    }

    @Override
    public void add(String name, String value) {
      headers.computeIfAbsent(name.toLowerCase(), k -> new ArrayList<>()).add(value);
    }

    @Override
    public void remove(String name) {
      headers.remove(name.toLowerCase());
    }
  }
}
