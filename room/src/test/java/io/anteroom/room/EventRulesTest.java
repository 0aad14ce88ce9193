package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules of a scheduled event, in virtual time through the whole room loop. */
class EventRulesTest {
  static final Instant PREQUEUE = at("2026-12-01T17:30:00Z");
  static final Instant START = at("2026-12-01T18:00:00Z");
  static final Instant END = at("2026-12-01T20:00:00Z");
  static final int N = 50;

  static RoomConfig config(boolean shuffle) {
    return Fixtures.room(10_000, N)
        .event(new EventWindow("launch", PREQUEUE, START, END, shuffle))
        .build();
  }

  /** 600 users arrive evenly over the first 25 minutes of the pre-queue. */
  static Crowd prequeue(MiniRoom room, int users) {
    Crowd crowd = new Crowd(room, 7);
    for (int i = 0; i < users; i++) {
      crowd.arrive(PREQUEUE.plusMillis(i * 25L * 60_000 / users));
    }
    return crowd;
  }

  static double[] arrivals(Crowd c) {
    return c.users.stream().mapToDouble(u -> u.arrival.toEpochMilli()).toArray();
  }

  static double[] admissions(Crowd c) {
    return c.users.stream().mapToDouble(u -> u.admittedAt.toEpochMilli()).toArray();
  }

