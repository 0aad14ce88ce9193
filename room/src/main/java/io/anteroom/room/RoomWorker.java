package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;

/**
 * One admission point of a room (a gateway process, one event-loop shard of it, or a simulated worker): decides on
 * each request with the {@link RoomState} it holds, records what it decided as deltas, and hands them out as
 * {@link WorkerReport}s. Pure and deterministic: time comes in as {@code now}, counters are called by the caller.
 *
 * <p>Invariants: all methods are {@code synchronized}, so decisions and the pending deltas they record are
 * serialized; a decision's deltas are recorded exactly when it becomes final ({@link Decision.Admit} or
 * {@link Decision.Queue}); the pool of a minute is fixed at the worker's first decision in that minute and never
 * grows except by its refill; nothing here blocks or does I/O.
 *
 * <pre>{@code
 * RoomWorker worker = new RoomWorker(config, "dublin", "gw-1", now);
 * worker.applyState(stateFromCoordinator);
 * Decision d = worker.decide(ticketOrNull, now);
 * while (d instanceof Decision.Draw draw) {                      // counters strategy only
 *     Grant g = counters.take(draw.counter(), draw.limit());    // async in the gateway, an event in the simulator
 *     d = worker.onCounterReply(draw, g, now);
 * }
 * switch (d) { case Decision.Admit a -> proxy(a.ticket()); case Decision.Queue q -> queuePage(q.estimate()); ... }
 * coordinator.report(worker.report(now));                        // every workerReportInterval, also when idle
 * }</pre>
 */
public final class RoomWorker {
    private final RoomConfig config;
    private final String dataCenter;
    private final String workerId;
    private final SlotStrategy strategy;
    /** The worker's own admissions of new and partial-bucket users per minute (even split, utilization-scaled). */
    private final MinuteCounter local;
    private final Tally pending = new Tally();
    private RoomState state;
    private MinutePool pool;
    private long sequence;

    /**
     * @param config     the room
     * @param dataCenter the worker's data center
     * @param workerId   unique per worker and process lifetime (report ids are built from it)
     * @param now        now; the worker starts with {@link RoomState#initial} until a state is applied
     */
    public RoomWorker(RoomConfig config, String dataCenter, String workerId, Instant now) {
        this.config = config;
        this.dataCenter = dataCenter;
        this.workerId = workerId;
        this.strategy = SlotStrategy.of(config);
        this.local = new MinuteCounter(config.rules());
        this.state = RoomState.initial(config, dataCenter, now);
    }

    public RoomConfig config() {
        return config;
    }

    public String dataCenter() {
        return dataCenter;
    }

    public String workerId() {
        return workerId;
    }

    /** Replaces the held state, unless the given one is older than the held one. */
    public synchronized void applyState(RoomState newer) {
        if (!newer.asOf().isBefore(state.asOf())) {
            state = newer;
        }
    }

    public synchronized RoomState state() {
        return state;
    }

    /**
     * Decides on one request.
     *
     * @param ticket the user's ticket, or {@code null} when it had none (or it was invalid, expired or tampered)
     * @param now    the request's time
     * @return admit, queue, or draw from a counter first
     */
    public synchronized Decision decide(Ticket ticket, Instant now) {
        long m = Minutes.minuteOf(now);
        Ticket own = ticket != null && ticket.roomId().equals(config.roomId()) ? ticket : null;
        if (own == null || Minutes.minuteOf(own.lastCheckInTime()) != m) {
            pending.addTraffic(m, 1);
        }
        if (own != null && own.admitted()) {
            if (Duration.between(own.lastCheckInTime(), now).compareTo(config.sessionDuration()) < 0) {
                return renew(own, now);
            }
            return placeInQueue(null, m, now);
        }
        if (own != null && Duration.between(own.lastCheckInTime(), now).compareTo(config.queueTimeout()) < 0) {
            return placeInQueue(own, own.bucketId(), now);
        }
        // no ticket, or a waiting ticket past queueTimeout: a new user of this minute (its old key is released)
        return placeInQueue(own, m, now);
    }

    /**
     * Continues a decision with a counter's answer. Pass {@link Grant#unavailable} when the counter could not be
     * reached (a refusal).
     */
    public synchronized Decision onCounterReply(Decision.Draw draw, Grant grant, Instant now) {
        if (grant.granted()) {
            Decision.AdmitReason reason = draw.counter.isAnywhere()
                    ? Decision.AdmitReason.ANYWHERE_SLOT : Decision.AdmitReason.DATA_CENTER_SLOT;
            return admit(draw.prior, draw.bucketId, reason, now);
        }
        if (!draw.counter.isAnywhere() && draw.anywhereLimit > 0) {
            return new Decision.Draw(CounterKey.anywhere(config.roomId(), draw.counter.minute()), draw.anywhereLimit,
                    draw.prior, draw.bucketId, 0);
        }
        return queue(draw.prior, draw.bucketId, now);
    }

    /** The estimated wait of a user of {@code bucketId} with the held state. */
    public synchronized WaitEstimate estimateWait(long bucketId) {
        return WaitEstimator.estimate(state, bucketId, config.rules());
    }

    /** The deltas recorded since the previous report, as the next report (empty deltas make a heartbeat). */
    public synchronized WorkerReport report(Instant now) {
        WorkerReport r = new WorkerReport(workerId, ++sequence, dataCenter, now, pending.toDeltas());
        pending.clear();
        return r;
    }

    /** The pool of the current minute as this worker fixed it ({@code G(t)}'s parameters). */
    public synchronized MinutePool pool(Instant now) {
        return poolOf(Minutes.minuteOf(now));
    }

