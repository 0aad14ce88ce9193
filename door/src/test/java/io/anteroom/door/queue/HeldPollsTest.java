package io.anteroom.door.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.BucketState;
import io.anteroom.room.MinutePool;
import io.anteroom.room.RoomState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Held polls: bounded, woken by the entry rule in the order held, settled once. */
class HeldPollsTest {
  private static final Object ROOM = new Object();
  private static final long B = 29_000_000L;

  private static RoomState state(long asOfMillis, long freeSlots, List<BucketState> buckets) {
    Instant at = Instant.ofEpochMilli(asOfMillis);
    return new RoomState(
        "dc",
        at,
        asOfMillis / 60_000,
        new TreeMap<>(),
        0,
        0,
        buckets,
        new TreeMap<Long, Map<String, Long>>(),
        1,
        1,
        10,
        0,
        freeSlots,
        (MinutePool) null);
  }

  @Test
  void aBucketIsWokenOnlyWhenTheFreeSlotsReachPastTheOlderBuckets() {
    var polls = new HeldPolls(10);
    var p = polls.hold(ROOM, B + 1, 0, () -> false);
    List<BucketState> older = List.of(new BucketState(B, 3, 3), new BucketState(B + 1, 2, 0));

    polls.onState(ROOM, state(1_000, 3, older));
    assertThat(p.outcome()).as("3 free slots, 3 older users waiting").isNotDone();

    polls.onState(ROOM, state(2_000, 4, older));
    assertThat(p.outcome()).isCompletedWithValue(true);
    assertThat(polls.held()).isZero();
  }

  @Test
  void aPausedRoomWakesNobody() {
    var polls = new HeldPolls(10);
    var p = polls.hold(ROOM, B, 0, () -> true);

    polls.onState(ROOM, state(1_000, 100, List.of()));

    assertThat(p.outcome()).isNotDone();
  }

  @Test
  void aPageThatShowsTheStateAlreadyIsNotWokenByItAndTheSameStateWakesOnce() {
    var polls = new HeldPolls(10);
    var current = polls.hold(ROOM, B, 5_000, () -> false);
    var first = polls.hold(ROOM, B, 1_000, () -> false);
    var second = polls.hold(ROOM, B, 1_000, () -> false);

    polls.onState(ROOM, state(5_000, 1, List.of()));
    polls.onState(ROOM, state(5_000, 1, List.of())); // the same state again

    assertThat(current.outcome()).as("its page shows this state").isNotDone();
    assertThat(first.outcome()).as("held first, one slot").isCompletedWithValue(true);
    assertThat(second.outcome()).as("the slot was offered already").isNotDone();
  }

  @Test
  void beyondTheBoundAPollIsRefusedAndAReleasedPlaceIsFreeAgain() {
    var polls = new HeldPolls(1);
    var p = polls.hold(ROOM, B, 0, () -> false);

    assertThat(polls.hold(ROOM, B, 0, () -> false)).isNull();
    p.release(); // timed out, or its client left
    p.release();

    assertThat(p.outcome()).isCompletedWithValue(false);
    assertThat(polls.held()).isZero();
    assertThat(polls.hold(ROOM, B, 0, () -> false)).isNotNull();
  }

  @Test
  void aReleasedPollIsNeverWokenAndTakesNoSlotFromOthers() {
    var polls = new HeldPolls(10);
    var gone = polls.hold(ROOM, B, 0, () -> false);
    var next = polls.hold(ROOM, B, 0, () -> false);
    gone.release();

    polls.onState(ROOM, state(1_000, 1, List.of()));

    assertThat(gone.outcome()).isCompletedWithValue(false);
    assertThat(next.outcome()).isCompletedWithValue(true);
  }

  @Test
  void zeroMeansThePushIsOff() {
    assertThat(new HeldPolls(0).hold(ROOM, B, 0, () -> false)).isNull();
  }

  @Test
  void aDeletedRoomIsForgottenAndItsHeldPollsAreSettledNotYet() {
    var polls = new HeldPolls(10);
    Object gone = new Object();
    var p = polls.hold(gone, B, 0, () -> false);
    var kept = polls.hold(ROOM, B, 0, () -> false);

    polls.forget(gone);

    assertThat(p.outcome()).isCompletedWithValue(false);
    assertThat(kept.outcome()).isNotDone();
    assertThat(polls.held()).isEqualTo(1);
    assertThat(polls.rooms()).isEqualTo(1);
    polls.onState(gone, state(1_000, 100, List.of()));
    assertThat(polls.rooms()).as("a late state of the gone room brings nothing back").isEqualTo(1);
  }
}