  @Test
  void nobodyIsAdmittedBeforeTheStartAndEveryoneAfterWithinTheLimits() {
    MiniRoom room = new MiniRoom(config(true), PREQUEUE, 1);
    Crowd crowd = prequeue(room, 600);
    crowd.runUntil(START, Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isZero();
    assertThat(room.state().totalWaiting()).isEqualTo(600);

    crowd.runUntil(START.plus(Duration.ofMinutes(30)), Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isEqualTo(600);
    assertThat(crowd.users).allSatisfy(u -> assertThat(u.admittedAt).isAfterOrEqualTo(START));
    assertThat(crowd.admissionsByMinute.values())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(N));
  }

  @Test
  void aShuffledPrequeueIsAdmittedInTheOrderOfItsRandomPlacesNotOfArrival() {
    MiniRoom room = new MiniRoom(config(true), PREQUEUE, 2);
    Crowd crowd = prequeue(room, 600);
    crowd.runUntil(START.plus(Duration.ofMinutes(30)), Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isEqualTo(600);

    Draw shuffle = Draw.shuffle("shop", config(true).event());
    Lottery lottery = RoomWorker.defaultDraws("shop").lottery(shuffle);
    double[] places =
        crowd.users.stream().mapToDouble(u -> shuffle.place(lottery, u.ticket.id())).toArray();
    // arriving early gives nothing: no rank correlation between arrival and admission (|rho| for
    // 600 independent ranks is below 0.15 with probability > 0.9997)
    assertThat(Math.abs(Crowd.spearman(arrivals(crowd), admissions(crowd)))).isLessThan(0.15);
    // the shuffled places are the order
    assertThat(Crowd.spearman(places, admissions(crowd))).isGreaterThan(0.9);
  }

  @Test
  void withoutShuffleThePrequeueKeepsArrivalOrder() {
    MiniRoom room = new MiniRoom(config(false), PREQUEUE, 3);
    Crowd crowd = prequeue(room, 600);
    crowd.runUntil(START, Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isZero();
    crowd.runUntil(START.plus(Duration.ofMinutes(30)), Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isEqualTo(600);
    assertThat(Crowd.spearman(arrivals(crowd), admissions(crowd))).isGreaterThan(0.9);
    assertThat(crowd.admissionsByMinute.values())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(N));
  }

  @Test
  void arrivalsAfterTheStartQueueBehindTheShuffledPrequeue() {
    MiniRoom room = new MiniRoom(config(true), PREQUEUE, 4);
    Crowd crowd = prequeue(room, 300);
    List<Crowd.User> late = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      late.add(crowd.arrive(START.plusSeconds(1 + i)));
    }
    crowd.runUntil(START.plus(Duration.ofMinutes(30)), Duration.ofSeconds(5), 20);
    assertThat(crowd.admitted()).isEqualTo(350);
    Instant lastOfPrequeue =
        crowd.users.stream()
            .filter(u -> !late.contains(u))
            .map(u -> u.admittedAt)
            .max(Instant::compareTo)
            .orElseThrow();
    assertThat(late).allSatisfy(u -> assertThat(u.admittedAt).isAfterOrEqualTo(lastOfPrequeue));
  }

  @Test
  void aSessionAdmittedBeforeThePrequeueKeepsRunning() {
    RoomConfig plain = Fixtures.room(10_000, N).build();
    MiniRoom room = new MiniRoom(plain, PREQUEUE.minusSeconds(60), 5);
    Decision first = room.request(null);
    assertThat(first).isInstanceOf(Decision.Admit.class);
    room.advanceTo(PREQUEUE.plusSeconds(10));
    room.reconfigure(config(true));
    assertThat(room.request(((Decision.Admit) first).ticket()))
        .isInstanceOfSatisfying(
            Decision.Admit.class,
            a -> assertThat(a.reason()).isEqualTo(Decision.AdmitReason.SESSION));
    assertThat(room.request(null)).isInstanceOf(Decision.Queue.class);
  }

  @Test
  void afterTheEndTheRoomsOwnSettingsApplyAndNewUsersEnterAtOnce() {
    MiniRoom room = new MiniRoom(config(false), PREQUEUE, 6);
    room.advanceTo(START.minusSeconds(1));
    assertThat(room.request(null)).isInstanceOf(Decision.Queue.class);
    room.advanceTo(END.plusSeconds(1));
    room.reconfigure(Fixtures.room(10_000, N).build());
    room.sync();
    assertThat(room.request(null)).isInstanceOf(Decision.Admit.class);
  }

  @Test
  void theShuffledPlaceDependsOnTheEventAndTheTicketOnly() {
    Lottery a = new Lottery("0123456789abcdef0123".getBytes());
    Lottery b = new Lottery("0123456789abcdef0123".getBytes());
    int differs = 0;
    for (long id = 1; id <= 1000; id++) {
      assertThat(a.place("launch", id, 60)).isEqualTo(b.place("launch", id, 60));
      if (a.place("launch", id, 60) != a.place("encore", id, 60)) {
        differs++;
      }
    }
    assertThat(differs).isGreaterThan(900); // another event is another shuffle
    Lottery other = new Lottery("another key of twenty".getBytes());
    assertThat(other.place("launch", 42, 1 << 20)).isNotEqualTo(a.place("launch", 42, 1 << 20));
  }

  @Test
  void shuffledPlacesAreUniform() {
    Lottery lottery = new Lottery("0123456789abcdef0123".getBytes());
    int places = 60;
    int[] counts = new int[places];
    int n = 60_000;
    for (long id = 1; id <= n; id++) {
      counts[lottery.place("launch", id, places)]++;
    }
    double expected = (double) n / places;
    double chi2 = 0;
    for (int c : counts) {
      chi2 += (c - expected) * (c - expected) / expected;
    }
    assertThat(chi2).isLessThan(95.0); // chi-square, 59 degrees of freedom, p = 0.002
  }

  @Test
  void eventTimesAreValidatedWithMessagesNamingTheKey() {
    assertThatThrownBy(() -> new EventWindow("x", null, START, START, false))
        .hasMessageContaining("event 'x': eventEndTime")
        .hasMessageContaining("not after eventStartTime");
    assertThatThrownBy(() -> new EventWindow("x", START.plusSeconds(1), START, END, false))
        .hasMessageContaining("event 'x': prequeueStartTime")
        .hasMessageContaining("after eventStartTime");
    assertThatThrownBy(() -> new EventWindow("x", null, START, END, true))
        .hasMessageContaining("shuffleAtEventStart needs prequeueStartTime");
    assertThatThrownBy(() -> new EventWindow(" ", null, START, END, false))
        .hasMessageContaining("name");
  }

  @Test
  void overlappingEventsAreRefusedCountingThePrequeue() {
    var first = new EventWindow("first", null, START, END, false);
    var second =
        new EventWindow(
            "second", END.minusSeconds(60), END.plusSeconds(60), END.plusSeconds(600), false);
    assertThatThrownBy(
            () -> EventWindow.requireDisjoint("room 'shop': events", List.of(second, first)))
        .hasMessageContaining("room 'shop': events: event 'second'")
        .hasMessageContaining("overlaps event 'first'");
    var dup = new EventWindow("first", null, END.plusSeconds(60), END.plusSeconds(600), false);
    assertThatThrownBy(() -> EventWindow.requireDisjoint("events", List.of(first, dup)))
        .hasMessageContaining("two events are named 'first'");
    var after = new EventWindow("after", END, END.plusSeconds(60), END.plusSeconds(600), false);
    EventWindow.requireDisjoint("events", List.of(after, first)); // touching is not overlapping
    assertThat(EventWindow.at(List.of(first, after), END)).contains(after);
    assertThat(EventWindow.at(List.of(first, after), START.minusSeconds(1))).isEmpty();
  }

  @Test
  void aConfigWithAnEventSurvivesTheJsonRoundTripAndOldConfigsReadAsFifo() throws Exception {
    var json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
            .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(
                com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    RoomConfig c = config(true).withRules(Rules.spec());
    RoomConfig random = Fixtures.room(10, 10).queueOrder(QueueOrder.RANDOM).build();
    assertThat(json.readValue(json.writeValueAsString(c), RoomConfig.class)).isEqualTo(c);
    assertThat(json.readValue(json.writeValueAsString(random), RoomConfig.class)).isEqualTo(random);
    // a config stored before queueOrder and event existed
    var old = (com.fasterxml.jackson.databind.node.ObjectNode) json.valueToTree(random);
    old.remove("queueOrder");
    old.remove("event");
    RoomConfig read = json.treeToValue(old, RoomConfig.class);
    assertThat(read.queueOrder()).isEqualTo(QueueOrder.FIFO);
    assertThat(read.event()).isNull();
  }
}
