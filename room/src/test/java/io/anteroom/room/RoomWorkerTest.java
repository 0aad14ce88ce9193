package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RoomWorkerTest {
    static final Instant NOW = at("2026-01-01T10:00:10Z");
    static final long M = Minutes.minuteOf(NOW);
    static final RoomConfig COUNTERS = Fixtures.room(100, 100).build();
    static final RoomConfig EVEN = COUNTERS.withStrategy(Strategy.EVEN_SPLIT);

    /** A state of this minute: the given buckets, nobody active, the history minute all in "dc" (100 users). */
    static RoomState state(List<BucketState> buckets, long freeSlots) {
        TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
        history.put(M - 2, Map.of("dc", 100L));
        return new RoomState("dc", NOW, M, new TreeMap<>(), 0, 0, 0, buckets, history, 1, 1, 30, 0, freeSlots,
                new MinutePool(M, freeSlots, 100, 0));
    }

    static RoomWorker worker(RoomConfig config, RoomState state) {
        RoomWorker w = new RoomWorker(config, "dc", "w1", NOW.minusSeconds(30));
        w.applyState(state);
        return w;
    }

    static Ticket waiting(long bucket, Instant lastCheckIn, long key) {
        return new Ticket("shop", bucket, lastCheckIn, null, key);
    }

    @Test
    void newUserBehindABucketWithoutSlotsIsQueuedInTheCurrentMinute() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));

        Decision d = w.decide(null, NOW);

        assertThat(d).isInstanceOf(Decision.Queue.class);
        assertThat(d.ticket().bucketId()).isEqualTo(M);
        assertThat(d.ticket().acceptedAt()).isNull();
    }

    @Test
    void newUserBehindAPartialBucketIsQueued() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 5)), 5));

        assertThat(w.decide(null, NOW)).isInstanceOf(Decision.Queue.class);
    }

    @Test
    void newUserBehindOnlyWholeBucketsDrawsFromWhatTheyLeave() {
        RoomWorker w = worker(COUNTERS, state(List.of(new BucketState(M - 3, 10, 10)), 30));

        Decision d = w.decide(null, NOW);

        assertThat(d).isInstanceOf(Decision.Draw.class);
        Decision.Draw draw = (Decision.Draw) d;
        assertThat(draw.counter()).isEqualTo(CounterKey.dataCenter("shop", "dc", M));
        assertThat(draw.limit()).isEqualTo(20);   // G' = 30 - 10 reserved for the whole bucket
    }

    @Test
    void wholeBucketUserIsAdmittedAtOnceFromAnyDataCenterAndCountedAsAWholeBucketAdmission() {
        RoomWorker w = new RoomWorker(COUNTERS, "elsewhere", "w9", NOW);
        w.applyState(state(List.of(new BucketState(M - 3, 10, 10)), 10));
        long key = Counting.refreshSlotKey(NOW.minusSeconds(20), COUNTERS);

        Decision d = w.decide(waiting(M - 3, NOW.minusSeconds(20), key), NOW);

        assertThat(d).isInstanceOf(Decision.Admit.class);
        assertThat(((Decision.Admit) d).reason()).isEqualTo(Decision.AdmitReason.WHOLE_BUCKET);
        assertThat(d.ticket().bucketId()).isEqualTo(M - 3);
        assertThat(d.ticket().acceptedAt()).isEqualTo(NOW);
        Deltas deltas = w.report(NOW).deltas();
        assertThat(deltas.wholeBucketAdmissionsByMinute()).containsExactly(Map.entry(M, 1L));
        assertThat(deltas.admissionsByMinute()).containsExactly(Map.entry(M, 1L));
    }

    @Test
    void wholeBucketSlotsStayReservedAfterTheirAdmissionsAreReported() {
        RoomState before = state(List.of(new BucketState(M - 3, 10, 10)), 30);
        RoomState after = new RoomState("dc", NOW.plusSeconds(5), M, new TreeMap<>(), 4, 4, 4,
                List.of(new BucketState(M - 3, 6, 6)), before.trafficHistory(), 1, 1, 30, 0, 26, before.pool());

        RoomWorker early = worker(COUNTERS, before);
        RoomWorker late = worker(COUNTERS, after);

        assertThat(((Decision.Draw) early.decide(null, NOW)).limit()).isEqualTo(20);
        assertThat(((Decision.Draw) late.decide(null, NOW.plusSeconds(6))).limit()).isEqualTo(20);
    }

    @Test
    void partialBucketUserDrawsLikeANewUser() {
        RoomWorker w = worker(COUNTERS, state(List.of(new BucketState(M - 3, 10, 4)), 4));
        Ticket t = waiting(M - 3, NOW.minusSeconds(20), 1);

        Decision d = w.decide(t, NOW);

        assertThat(d).isInstanceOf(Decision.Draw.class);
        assertThat(((Decision.Draw) d).limit()).isEqualTo(4);
    }

    @Test
    void waitingUserWhoseBucketHasNoSlotsKeepsWaitingInItsBucket() {
        RoomWorker w = worker(COUNTERS, state(List.of(new BucketState(M - 3, 10, 0)), 0));

        Decision d = w.decide(waiting(M - 3, NOW.minusSeconds(20), 1), NOW);

        assertThat(d).isInstanceOf(Decision.Queue.class);
        assertThat(d.ticket().bucketId()).isEqualTo(M - 3);
    }

    @Test
    void waitingUserOfABucketUnknownToTheStateIsTreatedAsANewUserOfThatBucket() {
        RoomWorker open = worker(EVEN, state(List.of(), 50));
        Decision admitted = open.decide(waiting(M - 1, NOW.minusSeconds(20), 1), NOW);
        assertThat(admitted).isInstanceOf(Decision.Admit.class);
        assertThat(admitted.ticket().bucketId()).isEqualTo(M - 1);

        RoomWorker blocked = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
        Decision queued = blocked.decide(waiting(M - 1, NOW.minusSeconds(20), 1), NOW);
        assertThat(queued).isInstanceOf(Decision.Queue.class);
        assertThat(queued.ticket().bucketId()).isEqualTo(M - 1);
    }

    @Test
    void waitingUserOfTheCurrentMinutesBucketDrawsLikeANewUser() {
        RoomWorker w = worker(COUNTERS, state(List.of(new BucketState(M - 3, 10, 10), new BucketState(M, 40, 0)), 30));

        Decision d = w.decide(waiting(M, NOW.minusSeconds(5), 1), NOW);

        assertThat(d).isInstanceOf(Decision.Draw.class);
        assertThat(((Decision.Draw) d).limit()).isEqualTo(20);
    }

    @Test
    void waitingTicketPastTheQueueTimeoutLosesItsBucket() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 8, 10, 0)), 0));

        Decision d = w.decide(waiting(M - 8, NOW.minusSeconds(301), 1), NOW);

        assertThat(d.ticket().bucketId()).isEqualTo(M);
    }

    @Test
    void admittedTicketIsRenewedAndMovesToItsNewExpiryMinuteOnce() {
        RoomWorker w = worker(EVEN, state(List.of(), 0));
        Ticket admitted = new Ticket("shop", M - 4, NOW.minusSeconds(90), NOW.minusSeconds(200), 0);

        Decision d = w.decide(admitted, NOW);
        Decision again = w.decide(d.ticket(), NOW.plusSeconds(5));

        assertThat(d).isEqualTo(new Decision.Admit(
                new Ticket("shop", M - 4, NOW, NOW.minusSeconds(200), 0), Decision.AdmitReason.SESSION));
        assertThat(again).isInstanceOf(Decision.Admit.class);
        Deltas deltas = w.report(NOW).deltas();
        assertThat(deltas.activeByExpiryMinute()).containsExactly(Map.entry(M + 8, -1L), Map.entry(M + 10, 1L));
        assertThat(deltas.admissionsByMinute()).isEmpty();
    }

    @Test
    void expiredAdmittedTicketMakesTheUserNew() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
        Ticket stale = new Ticket("shop", M - 20, NOW.minusSeconds(600), NOW.minusSeconds(900), 0);

        Decision d = w.decide(stale, NOW);

        assertThat(d).isInstanceOf(Decision.Queue.class);
        assertThat(d.ticket().bucketId()).isEqualTo(M);
    }

    @Test
    void ticketOfAnotherRoomIsTreatedAsNoTicket() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
        Ticket other = new Ticket("blog", M - 20, NOW.minusSeconds(10), NOW.minusSeconds(100), 0);

        assertThat(w.decide(other, NOW)).isInstanceOf(Decision.Queue.class);
    }

    @Test
    void trafficCountsAUserOncePerMinuteOnItsFirstRequest() {
        RoomWorker w = worker(EVEN, state(List.of(), 50));
        Decision first = w.decide(null, NOW);
        w.decide(first.ticket(), NOW.plusSeconds(5));
        w.decide(first.ticket(), NOW.plusSeconds(70));
        w.decide(null, NOW.plusSeconds(1));

        assertThat(w.report(NOW.plusSeconds(70)).deltas().trafficByMinute())
                .containsExactly(Map.entry(M, 2L), Map.entry(M + 1, 1L));
    }

    @Test
    void aRefreshMovesTheWaitingUserToItsNewKeyAndARepeatInTheSameSlotChangesNothing() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 10, 0)), 0));
        Decision.Queue first = (Decision.Queue) w.decide(null, NOW);
        long k1 = first.ticket().refreshSlotKey();
        Decision.Queue sameSlot = (Decision.Queue) w.decide(first.ticket(), NOW.plusSeconds(5));
        Decision.Queue nextSlot = (Decision.Queue) w.decide(sameSlot.ticket(), NOW.plusSeconds(20));
        long k2 = nextSlot.ticket().refreshSlotKey();

        assertThat(sameSlot.ticket().refreshSlotKey()).isEqualTo(k1);
        assertThat(k2).isEqualTo(k1 + 1);
        assertThat(w.report(NOW).deltas().waitingByBucket()).containsExactly(Map.entry(M, new TreeMap<>(Map.of(k2, 1L))));
    }

    @Test
    void anAdmittedWaitingUserLeavesItsKeyAndCountsAsAnAdmission() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 1, 1)), 10));
        long key = Counting.refreshSlotKey(NOW.minusSeconds(20), EVEN);

        Decision d = w.decide(waiting(M - 3, NOW.minusSeconds(20), key), NOW);

        assertThat(d).isInstanceOf(Decision.Admit.class);
        Deltas deltas = w.report(NOW).deltas();
        assertThat(deltas.waitingByBucket().get(M - 3)).containsExactly(Map.entry(key, -1L));
        assertThat(deltas.admissionsByMinute()).containsExactly(Map.entry(M, 1L));
        assertThat(deltas.activeByExpiryMinute()).containsExactly(Map.entry(M + 10, 1L));
    }

    @Test
    void countersFallBackToAnywhereWhenTheDataCenterCounterRefuses() {
        TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
        history.put(M - 2, Map.of("dc", 20L, "other", 30L));
        RoomState s = new RoomState("dc", NOW, M, new TreeMap<>(), 0, 0, 0, List.of(), history, 1, 2, 0, 0, 100,
                new MinutePool(M, 100, 100, 0));
        RoomWorker w = worker(COUNTERS, s);

        Decision.Draw dc = (Decision.Draw) w.decide(null, NOW);
        assertThat(dc.limit()).isEqualTo(20);
        Decision.Draw anywhere = (Decision.Draw) w.onCounterReply(dc, new Grant(M, 20, false), NOW);
        assertThat(anywhere.counter()).isEqualTo(CounterKey.anywhere("shop", M));
        assertThat(anywhere.limit()).isEqualTo(50);
        Decision admitted = w.onCounterReply(anywhere, new Grant(M, 0, true), NOW);
        assertThat(((Decision.Admit) admitted).reason()).isEqualTo(Decision.AdmitReason.ANYWHERE_SLOT);
        Decision refused = w.onCounterReply(anywhere, new Grant(M, 50, false), NOW);
        assertThat(refused).isInstanceOf(Decision.Queue.class);
    }

    @Test
    void aDataCenterWithoutHistoryAdmitsThroughAnywhereSlotsOnly() {
        TreeMap<Long, Map<String, Long>> history = new TreeMap<>();
        history.put(M - 2, Map.of("dc", 50L));
        RoomState s = new RoomState("dc", NOW, M, new TreeMap<>(), 0, 0, 0, List.of(), history, 1, 2, 0, 0, 40,
                new MinutePool(M, 40, 100, 0));
        RoomWorker delhi = new RoomWorker(COUNTERS, "delhi", "d1", NOW);
        delhi.applyState(s);

        Decision.Draw draw = (Decision.Draw) delhi.decide(null, NOW);

        assertThat(draw.counter().isAnywhere()).isTrue();
        assertThat(draw.limit()).isEqualTo(20);   // 40 - floor(40 × 50 / 100) for "dc"
    }

    @Test
    void aStateUpdateLaterInTheMinuteNeverRegrantsWhatWasSpent() {
        RoomWorker w = worker(EVEN, state(List.of(), 3));
        for (int i = 0; i < 3; i++) {
            assertThat(w.decide(null, NOW)).isInstanceOf(Decision.Admit.class);
        }
        w.applyState(new RoomState("dc", NOW.plusSeconds(5), M, new TreeMap<>(), 0, 0, 0, List.of(),
                state(List.of(), 3).trafficHistory(), 1, 1, 30, 0, 10, new MinutePool(M, 10, 100, 0)));

        assertThat(w.decide(null, NOW.plusSeconds(6))).isInstanceOf(Decision.Queue.class);
    }

    @Test
    void anOlderStateDoesNotReplaceANewerOne() {
        RoomWorker w = worker(EVEN, state(List.of(), 3));
        RoomState older = RoomState.initial(EVEN, "dc", NOW.minusSeconds(10));

        w.applyState(older);

        assertThat(w.state().asOf()).isEqualTo(NOW);
    }

    @Test
    void aQueuedUserSeesTheEstimateAndItsSpread() {
        RoomWorker w = worker(EVEN, state(List.of(new BucketState(M - 3, 30, 0), new BucketState(M, 30, 0)), 0));

        Decision.Queue q = (Decision.Queue) w.decide(null, NOW);

        assertThat(q.estimate().ahead()).isEqualTo(60);
        assertThat(q.estimate().minutes()).isEqualTo(2.0);
        assertThat(q.estimate().p25()).isEqualTo(1.25);
        assertThat(q.estimate().p50()).isEqualTo(1.5);
        assertThat(q.estimate().p75()).isEqualTo(1.75);
    }
}
