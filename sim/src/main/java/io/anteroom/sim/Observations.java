package io.anteroom.sim;

import io.anteroom.sim.report.Stats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * Ground truth of one run: the simulator's bookkeeping of its own users (who is active, who waits
 * in which bucket, who was admitted when), sampled into time series and reduced to {@link Metrics}.
 * Single-threaded, fed by the event loop.
 */
final class Observations {
  /**
   * The room's reason for admitting a user of a whole bucket (they enter even if numbers are
   * spent).
   */
  static final String WHOLE_BUCKET = "WHOLE_BUCKET";

  /**
   * Wait errors count users queued after the first 10 minutes: before that the 3-minute averages
   * the estimate uses and the queue itself are still building up.
   */
  static final long WAIT_WARM_UP_MILLIS = 10 * 60_000L;

  private final int totalActiveUsers;
  private final int newUsersPerMinute;
  private final int minutes;

  /**
   * How long after its queueing a user's slot can only go to users ahead of it: one refresh
   * interval and grace.
   */
  private final long refreshHorizonMillis;

  private int active;
  private int waiting;
  private final TreeMap<Long, Integer> waitingByBucket = new TreeMap<>();
  private final long[] admissionTimes; // ring of recent admission times, for the 60 s window
  private int admissionHead;
  private int admissionCount;

  private final int[] activeBySecond;
  private final double[] utilizationBySecond;

  /** When each user queued below 95 % utilization was queued (ms). */
  private final List<Long> queuedBelow95At = new ArrayList<>();

  private final int[] waitingBySecond;
  private final int[] admissionsByMinute;
  private final int[] wholeBucketAdmissionsByMinute;

  private long admissions;
  private long inversions;
  private final TreeMap<String, Long> admissionsByReason = new TreeMap<>();
  private long overtaken;
  private long queued;
  private long queuedBelow90;
  private long queuedBelow95;
  private double utilizationAtFirstQueue = Double.NaN;
  private long abandoned;
  private final List<Double> waitErrors = new ArrayList<>(); // signed: (shown - actual) / actual
  private final List<Double> waits = new ArrayList<>(); // minutes, of every queued user admitted

  /** Signed relative errors of the places shown as one number: (shown - true) / true. */
  private final List<Double> placeErrors = new ArrayList<>();

  private long placesMeasured;
  private long placesAsRange;
  private long rangesHoldingTruth;

  /**
   * Places in line are measured on users first queued after the warm-up whose true place is at
   * least this many people: a relative error on a handful of people says little.
   */
  static final int MIN_MEASURED_PLACE = 20;

  Observations(
      int totalActiveUsers, int newUsersPerMinute, int minutes, long refreshHorizonMillis) {
    this.refreshHorizonMillis = refreshHorizonMillis;
    this.utilizationBySecond = new double[minutes * 60];
    this.totalActiveUsers = totalActiveUsers;
    this.newUsersPerMinute = newUsersPerMinute;
    this.minutes = minutes;
    this.activeBySecond = new int[minutes * 60];
    this.waitingBySecond = new int[minutes * 60];
    this.admissionsByMinute = new int[minutes];
    this.wholeBucketAdmissionsByMinute = new int[minutes];
    // a 60 s window never holds more admissions than this unless a strategy admits far beyond N
    this.admissionTimes = new long[Math.max(1024, newUsersPerMinute * 64)];
  }

  /** Utilization now: the share of the tighter limit in use. */
  double utilization(long now) {
    while (admissionCount > 0 && admissionTimes[admissionHead] <= now - 60_000) {
      admissionHead = (admissionHead + 1) % admissionTimes.length;
      admissionCount--;
    }
    return Math.max(
        (double) active / totalActiveUsers, (double) admissionCount / newUsersPerMinute);
  }

  static final String QUEUE_EXPLANATION_HEADER =
      "t_s,second_of_minute,active_over_T,window_adm_over_N,"
          + "minute_adm_so_far,true_active_at_minute_start,waiting,minutes_behind_oldest_waiting";

