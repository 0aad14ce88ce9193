package io.anteroom.room;

import static io.anteroom.room.RoomWorkerTest.COUNTERS;
import static io.anteroom.room.RoomWorkerTest.EVEN;
import static io.anteroom.room.RoomWorkerTest.M;
import static io.anteroom.room.RoomWorkerTest.NOW;
import static io.anteroom.room.RoomWorkerTest.activeOfHundred;
import static io.anteroom.room.RoomWorkerTest.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The late-grant rule on its own: which grants are late, and what a late grant decides. */
class OutagesTest {

  private final Outages outages = new Outages();

  @Test
  void aGrantToACallSentBeforeAnOutageIsLateEvenOnceTheOutageIsOver() {
    Outages.Mark sentBefore = outages.mark(0);
    outages.failed();
    outages.failed(); // a second failure of the same outage
    outages.recovered(outages.failures(), Instant.EPOCH, Duration.ofSeconds(15));

    assertThat(outages.late(sentBefore, 0)).isTrue();
    assertThat(outages.late(outages.mark(0), 0)).as("sent after the recovery").isFalse();
  }

  @Test
  void aGrantToACallSentWhileDegradedIsLateAlsoWhenAnsweredAfterTheRecovery() {
    outages.failed();
    Outages.Mark sentDuring = outages.mark(0);
    outages.recovered(outages.failures(), Instant.EPOCH, Duration.ofSeconds(15));
    // it may have reached a coordinator's new instance before the outage's charges did
    assertThat(outages.late(sentDuring, 0))
        .as("sent during the outage, answered after it")
        .isTrue();
  }

  @Test
  void aNewInstanceOfTheCoordinatorIsAnOutageAndAGrantItAnswersIsLate() {
    Outages started = new Outages(3); // changes seen before the gateway decided: no outage
    assertThat(started.noticeInstanceChanges(3)).isFalse();
    Outages.Mark sent = started.mark(3);
    assertThat(started.degraded()).isFalse();

    // the answer came from a new leader: the count rose before it completed
    assertThat(started.late(sent, 4)).as("answered by the new instance").isTrue();
    assertThat(started.degraded()).as("an outage, though no call failed").isTrue();
    assertThat(started.noticeInstanceChanges(4)).as("noticed once").isFalse();
  }

  @Test
  void aNewInstanceNoticedBeforeACallMakesItsGrantLateEvenOnceTheOutageIsOver() {
    assertThat(outages.noticeInstanceChanges(1)).as("began an outage").isTrue();
    Outages.Mark sentDuring = outages.mark(1);
    outages.recovered(outages.failures(), Instant.EPOCH, Duration.ofSeconds(15));
    assertThat(outages.late(sentDuring, 1)).isTrue();
    assertThat(outages.late(outages.mark(1), 1)).as("sent after the recovery").isFalse();
  }

  @Test
  void aNewInstanceDuringAnOutageBeginsNoOtherOutage() {
    outages.failed();
    Outages.Mark sentDuring = outages.mark(0);
    assertThat(outages.noticeInstanceChanges(1)).as("degraded already").isFalse();
    assertThat(outages.late(sentDuring, 1)).isTrue();
  }

  @Test
  void aFailureAfterWhatProvedTheCoordinatorBackKeepsTheOutageOn() {
    outages.failed();
    long beforeTheRound = outages.failures();
    outages.failed(); // another call failed while the report round was on its way
    assertThat(outages.recovered(beforeTheRound, Instant.EPOCH, Duration.ofSeconds(15))).isFalse();
    assertThat(outages.degraded()).isTrue();
    assertThat(outages.recovered(outages.failures(), Instant.EPOCH, Duration.ofSeconds(15)))
        .isTrue();
    assertThat(outages.degraded()).isFalse();
  }

  @Test
  void aGrantAnsweredWhileDegradedIsLateWhenEverItWasSent() {
    outages.failed();
    assertThat(outages.degraded()).isTrue();
    assertThat(outages.late(outages.mark(0), 0)).isTrue();
  }

  @Test
  void whileDegradedALateGrantAdmitsOnlyWhileTheProcesssShareHasRoom() {
    // 96 of T = 100 active: the process's share of the free slots is 4
    RoomWorker shard = worker(COUNTERS, activeOfHundred(96));
    RoomWorker fallback = fallbackBeside(shard, 96);
    outages.failed();

    Decision first = late(shard, fallback, true);
    assertThat(first).isInstanceOf(Decision.Admit.class);
    assertThat(shard.admittedSinceState()).as("counted in the share").isEqualTo(1);
    int byFallback = 0;
    for (int i = 0; i < 10; i++) {
      if (fallback.decide(null, NOW) instanceof Decision.Admit) {
        byFallback++;
      }
    }
    assertThat(byFallback).as("the share less the late grant").isEqualTo(3);

    assertThat(late(shard, fallback, true))
        .as("the share is spent: the grant's user waits, first in the queue")
        .isInstanceOf(Decision.Queue.class);
  }

  @Test
  void onceRecoveredALateGrantAdmitsNobody() {
    RoomWorker shard = worker(COUNTERS, activeOfHundred(0));
    RoomWorker fallback = fallbackBeside(shard, 0);
    outages.failed();
    outages.recovered(outages.failures(), Instant.EPOCH, Duration.ofSeconds(15));

    assertThat(fallback.shareHasRoom(NOW)).isTrue();
    assertThat(late(shard, fallback, true)).isInstanceOf(Decision.Queue.class);
  }

  @Test
  void aLateGrantToAWorkerOfAnEarlierConfigurationAdmitsNobody() {
    RoomWorker shard = worker(COUNTERS, activeOfHundred(0));
    RoomWorker fallback = fallbackBeside(shard, 0);
    outages.failed();

    assertThat(late(shard, fallback, false)).isInstanceOf(Decision.Queue.class);
  }

  /** The process's degraded fallback from the same state, its share covering {@code shard}. */
  private static RoomWorker fallbackBeside(RoomWorker shard, long active) {
    return worker(EVEN, activeOfHundred(active)).withoutCoordinator(shard::admittedSinceState);
  }

  /** A new user's counter draw on {@code shard}, granted late. */
  private Decision late(RoomWorker shard, RoomWorker fallback, boolean current) {
    Decision.Draw draw = RoomWorkerTest.nothingLateElsewhere(shard, shard.decide(null, NOW), NOW);
    return outages.settleLateGrant(
        shard, current, fallback, draw, new Grant(M, draw.limit() - 1, true), NOW);
  }
}
