package io.anteroom.room;

import java.time.Instant;

/**
 * The slots of one minute ({@code waiting-room.md}, "The per-minute pool"), refilled as the
 * minute's sessions expire:
 *
 * <pre>
 * inFlight = ceil(admissionsPerMinute × max(0, W - (asOf - minuteStart)) / 60),  W = r_w + 2 × r_dc
 *            (under the counters with spec rules only for what falls before minute m - 1: the
 *            counters carry the previous minute's, {@link RoomConfig#countersCarryLateAdmissions})
 * R   = T - (Σ_{e ≥ m} H[e] - counted(m)) - inFlight    (published rules: T - activeUsers(minute start))
 *       counted(m) = admitted(m) - uncounted(m): the minute's admissions that drew a number
 * N_m = N - admitted(m)                                 (fixed by the first state of the minute)
 * E   = H[m]                                            (0 with published rules: no refill)
 * G(t) = max(0, min(N_m, R + floor(E × f)))
 * </pre>
 *
 * With the spec's rules a newer state of the same minute revises {@code R} and {@code E} ({@link
 * #revisedBy}): an admission made at {@code x} is in every state computed at {@code x + W} or
 * later, so the margin covers only the admissions the state can still miss, those after {@code asOf
 * - W} and before the minute started, and it is released as the states catch up. The spec's formula
 * holds the worst case ({@code W} seconds of admissions) for the whole minute: the pool then
 * stopped at about {@code T - N × W / 60}, 95 % of T at N = 200 and {@code W} = 15 s, and users
 * were queued while the site ran at 90-95 % of T (model runs in {@code docs/room.md}). The minute's
 * own admissions are taken out of {@code Σ H[e]} because the counters (or a worker's own count)
 * already spend them against {@code G}.
 *
 * @param minute the minute m
 * @param base R
 * @param newUsersLeft N_m
 * @param expiring E
 */
public record MinutePool(long minute, long base, long newUsersLeft, long expiring) {

  /**
   * The pool of {@code minute} from a state held when the minute starts (or the coordinator's,
   * within it).
   */
  static MinutePool of(long minute, RoomState state, RoomConfig config) {
    long admitted = admittedIn(minute, state);
    return new MinutePool(
        minute,
        base(minute, state, config),
        config.newUsersPerMinute() - admitted,
        expiring(minute, state, config.rules()));
  }

  /**
   * This pool with {@code R} and {@code E} from a newer state of its minute (spec rules; the
   * published rules keep the budget fixed at the minute start). {@code N_m} stays: what the minute
   * spent is on the counters.
   */
  MinutePool revisedBy(RoomState newer, RoomConfig config) {
    if (!config.rules().inFlightMargin() || newer.minute() != minute) {
      return this;
    }
    return new MinutePool(
        minute, base(minute, newer, config), newUsersLeft, expiring(minute, newer, config.rules()));
  }

  private static long admittedIn(long minute, RoomState state) {
    return state.minute() == minute ? Math.max(0, state.newUsersThisMinute()) : 0;
  }

  /**
   * The minute's admissions that drew a counter's number (or a worker's own count): the counters
   * spend those against {@code G}, so the pool leaves them out of the sessions. The others
   * (whole-bucket users let in while their counters were spent) are on no counter: they stay among
   * the sessions, or a newer state of the minute, whose buckets no longer set their slots aside,
   * would offer their slots again (102 users for T = 100, {@code
   * MinuteBoundaryTest.wholeBucketUsersLetInWithoutANumberAreNotOfferedAgain}).
   */
  private static long countedIn(long minute, RoomState state) {
    return state.minute() == minute
        ? Math.max(0, state.newUsersThisMinute() - Math.max(0, state.uncountedThisMinute()))
        : 0;
  }

  private static long base(long minute, RoomState state, RoomConfig config) {
    Rules rules = config.rules();
    long activeAtStart =
        Counting.activeUsers(state.activeByExpiryMinute(), Minutes.startOf(minute), rules);
    if (!rules.inFlightMargin()) {
      return config.totalActiveUsers() - activeAtStart;
    }
    long sessionsBeforeMinute = activeAtStart - countedIn(minute, state);
    long margin =
        config.countersCarryLateAdmissions()
            ? uncarried(state, minute, config)
            : inFlight(state.admissionsPerMinute(), state.asOf(), minute, config);
    return config.totalActiveUsers() - sessionsBeforeMinute - margin;
  }

  private static long expiring(long minute, RoomState state, Rules rules) {
    return rules.poolRefill()
        ? Math.max(0, state.activeByExpiryMinute().getOrDefault(minute, 0L))
        : 0;
  }

  /**
   * Admissions before the start of {@code minute} that a state computed at {@code asOf} may not
   * count yet: {@code ceil(admissionsPerMinute × max(0, W - (asOf - minuteStart)) / 60)} with
   * {@code W = r_w + 2 × r_dc}, the longest an admission takes to reach every data center's state.
   */
  static long inFlight(double admissionsPerMinute, Instant asOf, long minute, RoomConfig config) {
    double window = config.propagationWindow().toMillis();
    double unseenMillis =
        Math.max(0, window - (asOf.toEpochMilli() - Minutes.startOf(minute).toEpochMilli()));
    return (long) Math.ceil(admissionsPerMinute * unseenMillis / 60_000.0 - 1e-9);
  }

  /**
   * Under the counters, the part of the in-flight margin no counter carries: the counters carry the
   * previous minute's late admissions themselves (Decision.Draw#carriedSince); left are the
   * admissions before the previous minute that a state over a minute old may miss, which no counter
   * remembers. (The previous minute's late admissions come off {@code R} in the decisions that ask
   * every counter for them early in a minute, {@link #availableWithout}: {@code
   * RoomWorker.countersToAsk}, docs/room.md. Estimating them by the spec's margin was measured and
   * not kept.)
   */
  static long uncarried(RoomState state, long minute, RoomConfig config) {
    return inFlight(state.admissionsPerMinute(), state.asOf(), minute - 1, config);
  }

  /** {@code G(t) = max(0, min(N_m, R + floor(E × f)))}. */
  public long available(Instant t) {
    return availableWithout(0, t);
  }

  /**
   * {@code G(t)} with {@code late} more sessions from before the minute: {@code max(0, min(N_m, R -
   * late + floor(E × f)))}. For the previous minute's late admissions that the pool's state does
   * not count yet and the counters answered (RoomWorker, "late numbers"): they are sessions of the
   * room, so they come off {@code R}, not off this minute's {@code N_m} (they were new users of the
   * minute before).
   */
  public long availableWithout(long late, Instant t) {
    return Math.max(
        0, Math.min(newUsersLeft, base - late + Minutes.floorTimesElapsed(expiring, t)));
  }
}