  /**
   * Ground truth when a user of {@code bucket} is queued: the fields of {@link
   * #QUEUE_EXPLANATION_HEADER}.
   */
  String queueExplanation(long now, long bucket) {
    utilization(now); // drops admissions older than 60 s from the window
    int minute = (int) (now / 60_000);
    int startActive =
        minute == 0 ? 0 : activeBySecond[Math.min(activeBySecond.length, minute * 60) - 1];
    return String.format(
        java.util.Locale.ROOT,
        "%.3f,%d,%.4f,%.4f,%d,%d,%d,%d",
        now / 1000.0,
        (now % 60_000) / 1000,
        (double) active / totalActiveUsers,
        (double) admissionCount / newUsersPerMinute,
        minute < admissionsByMinute.length ? admissionsByMinute[minute] : -1,
        startActive,
        waiting,
        waitingByBucket.isEmpty() ? -1 : bucket - waitingByBucket.firstKey());
  }

  void sessionStarted() {
    active++;
  }

  void sessionExpired() {
    active--;
  }

  /** A user (new or waiting, of {@code bucket}) was admitted; call after {@link #leftQueue}. */
  void admitted(long now, long bucket, String reason) {
    admissions++;
    admissionsByReason.merge(reason, 1L, Long::sum);
    int minute = (int) (now / 60_000);
    if (minute < minutes) {
      admissionsByMinute[minute]++;
      if (WHOLE_BUCKET.equals(reason)) {
        wholeBucketAdmissionsByMinute[minute]++;
      }
    }
    if (!waitingByBucket.isEmpty() && waitingByBucket.firstKey() < bucket) {
      inversions++;
    }
    if (admissionCount == admissionTimes.length) { // window overflow: drop the oldest
      admissionHead = (admissionHead + 1) % admissionTimes.length;
      admissionCount--;
    }
    admissionTimes[(admissionHead + admissionCount) % admissionTimes.length] = now;
    admissionCount++;
  }

  /**
   * One refresh interval after an admission of {@code bucket}: an older-bucket user still waiting
   * now was waiting at the admission too (its minute ended before this bucket's began) and has had
   * a refresh since, so it was overtaken, not merely between two refreshes.
   */
  void checkOvertaken(long bucket) {
    if (!waitingByBucket.isEmpty() && waitingByBucket.firstKey() < bucket) {
      overtaken++;
    }
  }

  /** A user was queued for the first time. */
  void queued(long now, long bucket) {
    double u = utilization(now);
    if (queued == 0) {
      utilizationAtFirstQueue = u;
    }
    queued++;
    if (u < 0.90) {
      queuedBelow90++;
    }
    if (u < 0.95) {
      queuedBelow95++;
      queuedBelow95At.add(now);
    }
    waiting++;
    waitingByBucket.merge(bucket, 1, Integer::sum);
  }

  /**
   * A user of {@code bucket} about to be queued for the first time was shown {@code place}. The
   * truth is the same quantity from the simulator's own users: everyone waiting now in an older
   * bucket, plus half of those waiting now in the user's bucket (they are admitted in no particular
   * order). Call before {@link #queued}.
   */
  void placeShown(long now, long bucket, io.anteroom.room.PlaceInLine place) {
    if (now < WAIT_WARM_UP_MILLIS) {
      return;
    }
    long older = 0;
    for (int n : waitingByBucket.headMap(bucket).values()) {
      older += n;
    }
    double truth = older + waitingByBucket.getOrDefault(bucket, 0) / 2.0;
    if (truth < MIN_MEASURED_PLACE) {
      return;
    }
    placesMeasured++;
    if (place.approximate()) {
      placeErrors.add((place.ahead() - truth) / truth);
    } else {
      placesAsRange++;
      rangesHoldingTruth += place.low() <= truth && truth <= place.high() ? 1 : 0;
    }
  }

  /** A waiting user left the queue (admitted or gave up). */
  void leftQueue(long bucket) {
    waiting--;
    waitingByBucket.compute(bucket, (k, v) -> v == 1 ? null : v - 1);
  }

  void abandoned() {
    abandoned++;
  }

  /** A queued user was admitted after waiting {@code actualMinutes} (any time in the run). */
  void admittedAfter(double actualMinutes) {
    waits.add(actualMinutes);
  }

  /** A queued user shown {@code shownMinutes} was admitted after {@code actualMinutes}. */
  void waited(double shownMinutes, double actualMinutes) {
    if (actualMinutes >= 1.0 && !Double.isNaN(shownMinutes)) {
      waitErrors.add((shownMinutes - actualMinutes) / actualMinutes);
    }
  }

