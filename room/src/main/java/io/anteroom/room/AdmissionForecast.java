package io.anteroom.room;

import java.util.Arrays;
import java.util.Map;

/**
 * What the room will admit from its queue, minute by minute from a {@link RoomState}'s instant on:
 * a pure, deterministic model of the two limits, so that a wait estimate follows the room's free
 * slots and {@code N} rather than only the admissions of the past minutes.
 *
 * <p>The model, in steps of one calendar minute (the first step is the rest of the state's minute):
 *
 * <ul>
 *   <li><b>N</b>: a minute admits at most {@code N}; the state's own minute has {@code N -
 *       admitted(m) - freeSlots} left (its free slots already went to the eligible users, who are
 *       not ahead of anyone).
 *   <li><b>T</b>: slots the T limit leaves unused while N binds ({@code T - activeUsers -
 *       freeSlots}) are taken at the start of the next minute; a session that ends frees a slot
 *       that is taken at once while the minute's N budget lasts, or kept for the next minute.
 *   <li><b>Sessions ending</b>: the sessions known now end by the histogram {@code H[e]} (those of
 *       the state's minute pro rata over its rest, as {@code activeUsers} releases them); the users
 *       the forecast admits (and the eligible users, admitted now) end {@code S} later. Renewals
 *       still to come are not modelled: a renewal moves its session later in {@code H}, and the
 *       next state's forecast sees it.
 * </ul>
 *
 * <p>A user with {@code p} users ahead (not reached by free slots) is admitted once the forecast
 * admissions have taken those of them who did not give up: with each waiting user's hazard {@code
 * h} of giving up per minute, {@code dq = -dA - h q dt}, solved exactly within each segment of
 * constant rate (for a constant rate this is the spec's {@code ln(1 + h p / rate) / h}). The user
 * enters on its next page refresh after that: half a refresh interval later on average.
 *
 * <p>Not thread-safe (it extends its schedule lazily); one instance per estimate.
 */
final class AdmissionForecast {
  /** The forecast ends after a day and a minute; a longer wait shows the queue as full anyway. */
  static final int HORIZON_MINUTES = 24 * 60 + 1;

  private final int newUsersPerMinute;
  private final int sessionMinutes;
  private final double latencyMinutes;

  /** Sessions ending in each step (known ones, then those the forecast admitted). */
  private final double[] ending;

  private double slack; // slots free under T not yet taken
  private double budget; // N left in the step being computed

  /** Per computed step: admissions at its start, then at {@code rate} for {@code rateMinutes}. */
  private double[] lump = new double[16];

  private double[] rate = new double[16];
  private double[] rateMinutes = new double[16];
  private double[] length = new double[16];
  private int computed;
  private final double firstStep;

  private AdmissionForecast(RoomState state, RoomConfig config) {
    this.newUsersPerMinute = config.newUsersPerMinute();
    this.sessionMinutes = config.sessionDurationMinutes();
    this.latencyMinutes = config.queueRefreshSeconds() / 2.0 / 60;
    this.ending = new double[HORIZON_MINUTES + sessionMinutes + 1];
    long m = state.minute();
    double f = Minutes.millisIntoMinute(state.asOf()) / (double) Minutes.MILLIS_PER_MINUTE;
    this.firstStep = 1 - f;
    for (Map.Entry<Long, Long> e : state.activeByExpiryMinute().tailMap(m).entrySet()) {
      long step = e.getKey() - m;
      if (step < ending.length) {
        ending[(int) step] += Math.max(0, e.getValue()) * (step == 0 ? 1 - f : 1);
      }
    }
    long free = Math.max(0, state.freeSlots());
    ending[sessionMinutes] += free; // the eligible users enter now
    this.slack = Math.max(0, config.totalActiveUsers() - state.activeUsers() - free);
    this.budget = Math.max(0, newUsersPerMinute - state.newUsersThisMinute() - free);
  }

  /** The forecast from {@code state} for a room of {@code config}. */
  static AdmissionForecast of(RoomState state, RoomConfig config) {
    return new AdmissionForecast(state, config);
  }

  /** Computes the next step of the schedule. */
  private void step() {
    int k = computed;
    if (k == lump.length) {
      int n = Math.min(HORIZON_MINUTES, 2 * k);
      lump = Arrays.copyOf(lump, n);
      rate = Arrays.copyOf(rate, n);
      rateMinutes = Arrays.copyOf(rateMinutes, n);
      length = Arrays.copyOf(length, n);
    }
    double len = k == 0 ? firstStep : 1;
    if (k > 0) {
      budget = newUsersPerMinute;
    }
    double ends = ending[k];
    double endRate = len > 0 ? ends / len : 0;
    double atStart = Math.min(budget, slack);
    budget -= atStart;
    slack -= atStart;
    double during = endRate > 0 ? Math.min(len, budget / endRate) : 0;
    double admittedDuring = endRate * during;
    budget -= admittedDuring;
    slack += ends - admittedDuring;
    lump[k] = atStart;
    rate[k] = endRate;
    rateMinutes[k] = during;
    length[k] = len;
    ending[k + sessionMinutes] += atStart + admittedDuring;
    computed++;
  }

  /** Users admitted from the queue in step {@code k} (0: the rest of the state's minute). */
  double admittedInStep(int k) {
    while (computed <= k) {
      step();
    }
    return lump[k] + rate[k] * rateMinutes[k];
  }

  /**
   * Minutes from the state's instant until a user with {@code ahead} users before it enters, or
   * {@link Double#POSITIVE_INFINITY} when the forecast does not reach it within {@link
   * #HORIZON_MINUTES}.
   *
   * @param h each waiting user's hazard of giving up, per minute (0: nobody gives up)
   */
  double minutesUntil(double ahead, double h) {
    double q = ahead;
    double t = 0;
    for (int k = 0; k < HORIZON_MINUTES; k++) {
      if (computed <= k) {
        step();
      }
      if (q <= lump[k]) {
        return t + latencyMinutes;
      }
      q -= lump[k];
      double during = rateMinutes[k];
      double r = rate[k];
      if (during > 0 && r > 0) {
        double needed = WaitEstimator.minutes(q, r, h);
        if (needed <= during) {
          return t + needed + latencyMinutes;
        }
        q = h > 0 ? (q + r / h) * Math.exp(-h * during) - r / h : q - r * during;
      }
      double idle = length[k] - during;
      if (h > 0 && idle > 0) {
        q *= Math.exp(-h * idle);
      }
      t += length[k];
    }
    return Double.POSITIVE_INFINITY;
  }
}
