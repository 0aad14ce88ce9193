package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gateway's view of its room's coordinator outages: whether it decides degraded now, and whether
 * a counter grant was answered after an outage began ("late"), with the rule for such a grant.
 *
 * <p>A late grant is a call that reached the coordinator (perhaps a new leader) while other calls
 * failed. Its slot is in no state the gateway knows, so the degraded fallback's share (one share of
 * the last state's free slots, which the other gateways count on this process taking at most) must
 * cover it:
 *
 * <ul>
 *   <li>while degraded it admits only if the share has room ({@link RoomWorker#shareHasRoom}), and
 *       the share then counts it (the fallback sums its shards' admissions since the state);
 *   <li>once recovered it admits nobody: the outage's charges may have reached the counter after
 *       it, so it may be one slot too many.
 * </ul>
 *
 * A refused grant's number stays spent, which holds a slot back for the rest of the minute and
 * never hands one out twice; the user stays first in the queue, a whole-bucket user too ({@link
 * RoomWorker#refuse}).
 *
 * <p>Usage: {@link #mark} before each counter call; with its grant, {@link #late} (both given the
 * coordination's count of coordinator instance changes, {@link #noticeInstanceChanges}); a late
 * grant goes to {@link #settleLateGrant} instead of {@link RoomWorker#onCounterReply}. {@link
 * #failed} on any failed coordination call, {@link #recovered} once the outage's admissions are all
 * charged and no call failed meanwhile.
 *
 * <p>Thread-safe: the outage count is atomic and the flag volatile; a failure sets the flag before
 * it raises the count, so a mark that reads the new count sees the flag, and a call answered after
 * either sees the change. Failures and recoveries take the monitor, so that a recovery never clears
 * a failure that came after what proved the coordinator back.
 */
public final class Outages {
  private final AtomicLong began = new AtomicLong();
  private volatile boolean degraded;
  private volatile Instant statesCountTheOutagesFrom = Instant.MIN;
  private volatile Instant drawsResumeAt = Instant.MIN;

  /** Every failure so far, also those of an outage under way (guarded by this). */
  private long failures;

  /** The coordinator instance changes already acted on ({@link #noticeInstanceChanges}). */
  private final AtomicLong seenInstanceChanges;

  /** Outages of a gateway whose coordination has seen no change of the coordinator's instance. */
  public Outages() {
    this(0);
  }

  /**
   * @param instanceChangesAtStart the coordination's count of coordinator instance changes when the
   *     gateway starts deciding (they are not outages of its rooms)
   */
  public Outages(long instanceChangesAtStart) {
    this.seenInstanceChanges = new AtomicLong(instanceChangesAtStart);
  }

  /**
   * A new outage when the coordination saw the coordinator's objects recreated (a restart, a new
   * leader; {@code changes} is its count, which only grows) since the last notice. Such a change is
   * an outage at every gateway, also at one whose calls all waited and got through: another
   * gateway's call to the old instance may have failed, and that gateway admits from its share of
   * the last state, which the new instance's counters know nothing of until it charges them. The
   * room is degraded before the change counts as seen: whoever finds it seen finds the outage
   * begun.
   *
   * @return whether this call began an outage (it was not degraded)
   */
  public boolean noticeInstanceChanges(long changes) {
    if (changes <= seenInstanceChanges.get()) {
      return false; // a read on every request; more only on a change
    }
    boolean began;
    synchronized (this) {
      began = !degraded;
      failed();
    }
    seenInstanceChanges.accumulateAndGet(changes, Math::max);
    return began;
  }

  /** Whether decisions are degraded now (from a failed call until {@link #recovered}). */
  public boolean degraded() {
    return degraded;
  }

  /**
   * A coordination call failed: degraded, and a new outage if it was not degraded yet. The flag is
   * set before the count: a {@link #mark} that reads the new count then sees the flag.
   */
  public synchronized void failed() {
    boolean was = degraded;
    degraded = true;
    failures++;
    if (!was) {
      began.incrementAndGet();
    }
  }

  /** How many calls failed so far; for {@link #recovered}. */
  public synchronized long failures() {
    return failures;
  }

  /**
   * The outage is over, unless a call failed since {@code failuresBefore} ({@link #failures} read
   * before whatever proved the coordinator back): decisions are no longer degraded.
   *
   * <p>Either way, new users draw no counter for {@code w} from {@code now} ({@link #drawsPaused}),
   * and the states this gateway's workers hold do not count what the other gateways admitted
   * without the coordinator before {@link #statesCountTheOutagesFrom()}: they charge and report it
   * when they are back, within the {@code w} after this recovery in which this gateway draws no
   * counter, and a state counts a report at most {@code w} after it. Set before the flag drops: a
   * decision that finds the room no longer degraded finds the bound.
   *
   * @param now when the round that proved the coordinator back was answered
   * @param w the room's propagation window {@code W = r_w + 2 × r_dc}
   * @return whether the outage ended
   */
  public synchronized boolean recovered(long failuresBefore, Instant now, Duration w) {
    drawsResumeAt = now.plus(w);
    Instant counted = now.plus(w.multipliedBy(2));
    if (counted.isAfter(statesCountTheOutagesFrom)) {
      statesCountTheOutagesFrom = counted;
    }
    if (failures != failuresBefore) {
      return false;
    }
    degraded = false;
    return true;
  }

  /**
   * Whether new users draw no counter at {@code now}: for {@code W} after a recovery ({@link
   * #recovered}), while the other gateways back from the same outage charge what they admitted
   * without the coordinator. Not while degraded (the fallback decides then). Nobody draws then, a
   * whole-bucket user neither ({@link RoomWorker#refuse}): the state that makes its bucket whole
   * may not count the others' degraded admissions yet.
   */
  public boolean drawsPaused(Instant now) {
    return !degraded && now.isBefore(drawsResumeAt);
  }

  /**
   * The {@code asOf} from which a state counts every admission the other gateways made without the
   * coordinator in the outages this gateway recovered from ({@link #recovered}); {@link
   * Instant#MIN} before the first recovery. Until its workers hold such a state, a decision that
   * rests on the state alone admits nobody ({@link RoomWorker#recoveringWith}): a whole-bucket user
   * without a number, a per-worker allowance. The bucket that looks whole, and the free slots a
   * per-worker allowance splits, may be slots the others' degraded admissions already took.
   */
  public Instant statesCountTheOutagesFrom() {
    return statesCountTheOutagesFrom;
  }

  /** A mark's outage count while degraded: no count, so every answer is late. */
  private static final long SENT_WHILE_DEGRADED = -1;

  /**
   * What a counter call was sent under, for {@link #late}.
   *
   * @param outage the outage count, or {@link #SENT_WHILE_DEGRADED}
   * @param instanceChanges the coordination's count of coordinator instance changes
   */
  public record Mark(long outage, long instanceChanges) {}

  /**
   * To take before a counter call, with the coordination's count of instance changes read before it
   * (noticed here: {@link #noticeInstanceChanges}), and hand to {@link #late} with its answer.
   */
  public Mark mark(long instanceChanges) {
    noticeInstanceChanges(instanceChanges);
    long count = began.get(); // before the flag, which failed() sets first: one of them shows it
    return new Mark(degraded ? SENT_WHILE_DEGRADED : count, instanceChanges);
  }

  /**
   * Whether a grant to a call sent at {@code mark} is late, given the coordination's count of
   * instance changes read with the answer (noticed here): answered while degraded; sent while
   * degraded (it may have reached a new leader before the outage's charges, even if it is answered
   * after the recovery); answered after an outage began since the call was sent (even one that is
   * over by now); or answered after the coordination saw a new instance since the mark, whoever
   * noticed it (another thread may have claimed the change and not yet turned the room degraded).
   */
  public boolean late(Mark mark, long instanceChangesNow) {
    noticeInstanceChanges(instanceChangesNow);
    return instanceChangesNow != mark.instanceChanges() || degraded || began.get() != mark.outage();
  }

  /**
   * The decision for a late grant to {@code draw} on {@code worker}: admitted by the worker only
   * while still degraded, if {@code worker} is one of the current shards ({@code current}) and
   * {@code fallback}'s share has room; otherwise refused ({@link RoomWorker#refuse}). One late
   * grant at a time takes the share's last place (synchronized on the fallback).
   */
  public Decision settleLateGrant(
      RoomWorker worker,
      boolean current,
      RoomWorker fallback,
      Decision.Draw draw,
      Grant grant,
      Instant now) {
    if (!degraded || !current) {
      return worker.refuse(draw, now);
    }
    synchronized (fallback) {
      return fallback.shareHasRoom(now)
          ? worker.onCounterReply(draw, grant, now)
          : worker.refuse(draw, now);
    }
  }
}