  /** Called once per simulated second, at the end of that second. */
  void sample(int second) {
    if (second < activeBySecond.length) {
      utilizationBySecond[second] = utilization((second + 1) * 1000L);
      activeBySecond[second] = active;
      waitingBySecond[second] = waiting;
    }
  }

  SimulationResult.Series series() {
    return new SimulationResult.Series(
        activeBySecond.clone(),
        waitingBySecond.clone(),
        admissionsByMinute.clone(),
        wholeBucketAdmissionsByMinute.clone());
  }

  /** Admissions (not renewals) by the room's reason, e.g. {@code WHOLE_BUCKET}. */
  java.util.SortedMap<String, Long> admissionsByReason() {
    return java.util.Collections.unmodifiableSortedMap(new TreeMap<>(admissionsByReason));
  }

  /**
   * Users queued below 95 % utilization while it also stayed below 95 % for the next refresh
   * interval (every second's sample up to {@code queuedAt + refreshHorizonMillis}): the queue ahead
   * of them did not take the room's spare capacity before they could have used it themselves.
   */
  private long queuedBelow95ForARefresh() {
    long count = 0;
    for (long at : queuedBelow95At) {
      int from = (int) (at / 1000);
      int to = (int) Math.min(utilizationBySecond.length - 1, (at + refreshHorizonMillis) / 1000);
      boolean stayedBelow = true;
      for (int s = from; s <= to && stayedBelow; s++) {
        stayedBelow = utilizationBySecond[s] < 0.95;
      }
      count += stayedBelow ? 1 : 0;
    }
    return count;
  }

  Metrics metrics() {
    double[] active = Arrays.stream(activeBySecond).asDoubleStream().toArray();
    double peak = active.length == 0 ? 0 : Stats.max(active);
    double p99 = active.length == 0 ? 0 : Stats.percentile(active, 0.99);
    int overN = 0;
    int over105 = 0;
    int maxAdmissions = 0;
    for (int a : admissionsByMinute) {
      overN += a > newUsersPerMinute ? 1 : 0;
      over105 += a > 1.05 * newUsersPerMinute ? 1 : 0;
      maxAdmissions = Math.max(maxAdmissions, a);
    }
    double[] errors = waitErrors.stream().mapToDouble(Math::abs).sorted().toArray();
    double mean = errors.length == 0 ? Double.NaN : Arrays.stream(errors).sum() / errors.length;
    double median = Stats.medianOfSorted(errors);
    double bias =
        Stats.medianOfSorted(
            waitErrors.stream().mapToDouble(Double::doubleValue).sorted().toArray());
    double[] placeAbs = placeErrors.stream().mapToDouble(Math::abs).sorted().toArray();
    return new Metrics(
        peak / totalActiveUsers,
        p99 / totalActiveUsers,
        admissions,
        overN,
        over105,
        (double) maxAdmissions / newUsersPerMinute,
        queued,
        utilizationAtFirstQueue,
        queued == 0 ? 0 : (double) queuedBelow90 / queued,
        queued == 0 ? 0 : (double) queuedBelow95 / queued,
        queued == 0 ? 0 : (double) queuedBelow95ForARefresh() / queued,
        inversions,
        admissions == 0 ? 1 : 1 - (double) inversions / admissions,
        overtaken,
        admissions == 0 ? 1 : 1 - (double) overtaken / admissions,
        errors.length,
        mean,
        median,
        bias,
        abandoned,
        waits.isEmpty() ? Double.NaN : Stats.percentile(sortedWaits(), 0.50),
        waits.isEmpty() ? Double.NaN : Stats.percentile(sortedWaits(), 0.95),
        waits.isEmpty() ? Double.NaN : Stats.max(sortedWaits()),
        new Metrics.PlaceErrors(
            placesMeasured,
            placeAbs.length,
            Stats.medianOfSorted(placeAbs),
            placeAbs.length == 0 ? Double.NaN : Stats.percentile(placeAbs, 0.90),
            Stats.medianOfSorted(
                placeErrors.stream().mapToDouble(Double::doubleValue).sorted().toArray()),
            placesAsRange,
            placesAsRange == 0 ? Double.NaN : (double) rangesHoldingTruth / placesAsRange));
  }

  private double[] sortedWaits() {
    return waits.stream().mapToDouble(Double::doubleValue).sorted().toArray();
  }
}