    private MinutePool poolOf(long m) {
        if (pool == null || pool.minute() != m) {
            pool = state.minute() == m && state.pool() != null && state.pool().minute() == m
                    ? state.pool() : MinutePool.of(m, state, config);
        }
        return pool;
    }

    /**
     * FIFO: whole buckets enter, the partial bucket draws, buckets without slots wait; unknown buckets, and the
     * bucket of the state's own minute (which gets no eligible slots), act as new users of their bucket.
     */
    private Decision placeInQueue(Ticket prior, long bucketId, Instant now) {
        BucketState own = bucketId < state.minute() ? state.bucket(bucketId).orElse(null) : null;
        if (own != null) {
            if (own.whole()) {
                return admitWhole(prior, bucketId, now);
            }
            return own.partial() ? drawShare(prior, bucketId, now) : queue(prior, bucketId, now);
        }
        for (BucketState older : state.buckets()) {
            if (older.bucketId() < bucketId && older.eligibleSlots() < older.waiting()) {
                return queue(prior, bucketId, now);
            }
        }
        return drawShare(prior, bucketId, now);
    }

    /**
     * Whole-bucket users enter at once, from any data center. They are counted in the ledger rather than on a
     * counter: the pool reserves {@code Σ waiting(whole) + wholeBucketAdmissions(m)} for them, a sum that an
     * admission does not change (it moves one user from the first term to the second in the same report), so new
     * users can never take their slots twice. (Drawing a number for them, as the spec first said, put their numbers
     * on the data center's counter while new users drew mostly on Anywhere: up to 1.6 × N per minute in model runs.)
     */
    private Decision admitWhole(Ticket prior, long bucketId, Instant now) {
        pending.addWholeBucketAdmission(Minutes.minuteOf(now), 1);
        return admit(prior, bucketId, Decision.AdmitReason.WHOLE_BUCKET, now);
    }

    /** New users and the partial bucket draw against {@code G'(t)}, split by traffic history, spent per strategy. */
    private Decision drawShare(Ticket prior, long bucketId, Instant now) {
        long m = Minutes.minuteOf(now);
        long reservedForWholeBuckets = state.minute() == m ? state.wholeBucketAdmissionsThisMinute() : 0;
        for (BucketState b : state.buckets()) {
            if (b.whole()) {
                reservedForWholeBuckets += b.waiting();
            }
        }
        long shared = Math.max(0, poolOf(m).available(now) - reservedForWholeBuckets);
        SlotSplit split = SlotMath.split(shared, state.trafficOf(m - config.historyLagMinutes()),
                config.totalActiveUsers(), dataCenter);
        double utilization = (double) Counting.activeUsers(state.activeByExpiryMinute(), now, config.rules())
                / config.totalActiveUsers();
        SlotStrategy.Allowance allowance = strategy.allowance(split, state.dataCenterWorkersActive(),
                state.globalWorkersActive(), utilization);
        return switch (allowance) {
            case SlotStrategy.Allowance.PerWorker w -> local.take(m, w.limit()).granted()
                    ? admit(prior, bucketId, Decision.AdmitReason.WORKER_SLOT, now)
                    : queue(prior, bucketId, now);
            case SlotStrategy.Allowance.ViaCounters c -> {
                if (c.dataCenterLimit() > 0) {
                    yield new Decision.Draw(CounterKey.dataCenter(config.roomId(), dataCenter, m),
                            c.dataCenterLimit(), prior, bucketId, c.anywhereLimit());
                }
                if (c.anywhereLimit() > 0) {
                    yield new Decision.Draw(CounterKey.anywhere(config.roomId(), m), c.anywhereLimit(), prior,
                            bucketId, 0);
                }
                yield queue(prior, bucketId, now);
            }
        };
    }

    private Decision renew(Ticket admitted, Instant now) {
        long oldExpiry = Minutes.minuteOf(admitted.lastCheckInTime().plus(config.sessionDuration()));
        long newExpiry = Minutes.minuteOf(now.plus(config.sessionDuration()));
        if (oldExpiry != newExpiry) {
            pending.addActive(oldExpiry, -1);
            pending.addActive(newExpiry, 1);
        }
        Ticket renewed = new Ticket(config.roomId(), admitted.bucketId(), now, admitted.acceptedAt(), 0);
        return new Decision.Admit(renewed, Decision.AdmitReason.SESSION);
    }

    private Decision admit(Ticket prior, long bucketId, Decision.AdmitReason reason, Instant now) {
        leaveWaiting(prior);
        pending.addAdmission(Minutes.minuteOf(now), 1);
        pending.addActive(Minutes.minuteOf(now.plus(config.sessionDuration())), 1);
        return new Decision.Admit(new Ticket(config.roomId(), bucketId, now, now, 0), reason);
    }

    private Decision queue(Ticket prior, long bucketId, Instant now) {
        long key = Counting.refreshSlotKey(now, config);
        boolean countedThere = prior != null && !prior.admitted() && prior.bucketId() == bucketId
                && prior.refreshSlotKey() == key;
        if (!countedThere) {
            leaveWaiting(prior);
            pending.addWaiting(bucketId, key, 1);
        }
        Ticket waiting = new Ticket(config.roomId(), bucketId, now, null, key);
        return new Decision.Queue(waiting, WaitEstimator.estimate(state, bucketId, config.rules()));
    }

    /**
     * Removes a waiting user from the key it was counted under. Also when that key already stopped counting: the user
     * came back, so it was not an abandonment.
     */
    private void leaveWaiting(Ticket prior) {
        if (prior != null && !prior.admitted() && prior.refreshSlotKey() != 0) {
            pending.addWaiting(prior.bucketId(), prior.refreshSlotKey(), -1);
        }
    }
}
