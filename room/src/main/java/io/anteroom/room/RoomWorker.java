package io.anteroom.room;

import io.anteroom.room.history.ActivityByMinute;
import io.anteroom.room.history.MinuteActivity;
import io.anteroom.room.history.WaitHistogram;
import io.anteroom.room.slots.SlotSplit;
import io.anteroom.room.slots.SlotStrategy;
import io.anteroom.room.slots.StrategyKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One admission point of a room (a gateway process, one event-loop shard of it, or a simulated
 * worker): decides on each request with the {@link RoomState} it holds, records what it decided as
 * deltas, and hands them out as {@link WorkerReport}s. Pure and deterministic: time comes in as
 * {@code now}, counters are called by the caller.
 *
 * <p>Invariants: all methods that record something are {@code synchronized}, so decisions and the
 * pending deltas they record are serialized (an admitted user's request that counts nothing is
 * decided without the monitor: it reads only the fixed configuration and the thread-safe ledger); a
 * decision's deltas are recorded exactly when it becomes final ({@link Decision.Admit} or {@link
 * Decision.Queue}); the pool of a minute is fixed at the worker's first decision in that minute and
 * then changes only by its refill and by newer states of the minute (which release the in-flight
 * margin); nothing here blocks or does I/O.
 *
 * <pre>{@code
 * RoomWorker worker = new RoomWorker(config, "dublin", "gw-1", now);
 * worker.applyState(stateFromCoordinator);
 * Decision d = worker.decide(ticketOrNull, now);
 * while (d instanceof Decision.Draw draw) {                      // counters strategy only
 *     Grant g = counter.take(draw, now);    // async in the gateway, an event in the simulator
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
  private final TicketLedger ledger;
  private final RandomGenerator ids;
  private final DrawKeys draws;

  /** The worker's own count of the minute's admissions (even split, utilization-scaled). */
  private final MinuteCounter local;

  private final Tally pending = new Tally();

  /** What this worker saw since its last report, for the room's history. */
  private final ActivityByMinute activity = new ActivityByMinute();

  private RoomState state;

  /** Whether {@code state} came from a coordinator (not {@link RoomState#initial}). */
  private boolean coordinated;

  private MinutePool pool;

  /** The state {@code pool} was fixed or last revised from. */
  private RoomState poolFrom;

  private long sequence;

  /**
   * Whether this worker decides while the coordinator is unreachable ({@link #withoutCoordinator}).
   */
  private boolean withoutCoordinator;

  /**
   * A decision that waited longer than this for its counters was held up by a coordinator that was
   * away: its answer admits nobody near or after the end of the draw's minute ({@link
   * #onCounterReply}). Far above a counter call's latency (in-DC ~5 ms, Anywhere ~65 ms), below a
   * Raft election (1-2 s).
   */
  public static final Duration STALLED_DECISION = Duration.ofMillis(500);

  /** At most this many buckets' estimates are kept per state (tickets name a bucket each). */
  static final int MAX_CACHED_ESTIMATES = 4096;

  /** The wait estimates of {@link #estimatesFrom}, by bucket ({@link #estimate}). */
  private final java.util.Map<Long, WaitEstimate> estimates = new java.util.HashMap<>();

  private RoomState estimatesFrom;

  /** Admissions this worker made since the state it holds was applied. */
  private long admittedSinceState;

  /** A {@link #withoutCoordinator} worker's view of the process's other workers' admissions. */
  private LongSupplier othersSinceState = () -> 0;

  /** The outages of this worker's gateway ({@link #recoveringWith}); none by default. */
  private Outages outages = new Outages();

  /**
   * @param config the room
   * @param dataCenter the worker's data center
   * @param workerId unique per worker and process lifetime (report ids are built from it)
   * @param now now; the worker starts with {@link RoomState#initial} until a state is applied
   */
  public RoomWorker(RoomConfig config, String dataCenter, String workerId, Instant now) {
    this(
        config,
        dataCenter,
        workerId,
        now,
        new TicketLedger(),
        new SplittableRandom(seedOf(workerId)));
  }

  /**
   * A seed per worker id. Scrambled: {@link SplittableRandom}s whose seeds differ by a multiple of
   * its increment share one sequence, shifted (a worker's second id would be another's first).
   */
  private static long seedOf(String workerId) {
    long z = workerId.hashCode() + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }

  /**
   * @param ledger the ticket ids this admission point remembers, shared by all workers of the room
   *     in one process
   * @param ids where new ticket ids come from (unique enough that two users never share one; they
   *     are sealed in the cookie, so they need not be unpredictable)
   */
  public RoomWorker(
      RoomConfig config,
      String dataCenter,
      String workerId,
      Instant now,
      TicketLedger ledger,
      RandomGenerator ids) {
    this(config, dataCenter, workerId, now, ledger, ids, defaultDraws(config.roomId()));
  }

  /**
   * @param draws the keyed draws of random queueing and of the pre-queue shuffle (a secret per
   *     {@link Draw}); every worker of a room, in every process, must use the same key (or they
   *     disagree on the order)
   */
  public RoomWorker(
      RoomConfig config,
      String dataCenter,
      String workerId,
      Instant now,
      TicketLedger ledger,
      RandomGenerator ids,
      DrawKeys draws) {
    this.draws = draws;
    this.config = config;
    this.dataCenter = dataCenter;
    this.workerId = workerId;
    this.ledger = ledger;
    this.ids = ids;
    this.strategy = SlotStrategy.of(config.strategy(), config.curveFactor());
    this.local = new MinuteCounter(config.rules());
    this.state = RoomState.initial(config, dataCenter, now);
  }

  /**
   * A lottery keyed by the room id only, for callers without a secret (the simulator, tests): the
   * draws are still unpredictable to clients, whose ticket ids are sealed, but anyone who learns a
   * ticket id could compute them. Gateways pass a key derived from their ticket keys.
   */
  static DrawKeys defaultDraws(String roomId) {
    return DrawKeys.unkeyed("anteroom lottery " + roomId);
  }

  public RoomConfig config() {
    return config;
  }

  /**
   * Makes this worker the one that decides while the coordinator is unreachable ({@code failMode}
   * degrade), with an even split. No state comes in then, however long it lasts, so the minute's
   * pool is no bound: each new minute's pool, computed from the same old state, would offer the
   * same free slots again, and the pool of the state's own minute leaves out the admissions the
   * counters granted in it. Such a worker admits, in all, at most its even share of the free slots
   * the state held, {@code T - activeUsers(asOf)} split by traffic history, over every minute until
   * a newer state arrives; the per-minute rules still apply on top. Expiries after {@code asOf}
   * free nothing meanwhile: the users may have renewed their sessions at other gateways. Holding no
   * coordinator's state (one that counts no active worker, as {@link RoomState#initial}), it admits
   * nobody new: nothing is known to split.
   *
   * @return this worker
   */
  public synchronized RoomWorker withoutCoordinator() {
    return withoutCoordinator(() -> 0);
  }

  /**
   * As {@link #withoutCoordinator()}, for the one such worker of a process whose other workers drew
   * counters: the share is the process's, so it also covers what they admitted since the state this
   * worker holds. Their counter grants since then are nowhere in that state, and grants answered
   * once the coordinator had gone (a call that reached a new leader while others failed) would
   * otherwise come on top of the whole share: one user over T.
   *
   * @param othersSinceState the admissions the process's other workers made since they were given
   *     the state this worker holds ({@link #admittedSinceState}); called while this worker's
   *     monitor is held, so it must not wait for this worker
   * @return this worker
   */
  public synchronized RoomWorker withoutCoordinator(LongSupplier othersSinceState) {
    withoutCoordinator = true;
    this.othersSinceState = othersSinceState;
    return this;
  }

  /**
   * A worker of a gateway whose coordinator may become unreachable: after each recovery from an
   * outage ({@link Outages#recovered}), a decision that rests on the state alone admits nobody
   * until the state is as of {@link Outages#statesCountTheOutagesFrom()}: a whole-bucket user
   * without a number (the counter refused it, or no counter is asked), and a per-worker allowance
   * (even split, utilization-scaled). The others' degraded admissions are not in the state before
   * then, so the bucket that looks whole and the free slots a per-worker allowance splits may be
   * theirs; a counter's number is safe, since their charges are on the counters. The user keeps its
   * place (a whole-bucket user its whole-bucket place). Without this rule, users queued during an
   * outage that spanned a minute entered as whole-bucket users right after the recovery: 14 users
   * for T = 10 ({@code RecoveryAfterDegradeTest}).
   */
  public synchronized RoomWorker recoveringWith(Outages outages) {
    this.outages = outages;
    return this;
  }

  /**
   * Whether the held state counts every outage the gateway recovered from ({@link
   * #recoveringWith}).
   */
  private boolean stateCountsTheOutages() {
    return !state.asOf().isBefore(outages.statesCountTheOutagesFrom());
  }

  /** The admissions this worker made since it was given the state it holds. */
  public synchronized long admittedSinceState() {
    return admittedSinceState;
  }

  /**
   * For a worker deciding {@link #withoutCoordinator}: whether its share of the state's free slots
   * has room for one more admission at {@code now}, made by another worker of the process from a
   * counter grant that came back after the coordinator went away. The caller holds this worker's
   * monitor until that admission is made, so two such grants cannot both take the last place.
   */
  public synchronized boolean shareHasRoom(Instant now) {
    if (!withoutCoordinator) {
      throw new IllegalStateException("not a worker deciding without the coordinator");
    }
    return withinShareOfTheStatesFreeSlots();
  }

  public String dataCenter() {
    return dataCenter;
  }

  public String workerId() {
    return workerId;
  }

  /**
   * Replaces the held state, unless the given one is older than the held coordinator state (the
   * first coordinator state always replaces the initial one, whatever the two clocks say).
   */
  public synchronized void applyState(RoomState newer) {
    if (!coordinated || !newer.asOf().isBefore(state.asOf())) {
      if (newer != state) {
        admittedSinceState = 0;
      }
      state = newer;
      coordinated = true;
    }
  }

  public synchronized RoomState state() {
    return state;
  }

  /**
   * Decides on one request.
   *
   * @param ticket the user's ticket, or {@code null} when it had none (or it was invalid, expired
   *     or tampered)
   * @param now the request's time
   * @return admit, queue, or draw from a counter first
   */
  public Decision decide(Ticket ticket, Instant now) {
    Decision.Admit quiet = quietSession(ticket, now);
    return quiet != null ? quiet : decideCounting(ticket, now);
  }

  /**
   * An admitted user's request that counts nothing, decided without the worker's monitor: the
   * ticket is this room's, admitted, checked in this minute already (its traffic is counted), its
   * session runs and was not ended here, and its renewal moves no count ({@link
   * TicketLedger#countedThrough}). It reads only the worker's fixed configuration and the
   * thread-safe ledger, and records nothing, so it gives what {@link #decideCounting} would: the
   * same admission, the renewed ticket. Null when the request may count something.
   */
  private Decision.Admit quietSession(Ticket ticket, Instant now) {
    if (ticket == null
        || !ticket.admitted()
        || !ticket.roomId().equals(config.roomId())
        || Minutes.minuteOf(ticket.lastCheckInTime()) != Minutes.minuteOf(now)
        || !honoured(ticket, now)) {
      return null;
    }
    if (config.sessionRenewal()) {
      long newExpiry = Minutes.minuteOf(now.plus(config.sessionDuration()));
      if (!ledger.countedThrough(ticket.id(), expiryOf(ticket), newExpiry, Minutes.minuteOf(now))) {
        return null;
      }
    }
    return new Decision.Admit(renewed(ticket, now), Decision.AdmitReason.SESSION);
  }

  private synchronized Decision decideCounting(Ticket ticket, Instant now) {
    Ticket own = seen(ticket, now);
    if (own != null && own.admitted()) {
      return honoured(own, now) ? renew(own, now) : arrive(null, Minutes.minuteOf(now), now);
    }
    if (own != null) {
      switch (ledger.waitingStatus(own.id(), now)) {
        case JUST_ADMITTED -> {
          return hold(own);
        }
        case ADMITTED_BEFORE -> own = null; // a copy of a ticket admitted here: a new arrival
        case WAITING -> {}
      }
    }
    return arrive(own, bucketOf(own, now), now);
  }

  /**
   * A user without a running session, in its bucket: the event rules first (nobody new enters
   * before the event start; the pre-queue waits in its own bucket and, with a shuffle, moves to its
   * random place after the start), then the room's queue order.
   */
  private Decision arrive(Ticket own, long bucketId, Instant now) {
    EventWindow event = config.event();
    if (event != null && event.prequeueAt(now)) {
      return queue(own, event.shuffle() ? event.prequeueBucket() : bucketId, now);
    }
    if (event != null && event.shuffle() && own != null && bucketId == event.prequeueBucket()) {
      Draw shuffle = Draw.shuffle(config.roomId(), event);
      bucketId = event.placeBucket(shuffle.place(draws.lottery(shuffle), own.id()));
    }
    return config.queueOrder() == QueueOrder.RANDOM
        ? drawLots(own, bucketId, now)
        : placeInQueue(own, bucketId, now);
  }

  /**
   * Random queueing: while anyone waits, a waiting ticket may draw a slot in minute {@code m} only
   * when its lot of the minute ({@link Draw#lot} of the ticket id and {@code m}, under the secret
   * of the minute's hour) falls below {@code min(1, G / W)}, the minute's pool over the users
   * waiting; the lot is the same however often the ticket asks, and its chance does not depend on
   * its bucket. A user without a waiting ticket waits for its first lot (so starting over buys no
   * extra draws). Winners draw against the pool like new users, so the limits hold as with FIFO;
   * when nobody waits, users enter first come first served.
   */
  private Decision drawLots(Ticket own, long bucketId, Instant now) {
    long waiting = state.totalWaiting();
    if (waiting <= 0) {
      return draw(own, bucketId, false, now);
    }
    if (own == null) {
      return queue(null, bucketId, now);
    }
    long m = Minutes.minuteOf(now);
    double chance = Math.min(1.0, (double) poolOf(m).available(Minutes.startOf(m + 1)) / waiting);
    Draw hour = Draw.randomOfMinute(config.roomId(), m);
    return hour.lot(draws.lottery(hour), own.id(), m) < chance
        ? draw(own, bucketId, false, now)
        : queue(own, bucketId, now);
  }

  /**
   * A tab racing its own admission: the queue page again, with no ticket to set, so the admitted
   * cookie its jar now holds is not replaced; its next refresh brings that cookie. Counts nothing.
   */
  private Decision.Queue hold(Ticket racing) {
    return new Decision.Queue(null, estimate(racing.bucketId()));
  }

  /**
   * Queues the user whatever the slots (an operator's "queue everyone" switch), counting it as
   * waiting in its bucket like any queued user, and never drawing or admitting. Meant for users
   * without a valid admitted ticket; an admitted ticket passed here is queued as a new user (its
   * session stays counted until it expires).
   */
  public synchronized Decision.Queue holdInQueue(Ticket ticket, Instant now) {
    Ticket own = seen(ticket, now);
    Ticket waiting = own != null && !own.admitted() ? own : null;
    if (waiting != null) {
      switch (ledger.waitingStatus(waiting.id(), now)) {
        case JUST_ADMITTED -> {
          return hold(waiting);
        }
        case ADMITTED_BEFORE -> waiting = null;
        case WAITING -> {}
      }
    }
    return queue(waiting, bucketOf(waiting, now), now);
  }

  /**
   * Ends an admitted user's session now (a logout, a revoked ticket): its slot is released at once
   * instead of when its expiry minute passes. Returns false (and changes nothing) when the ticket
   * is not a valid admitted ticket of this room, or when its session was ended here already (a
   * replayed logout frees nothing). The ticket is not honoured here afterwards: its next request is
   * a new user's.
   */
  public synchronized boolean endSession(Ticket ticket, Instant now) {
    if (!hasRunningSession(ticket, now)) {
      return false;
    }
    long from = ledger.revoke(ticket.id(), expiryOf(ticket), now);
    if (from == TicketLedger.NOTHING) {
      return false;
    }
    pending.addActive(from, -1);
    activity.add(Minutes.minuteOf(now), new MinuteActivity(0, 0, 1, 0, 0, null));
    return true;
  }

  /**
   * Gives back an admission this process just made ({@code admitted}, of the waiting ticket {@code
   * waiting}) that must not stand: one account's place let in by two gateways, or a place whose
   * admission could not be checked. Its slot is free again at once (its active count and its
   * admission are taken back; the counter number it drew stays spent: a newcomer fewer in that
   * minute at worst, never one more), and the ledger forgets it. With {@code waiting}, the user
   * waits again in its bucket, counted as waiting, and keeps its id (the answer to give); without,
   * or when it was given back already, null. The minute's activity history still shows the
   * admission.
   */
  public synchronized Decision.Queue giveBack(Ticket admitted, Ticket waiting, Instant now) {
    long from = ledger.forgetAdmission(admitted.id(), expiryOf(admitted), now);
    if (from == TicketLedger.NOTHING) {
      return null; // given back already
    }
    pending.addActive(from, -1);
    pending.addAdmission(Minutes.minuteOf(admitted.acceptedAt()), -1);
    if (admittedSinceState > 0) {
      admittedSinceState--;
    }
    if (waiting == null || waiting.admitted() || !waiting.roomId().equals(config.roomId())) {
      return null;
    }
    if (waiting.refreshSlotKey() != 0) {
      pending.addWaiting(waiting.bucketId(), waiting.refreshSlotKey(), 1); // as before admit()
    }
    return queue(waiting, bucketOf(waiting, now), now);
  }

  /**
   * An admitted user's first request after its admission reached the origin (the door passed it
   * with the signed pass): counted for the room's reports ({@code passesUsed}; admissions without
   * one are no-shows). The door calls it once per admission (see {@link Ticket#unused()}).
   */
  public synchronized void passUsed(Instant now) {
    activity.add(Minutes.minuteOf(now), MinuteActivity.PASS_USED);
  }

  /** The expiry minute a cookie says its admitted ticket is counted in. */
  private long expiryOf(Ticket admitted) {
    return Minutes.minuteOf(sessionStart(admitted).plus(config.sessionDuration()));
  }

  /**
   * Whether a request with {@code ticket} would be given a new identity (a new ticket id) by {@link
   * #decide}: no ticket (or another room's), an admitted ticket whose session is over or was ended
   * (a logout, a revocation), or a copy of a waiting ticket that was admitted here before. A
   * waiting ticket keeps its id (even past {@code queueTimeout}), and so does a tab racing its own
   * admission. Counts nothing: the door asks this before deciding, so that every new identity costs
   * what the door's checks cost (proof of work), whatever cookie the request brought.
   */
  public boolean startsOver(Ticket ticket, Instant now) {
    if (ticket == null || !ticket.roomId().equals(config.roomId())) {
      return true;
    }
    if (ticket.admitted()) {
      return !honoured(ticket, now);
    }
    return ledger.waitingStatus(ticket.id(), now) == TicketLedger.WaitingStatus.ADMITTED_BEFORE;
  }

  /**
   * Whether {@code ticket} is an admitted ticket of this room whose session is still running at
   * {@code now} (the session rule {@link #decide} applies). Counts nothing: for callers that must
   * honour a running session without deciding, such as a queue-all switch that keeps admitted users
   * in.
   */
  public boolean hasRunningSession(Ticket ticket, Instant now) {
    return ticket != null
        && ticket.roomId().equals(config.roomId())
        && ticket.admitted()
        && honoured(ticket, now);
  }

  /** An admitted ticket's session is running and was not ended here. */
  private boolean honoured(Ticket admitted, Instant now) {
    return sessionValid(admitted, now) && !ledger.revoked(admitted.id());
  }

  /**
   * The ticket if it is this room's, counting the user's traffic on its first request of the
   * minute.
   */
  private Ticket seen(Ticket ticket, Instant now) {
    long m = Minutes.minuteOf(now);
    Ticket own = ticket != null && ticket.roomId().equals(config.roomId()) ? ticket : null;
    if (own == null || Minutes.minuteOf(own.lastCheckInTime()) != m) {
      pending.addTraffic(m, 1);
    }
    return own;
  }

  private Instant sessionStart(Ticket admitted) {
    return config.sessionRenewal() ? admitted.lastCheckInTime() : admitted.acceptedAt();
  }

  private boolean sessionValid(Ticket admitted, Instant now) {
    return Duration.between(sessionStart(admitted), now).compareTo(config.sessionDuration()) < 0;
  }

  /**
   * A waiting ticket younger than {@code queueTimeout} keeps its bucket; anyone else is a new user
   * of this minute (a timed-out ticket's old key is still released when it is queued or admitted).
   */
  private long bucketOf(Ticket waiting, Instant now) {
    if (waiting != null
        && Duration.between(waiting.lastCheckInTime(), now).compareTo(config.queueTimeout()) < 0) {
      return waiting.bucketId();
    }
    return Minutes.minuteOf(now);
  }

  /**
   * Continues a decision with a counter's answer. Pass {@link Grant#unavailable} when the counter
   * could not be reached (a refusal).
   *
   * <p>An answer to a decision that waited longer than {@link #STALLED_DECISION} for it (a crowd
   * whose calls waited for a coordinator that was away, a new Raft leader, and are all answered at
   * once) admits nobody when it arrives in the last {@code W = r_w + 2 × r_dc} of its draw's minute
   * or later ({@link #refuse}: the user keeps its place and draws again at its next request). Such
   * a crowd is counted on a minute's counter, but the next minute's pool takes the sessions of
   * before from states that count an admission only {@code W} after it: 21 users for T = 20 in a
   * fresh-clone run of {@code ClusterWaitingRoomTest}, before the counters carried late admissions
   * ({@link Decision.Draw#carriedSince}); the rule stays for the data centers whose counters a
   * decision does not visit. Earlier in the minute the crowd is in every state before the next
   * minute starts; an answer of ordinary latency admits as always.
   *
   * @param now when the answer arrived
   */
  public synchronized Decision onCounterReply(Decision.Draw draw, Grant grant, Instant now) {
    if (draw.late != null) {
      return afterLateNumbers(draw, grant, now);
    }
    Instant unseenAtTheNextMinute =
        Minutes.startOf(draw.counter.minute() + 1).minus(config.propagationWindow());
    if (!now.isBefore(unseenAtTheNextMinute)
        && Duration.between(draw.decidedAt, now).compareTo(STALLED_DECISION) > 0) {
      return refuse(draw, now);
    }
    boolean carried = draw.carriedEarlier;
    if (draw.wholeBucket
        && !grant.granted()
        && (draw.counter.isAnywhere()
            || draw.anywhereLimit <= 0
            || !dataCenter.equals(draw.counter.dataCenter()))) {
      Decision.Draw elsewhere = anotherDataCentersNumber(draw);
      if (elsewhere != null) {
        return elsewhere;
      }
    }
    if (draw.wholeBucket
        && (grant.granted()
            || (!carried
                && stateCountsTheOutages()
                && (draw.counter.isAnywhere() || draw.anywhereLimit <= 0)))) {
      // the bucket's users were counted in the free slots that made it whole: they enter, also
      // when the numbers ran out (in-flight draws); at most as many as it counts (the ledger's
      // whole-bucket places), so copies of a ticket never enter this way. Not without a number
      // when the previous minute's late admissions, which the state that made the bucket whole
      // may not count, leave the pool without the whole buckets' slots (carriedEarlier); nor on
      // a state that may not count the other gateways' admissions of an outage (recoveringWith).
      return admit(
          draw.prior, draw.bucketId, Decision.AdmitReason.WHOLE_BUCKET, !grant.granted(), now);
    }
    if (grant.granted()) {
      Decision.AdmitReason reason =
          draw.wholeBucket
              ? Decision.AdmitReason.WHOLE_BUCKET
              : draw.counter.isAnywhere()
                  ? Decision.AdmitReason.ANYWHERE_SLOT
                  : Decision.AdmitReason.DATA_CENTER_SLOT;
      return admit(draw.prior, draw.bucketId, reason, false, now);
    }
    long anywhereLimit = draw.anywhereLimit;
    long beyondShare = Math.max(0, grant.number() + grant.carried() - draw.limit);
    if (!draw.wholeBucket && beyondShare > 0 && config.rules().consumeOnlyWhenGranted()) {
      // the data center gave more than this draw's share of the pool (to whole-bucket users, who
      // draw against all of G, or under a share that a newer state lowered): the Anywhere limit
      // leaves those numbers out, so that both counters together stay within this draw's pool.
      // (Where refusals consume numbers too, the number counts refusals, not admissions: the
      // published rules keep their limits.)
      anywhereLimit -= beyondShare;
    }
    if (!draw.counter.isAnywhere() && anywhereLimit > 0) {
      return new Decision.Draw(
          CounterKey.anywhere(config.roomId(), draw.counter.minute()),
          anywhereLimit,
          draw.prior,
          draw.bucketId,
          draw.wholeBucket,
          0,
          draw.decidedAt,
          null,
          carried,
          null,
          draw.wholeBucketPool);
    }
    return notAdmitted(draw.prior, draw.bucketId, draw.wholeBucket, now);
  }

  /**
   * A whole-bucket user refused by its data center's counter and the Anywhere counter (or by
   * another data center's) draws the next other data center's counter (by name) against that data
   * center's share of the pool it drew against; {@code null} when none is left.
   *
   * <p>Why: a whole bucket's slots are set aside in every data center's shares of the pool, and its
   * users take them where they come back. When more of them came to one data center than its part
   * of the bucket, the rest entered without a number, on no counter; a newer state of the minute
   * counts them among the sessions, and its smaller pool, split again, lowered every share, below
   * the numbers the data center's counter had given its whole-bucket users, while the other data
   * centers, which do not read that counter, gave their new shares in full (101 users for T = 100,
   * {@code MinuteBoundaryTest.wholeBucketUsersLetInWithoutANumberAreNotOfferedAgain}). Drawn from
   * the other data centers' counters, those entries are counted where their slots were set aside,
   * and a newer state's split finds them there. A user refused everywhere still enters (the spec's
   * rule), without a number. Only a user who would enter without a number draws them: one that
   * needs a number (the late numbers leave the pool without the whole buckets' slots, or the state
   * may not count an outage) waits as before. With those too, the simulator's steady peaks rose by
   * 0.4 % of T on seeds 1-5, against 0.1 % without.
   */
  private Decision.Draw anotherDataCentersNumber(Decision.Draw draw) {
    if (draw.wholeBucketPool < 0
        || !config.rules().consumeOnlyWhenGranted()
        || draw.carriedEarlier
        || !stateCountsTheOutages()) {
      return null; // it would not enter without a number either: it waits, as before
    }
    long m = draw.counter.minute();
    boolean ownOrAnywhere =
        draw.counter.isAnywhere() || dataCenter.equals(draw.counter.dataCenter());
    Map<String, Long> traffic = state.trafficOf(m - config.historyLagMinutes());
    for (String other : new java.util.TreeSet<>(traffic.keySet())) {
      if (other.equals(dataCenter)
          || (!ownOrAnywhere && other.compareTo(draw.counter.dataCenter()) <= 0)) {
        continue;
      }
      long limit =
          SlotMath.split(draw.wholeBucketPool, traffic, config.totalActiveUsers(), other)
              .dataCenterSlots();
      if (limit > 0) {
        return new Decision.Draw(
            CounterKey.dataCenter(config.roomId(), other, m),
            limit,
            draw.prior,
            draw.bucketId,
            true,
            0,
            draw.decidedAt,
            null,
            draw.carriedEarlier,
            null,
            draw.wholeBucketPool);
      }
    }
    return null;
  }

  /**
   * Queues the user of {@code draw} without a slot, whatever the counter answered and whatever kind
   * of draw it is: for a grant that must not admit (one answered after the coordinator went away,
   * beyond what the process may still admit). Unlike a refusal in {@link #onCounterReply}, a
   * whole-bucket user does not enter either; it gives its whole-bucket place back and keeps its
   * bucket, so it stays at the head of the queue.
   */
  public synchronized Decision.Queue refuse(Decision.Draw draw, Instant now) {
    return notAdmitted(draw.prior, draw.bucketId, draw.wholeBucket, now);
  }

  /** Queues a user that drew no slot; a whole-bucket user gives its whole-bucket place back. */
  private Decision.Queue notAdmitted(
      Ticket prior, long bucketId, boolean wholeBucket, Instant now) {
    if (wholeBucket) {
      ledger.returnWholeBucketPlace(bucketId);
    }
    return queue(prior, bucketId, now);
  }

  /** The estimated wait of a user of {@code bucketId} with the held state. */
  public synchronized WaitEstimate estimateWait(long bucketId) {
    return estimate(bucketId);
  }

  /**
   * The wait estimate of {@code bucketId} from the held state, computed once per state and bucket:
   * it depends on nothing else, and its forecast steps through up to a day of minutes, so every
   * queued user's refresh computing it again made the queue page twice as costly (and a flood of
   * refreshes cheap to send and dear to answer).
   */
  private WaitEstimate estimate(long bucketId) {
    if (estimatesFrom != state || estimates.size() >= MAX_CACHED_ESTIMATES) {
      estimates.clear();
      estimatesFrom = state;
    }
    WaitEstimate e = estimates.get(bucketId);
    if (e == null) {
      e = WaitEstimator.estimate(state, bucketId, config);
      estimates.put(bucketId, e);
    }
    return e;
  }

  /**
   * The deltas recorded since the previous report, as the next report (empty deltas make a
   * heartbeat).
   */
  public synchronized WorkerReport report(Instant now) {
    WorkerReport r =
        new WorkerReport(
            workerId, ++sequence, dataCenter, now, pending.toDeltas(), activity.snapshot());
    pending.clear();
    activity.clear();
    return r;
  }

  /**
   * Where to charge {@code admissions} made without counter grants ({@link Charge}): the counters
   * of the current minute, with the data center's share of the pool {@code G(t)} split by traffic
   * history as a counters-strategy draw would have it (whole buckets not set aside: those
   * admissions were spent against all of {@code G}).
   */
  public synchronized Charge charge(long admissions, Instant now) {
    long m = Minutes.minuteOf(now);
    SlotSplit split = split(poolOf(m).available(now), m);
    return new Charge(
        admissions,
        CounterKey.dataCenter(config.roomId(), dataCenter, m),
        split.dataCenterSlots(),
        CounterKey.anywhere(config.roomId(), m));
  }

  /** Whether the next {@link #report} would carry deltas or activity (more than a heartbeat). */
  public synchronized boolean hasSomethingToReport() {
    return !pending.isEmpty() || !activity.isEmpty();
  }

  /**
   * The pool this worker last fixed or revised ({@code G(t)}'s parameters), without fixing one: for
   * diagnostics ({@code null} before its first decision that needed one).
   */
  public synchronized MinutePool lastPool() {
    return pool;
  }

  /** The pool of the current minute as this worker fixed it ({@code G(t)}'s parameters). */
  public synchronized MinutePool pool(Instant now) {
    return poolOf(Minutes.minuteOf(now));
  }

  /**
   * Fixed at the worker's first decision of the minute (from the coordinator's pool when the held
   * state is of that minute); every newer state of the minute then revises its {@code R} and {@code
   * E} ({@link MinutePool#revisedBy}: the in-flight margin is released as the states catch up).
   */
  private MinutePool poolOf(long m) {
    if (pool == null || pool.minute() != m) {
      pool =
          state.minute() == m && state.pool() != null && state.pool().minute() == m
              ? state.pool()
              : MinutePool.of(m, state, config);
      poolFrom = state;
    } else if (poolFrom != state && state.minute() == m) {
      pool = pool.revisedBy(state, config);
      poolFrom = state;
    }
    return pool;
  }

  /**
   * FIFO: whole buckets enter, the partial bucket draws, buckets without slots wait; unknown
   * buckets, and the bucket of the state's own minute (which gets no eligible slots), act as new
   * users of their bucket.
   */
  private Decision placeInQueue(Ticket prior, long bucketId, Instant now) {
    BucketState own = bucketId < state.minute() ? state.bucket(bucketId).orElse(null) : null;
    if (own != null) {
      if (own.whole()) {
        // the bucket's count reserves its slots; beyond that count (copies of one ticket) users
        // draw like the partial bucket's
        return draw(
            prior, bucketId, ledger.takeWholeBucketPlace(bucketId, own.waiting(), now), now);
      }
      return own.partial() ? draw(prior, bucketId, false, now) : queue(prior, bucketId, now);
    }
    long waitingBefore = 0;
    for (BucketState older : state.buckets()) {
      // the state's own minute's bucket has no eligible slots by rule (SlotMath.eligible), not for
      // want of
      // slots: once that minute is over (a state from the previous minute) it blocks newer users
      // only if the
      // state's free slots would not have made it whole
      boolean blocks =
          older.bucketId() < state.minute()
              ? older.eligibleSlots() < older.waiting()
              : state.freeSlots() - waitingBefore < older.waiting();
      if (older.bucketId() < bucketId && blocks) {
        return queue(prior, bucketId, now);
      }
      waitingBefore += older.waiting();
    }
    return draw(prior, bucketId, false, now);
  }

  /**
   * Whether {@code b}, the bucket of the held state's own minute, would have been whole in minute
   * {@code m} after it: that state gives it no eligible slots (its own minute's bucket), but a
   * state of a later minute does, with the same free slots, and the bucket's users who come back to
   * a data center holding such a state enter as a whole bucket. It does not block new users then
   * ({@link #placeInQueue}, the same test), so its slots are set aside here as a whole bucket's:
   * otherwise a worker still holding the previous minute's state offered them to new users, whose
   * numbers then spent the counters before the bucket's users, refused there, entered without one
   * (14 users for T = 10, {@code
   * MinuteBoundaryTest.thePreviousMinutesBucketIsSetAsideByAWorkerStillHoldingThatMinutesState}).
   */
  private boolean wouldBeWhole(BucketState b, long waitingBefore, long m) {
    return b.bucketId() == state.minute()
        && state.minute() < m
        && state.freeSlots() - waitingBefore >= b.waiting();
  }

  /**
   * Draws against the minute's pool split by traffic history, spent per strategy. Whole-bucket
   * users draw against all of {@code G(t)}; new users and the partial bucket against {@code G'(t) =
   * G(t) - Σ waiting(whole)}, which leaves the whole buckets their slots. Every admission of the
   * minute is thus counted on the same counters (or the worker's own count), so no state, however
   * late, can hand a slot out twice.
   */
  private Decision draw(Ticket prior, long bucketId, boolean wholeBucket, Instant now) {
    long m = Minutes.minuteOf(now);
    long wholeBucketsWaiting = 0;
    // random queueing has no whole buckets: nobody's slots are set aside by arrival time
    if (config.queueOrder() == QueueOrder.FIFO) {
      long waitingBefore = 0;
      for (BucketState b : state.buckets()) {
        if (b.whole() || wouldBeWhole(b, waitingBefore, m)) {
          wholeBucketsWaiting += b.waiting();
        }
        waitingBefore += b.waiting();
      }
    }
    long reservedForWholeBuckets = wholeBucket ? 0 : wholeBucketsWaiting;
    long available = poolOf(m).available(now);
    SlotSplit split = split(Math.max(0, available - reservedForWholeBuckets), m);
    double utilization =
        (double) Counting.activeUsers(state.activeByExpiryMinute(), now, config.rules())
            / config.totalActiveUsers();
    SlotStrategy.Allowance allowance =
        strategy.allowance(
            split, state.dataCenterWorkersActive(), state.globalWorkersActive(), utilization);
    return switch (allowance) {
      case SlotStrategy.Allowance.PerWorker w -> {
        if (!withinShareOfTheStatesFreeSlots() || !stateCountsTheOutages()) {
          yield notAdmitted(prior, bucketId, wholeBucket, now);
        }
        boolean counted = local.take(m, w.limit()).granted();
        yield counted || wholeBucket
            ? admit(
                prior,
                bucketId,
                wholeBucket ? Decision.AdmitReason.WHOLE_BUCKET : Decision.AdmitReason.WORKER_SLOT,
                !counted,
                now)
            : notAdmitted(prior, bucketId, wholeBucket, now);
      }
      case SlotStrategy.Allowance.ViaCounters c -> {
        boolean asksDataCenter = c.dataCenterLimit() > 0 || config.rules().consumeOnlyWhenGranted();
        List<String> toAsk =
            wholeBucket || asksDataCenter || c.anywhereLimit() > 0 ? countersToAsk(m) : List.of();
        if (!toAsk.isEmpty()) {
          yield askForLateNumbers(
              new Decision.Draw.LateNumbers(poolOf(m), wholeBucketsWaiting, toAsk, 0),
              prior,
              bucketId,
              wholeBucket,
              m,
              now,
              carriedSince());
        }
        yield firstDraw(
            prior,
            bucketId,
            wholeBucket,
            m,
            c.dataCenterLimit(),
            asksDataCenter,
            c.anywhereLimit(),
            now,
            now,
            false,
            available);
      }
    };
  }

  /**
   * The decision's first draw for a number: its data center's counter (when it has a share, or is
   * asked for its count), else the Anywhere counter, else a whole-bucket user enters without a
   * number (unless {@code carried}: the late numbers the decision's questions found leave the pool
   * without the whole buckets' slots), else the user waits. A draw for a number carries nothing
   * ({@code carriedSince} null): its limits count the minute's numbers only.
   */
  private Decision firstDraw(
      Ticket prior,
      long bucketId,
      boolean wholeBucket,
      long m,
      long dataCenterLimit,
      boolean asksDataCenter,
      long anywhereLimit,
      Instant decidedAt,
      Instant now,
      boolean carried,
      long pool) {
    long wholeBucketPool = wholeBucket ? pool : -1;
    if (asksDataCenter) {
      return new Decision.Draw(
          CounterKey.dataCenter(config.roomId(), dataCenter, m),
          dataCenterLimit,
          prior,
          bucketId,
          wholeBucket,
          anywhereLimit,
          decidedAt,
          null,
          carried,
          null,
          wholeBucketPool);
    }
    if (anywhereLimit > 0) {
      return new Decision.Draw(
          CounterKey.anywhere(config.roomId(), m),
          anywhereLimit,
          prior,
          bucketId,
          wholeBucket,
          0,
          decidedAt,
          null,
          carried,
          null,
          wholeBucketPool);
    }
    return wholeBucket && !carried && stateCountsTheOutages()
        ? admit(prior, bucketId, Decision.AdmitReason.WHOLE_BUCKET, true, now)
        : notAdmitted(prior, bucketId, wholeBucket, now);
  }

  /**
   * The counters a draw of minute {@code m} asks first what they carry of the previous minute:
   * every data center of the state's traffic history (this one included) and the Anywhere counter
   * ({@link CounterKey#ANYWHERE}), when the counters carry late admissions and the pool's state may
   * miss part of the previous minute (its {@code carriedSince} lies before the minute); otherwise
   * none.
   *
   * <p>Why: the pool's state does not count the previous minute's admissions after {@code
   * carriedSince}; each counter carries only its own of them. The decision takes their sum, {@code
   * L}, off the pool's {@code R} before the pool is split ({@link #afterLateNumbers}), so that its
   * shares are the ones a state that counts them will give: every decision of the minute, early or
   * late, splits the same pool. Subtracting each counter's late numbers from its own share instead
   * left the shares of a state that does not count them: when a newer state counted them, every
   * share fell, and a counter that had given its old share was above its new one while the others
   * gave theirs again (13 users for T = 10, {@code
   * MinuteBoundaryTest.aShareThatFellAtAnotherDataCenterIsNotOfferedAgain}); and a counter's late
   * numbers beyond its share were subtracted nowhere else (11 and 12 users for T = 10 in the fault
   * suite after a failover, 22 for T = 20 and 19 for T = 10 in the room core's reproductions).
   */
  private List<String> countersToAsk(long m) {
    Instant since = carriedSince();
    if (since == null || !since.isBefore(Minutes.startOf(m))) {
      return List.of();
    }
    java.util.SortedSet<String> dataCenters = new java.util.TreeSet<>();
    for (Map<String, Long> minute : state.trafficHistory().values()) {
      dataCenters.addAll(minute.keySet());
    }
    dataCenters.add(dataCenter);
    List<String> counters = new ArrayList<>(dataCenters);
    counters.add(CounterKey.ANYWHERE);
    return List.copyOf(counters);
  }

  /**
   * Asks the next counter of {@code late.left()} for its late numbers: a draw of limit 0 there,
   * which grants and consumes nothing and answers what that counter carries of the previous minute
   * for {@code carriedSince}.
   */
  private Decision.Draw askForLateNumbers(
      Decision.Draw.LateNumbers late,
      Ticket prior,
      long bucketId,
      boolean wholeBucket,
      long m,
      Instant decidedAt,
      Instant carriedSince) {
    String next = late.left().get(0);
    return new Decision.Draw(
        CounterKey.ANYWHERE.equals(next)
            ? CounterKey.anywhere(config.roomId(), m)
            : CounterKey.dataCenter(config.roomId(), next, m),
        0,
        prior,
        bucketId,
        wholeBucket,
        0,
        decidedAt,
        carriedSince,
        false,
        late,
        -1);
  }

  /**
   * Continues a decision with a counter's late numbers; once every counter answered, draws against
   * the decision's pool less their sum {@code L} ({@link MinutePool#availableWithout}): {@code
   * G'(t) = min(N_m, R - L + floor(E × f))}, split by traffic history as always. A whole-bucket
   * user needs a number when {@code G'} no longer holds the whole buckets' slots (the state that
   * made its bucket whole did not count the late admissions either). A counter that could not be
   * reached answers nothing known: the user waits and asks again.
   */
  private Decision afterLateNumbers(Decision.Draw draw, Grant grant, Instant now) {
    Decision.Draw.LateNumbers late = draw.late;
    if (grant.number() < 0) {
      return notAdmitted(draw.prior, draw.bucketId, draw.wholeBucket, now);
    }
    long carried = late.carried() + Math.max(0, grant.carried());
    List<String> left = late.left().subList(1, late.left().size());
    long m = draw.counter.minute();
    if (!left.isEmpty()) {
      return askForLateNumbers(
          new Decision.Draw.LateNumbers(
              late.pool(), late.wholeBucketsWaiting(), List.copyOf(left), carried),
          draw.prior,
          draw.bucketId,
          draw.wholeBucket,
          m,
          draw.decidedAt,
          draw.carriedSince);
    }
    long available = late.pool().availableWithout(carried, now);
    long reserved = draw.wholeBucket ? 0 : late.wholeBucketsWaiting();
    SlotSplit split = split(Math.max(0, available - reserved), m);
    return firstDraw(
        draw.prior,
        draw.bucketId,
        draw.wholeBucket,
        m,
        split.dataCenterSlots(),
        split.dataCenterSlots() > 0 || config.rules().consumeOnlyWhenGranted(),
        split.anywhereSlots(),
        draw.decidedAt,
        now,
        available < late.wholeBucketsWaiting(),
        available);
  }

  /**
   * {@code asOf - W} of the state behind the minute's pool, when the counters carry the previous
   * minute's late admissions ({@link RoomConfig#countersCarryLateAdmissions}); else {@code null}.
   * The pool takes the sessions from that state, which counts every admission made before {@code
   * asOf - W} and maybe none after: the counters count those against the limits instead.
   */
  private Instant carriedSince() {
    return config.countersCarryLateAdmissions()
        ? poolFrom.asOf().minus(config.propagationWindow())
        : null;
  }

  /** {@code pool} split by the traffic history that minute {@code m} uses. */
  private SlotSplit split(long pool, long m) {
    return SlotMath.split(
        pool,
        state.trafficOf(m - config.historyLagMinutes()),
        config.totalActiveUsers(),
        dataCenter);
  }

  /**
   * For a worker deciding {@link #withoutCoordinator}: whether its admissions since the state, with
   * the process's other workers' ({@link #withoutCoordinator(LongSupplier)}), are below its even
   * share of the free slots the state held; always true for other workers.
   *
   * <p>The share is split by the traffic history of the state's minute, whatever the minute now:
   * one share for the whole outage. Split by each new minute's history, a share could grow at a
   * minute boundary (a data center's traffic share rose) while the others' shares, spent in the
   * minute before, did not shrink: two gateways' fallbacks then took 20 users for 10 free slots
   * ({@code
   * RoomWorkerTest.withoutTheCoordinatorTheShareIsSplitByTheStatesMinuteNotByEachNewMinutesHistory});
   * found in the simulator's {@code partition-small} scenario, seed 11, where nairobi's share went
   * from 1 to 2 at the minute boundary.
   */
  private boolean withinShareOfTheStatesFreeSlots() {
    if (!withoutCoordinator) {
      return true;
    }
    if (state.globalWorkersActive() == 0) {
      return false; // no coordinator ever answered (its states count the worker they answer)
    }
    SlotSplit split =
        split(Math.max(0, config.totalActiveUsers() - state.activeUsers()), state.minute());
    SlotStrategy.Allowance share =
        SlotStrategy.of(StrategyKind.EVEN_SPLIT, config.curveFactor())
            .allowance(split, state.dataCenterWorkersActive(), state.globalWorkersActive(), 1.0);
    return share instanceof SlotStrategy.Allowance.PerWorker p
        && admittedSinceState + othersSinceState.getAsLong() < p.limit();
  }

  /**
   * Renews an admitted user's session: its expiry minute moves ({@code -1 @ e_old, +1 @ e_new}) at
   * most once a minute. With session renewal disabled the session ends {@code S} after {@code
   * acceptedAt} and nothing moves; the ticket's {@code lastCheckInTime} still records the visit (so
   * traffic counts the user once a minute).
   */
  private Decision renew(Ticket admitted, Instant now) {
    Ticket seen = renewed(admitted, now);
    if (!config.sessionRenewal()) {
      return new Decision.Admit(seen, Decision.AdmitReason.SESSION);
    }
    long newExpiry = Minutes.minuteOf(now.plus(config.sessionDuration()));
    // from where this process counts the ticket, not from where a replayed cookie says: copies of
    // an old cookie move the count once, and never backwards
    long from = ledger.renewFrom(admitted.id(), expiryOf(admitted), newExpiry, now);
    if (from != TicketLedger.NOTHING) {
      pending.addActive(from, -1);
      pending.addActive(newExpiry, 1);
    }
    return new Decision.Admit(seen, Decision.AdmitReason.SESSION);
  }

  /** An admitted ticket as renewed by a visit at {@code now}. */
  private Ticket renewed(Ticket admitted, Instant now) {
    return new Ticket(
        config.roomId(), admitted.id(), admitted.bucketId(), now, admitted.acceptedAt(), 0);
  }

  /**
   * Admits a new user. {@code withoutNumber}: no counter (nor the worker's own count) gave it a
   * number (a whole-bucket user whose counters were spent); reported apart ({@link
   * Deltas#uncountedByMinute}), so that the minute's pool keeps it among the sessions.
   */
  private Decision admit(
      Ticket prior,
      long bucketId,
      Decision.AdmitReason reason,
      boolean withoutNumber,
      Instant now) {
    leaveWaiting(prior);
    long m = Minutes.minuteOf(now);
    long expiry = Minutes.minuteOf(now.plus(config.sessionDuration()));
    pending.addAdmission(m, 1);
    if (withoutNumber) {
      pending.addUncounted(m, 1);
    }
    pending.addActive(expiry, 1);
    admittedSinceState++;
    // real wait: from the start of the waiting ticket's bucket (its arrival minute), 0 when let in
    // at once
    Duration waited =
        prior != null && !prior.admitted()
            ? Duration.between(prior.bucketStart(), now)
            : Duration.ZERO;
    activity.add(m, new MinuteActivity(0, 1, 0, 0, 0, WaitHistogram.EMPTY.with(waited)));
    // the admitted ticket keeps the waiting ticket's id: a copy of that waiting ticket is then
    // known here as admitted, until neither the session nor the waiting ticket can be valid
    long id = prior != null ? prior.id() : newId();
    long waitingTicketValidUntil = Minutes.minuteOf(now.plus(config.queueTimeout())) + 1;
    ledger.recordAdmission(id, now, expiry, Math.max(expiry + 1, waitingTicketValidUntil));
    return new Decision.Admit(new Ticket(config.roomId(), id, bucketId, now, now, 0), reason);
  }

  private long newId() {
    long id;
    do {
      id = ids.nextLong();
    } while (id == 0);
    return id;
  }

  private Decision.Queue queue(Ticket prior, long bucketId, Instant now) {
    long key = Counting.refreshSlotKey(now, config);
    boolean countedThere =
        prior != null
            && !prior.admitted()
            && prior.bucketId() == bucketId
            && prior.refreshSlotKey() == key;
    if (!countedThere) {
      leaveWaiting(prior);
      pending.addWaiting(bucketId, key, 1);
    }
    Ticket waiting =
        new Ticket(config.roomId(), prior != null ? prior.id() : newId(), bucketId, now, null, key);
    WaitEstimate estimate = estimate(bucketId);
    boolean arrival = prior == null || prior.admitted() || prior.bucketId() != bucketId;
    boolean shown =
        estimate.known() && Double.isFinite(estimate.minutes()) && estimate.minutes() >= 0;
    activity.add(
        Minutes.minuteOf(now),
        new MinuteActivity(
            arrival ? 1 : 0,
            0,
            0,
            shown ? 1 : 0,
            shown ? estimate.minutes() : 0,
            null,
            shown
                ? WaitHistogram.EMPTY.with(
                    Duration.ofMillis(Math.round(Math.min(estimate.minutes(), 1e6) * 60_000)))
                : null,
            0));
    return new Decision.Queue(waiting, estimate);
  }

  /**
   * Removes a waiting user from the key it was counted under. Also when that key already stopped
   * counting: the user came back, so it was not an abandonment.
   */
  private void leaveWaiting(Ticket prior) {
    if (prior != null && !prior.admitted() && prior.refreshSlotKey() != 0) {
      pending.addWaiting(prior.bucketId(), prior.refreshSlotKey(), -1);
    }
  }
}
