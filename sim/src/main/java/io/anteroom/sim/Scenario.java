package io.anteroom.sim;

import java.util.List;
import java.util.Objects;

/**
 * One traffic situation to replay against every strategy: the room's limits, the topology of data
 * centers and workers, the arrival profile and how users behave.
 *
 * <p>The built-in scenarios are in {@link Scenarios}; a custom one is built with the records below:
 *
 * <pre>{@code
 * Scenario mine = new Scenario("flat", "100 users a minute", Scenario.Limits.DEFAULT,
 *     Scenario.Topology.threeDataCenters(), Scenario.Profile.constant(100),
 *     Scenario.Behaviour.DEFAULT, 30, false);
 * }</pre>
 *
 * @param name short name used on the command line and in file names
 * @param description one line saying what the scenario exercises
 * @param limits the room's configuration
 * @param topology data centers, workers, delays
 * @param arrivals new users per minute over time
 * @param behaviour think times, pages, refreshes and patience of simulated users
 * @param minutes default length of a run
 * @param steadyOverload steady overload: a run without a single measured wait error misses the
 *     wait-estimate target (the target itself applies to every scenario with samples)
 */
public record Scenario(
    String name,
    String description,
    Limits limits,
    Topology topology,
    Profile arrivals,
    Behaviour behaviour,
    int minutes,
    boolean steadyOverload) {

  public Scenario {
    Objects.requireNonNull(name, "scenario name");
    if (!name.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException(
          "scenario name '"
              + name
              + "' must use only lower-case letters, digits and '-' (it names files)");
    }
    Objects.requireNonNull(limits, "limits of scenario " + name);
    Objects.requireNonNull(topology, "topology of scenario " + name);
    Objects.requireNonNull(arrivals, "arrival profile of scenario " + name);
    Objects.requireNonNull(behaviour, "behaviour of scenario " + name);
    if (minutes < 1) {
      throw new IllegalArgumentException(
          "scenario " + name + ": minutes must be >= 1, was " + minutes);
    }
  }

  /** The same scenario run for a different number of minutes. */
  public Scenario withMinutes(int newMinutes) {
    return new Scenario(
        name, description, limits, topology, arrivals, behaviour, newMinutes, steadyOverload);
  }

  /**
   * The room's configuration, in the spec's vocabulary.
   *
   * @param totalActiveUsers T
   * @param newUsersPerMinute N
   * @param sessionDurationMinutes S
   * @param queueRefreshSeconds R
   * @param queueTimeoutMinutes a waiting user not seen for this long loses its bucket
   * @param curveFactor exponent of the utilization-scaled strategy
   */
  public record Limits(
      int totalActiveUsers,
      int newUsersPerMinute,
      int sessionDurationMinutes,
      int queueRefreshSeconds,
      int queueTimeoutMinutes,
      double curveFactor) {
    /** T = 1000, N = 200, S = 5 min, refresh 20 s, queue timeout 5 min, curve factor 1. */
    public static final Limits DEFAULT = new Limits(1000, 200, 5, 20, 5, 1.0);

    public Limits {
      positive("totalActiveUsers", totalActiveUsers);
      positive("newUsersPerMinute", newUsersPerMinute);
      positive("sessionDurationMinutes", sessionDurationMinutes);
      positive("queueRefreshSeconds", queueRefreshSeconds);
      positive("queueTimeoutMinutes", queueTimeoutMinutes);
      if (!(curveFactor > 0)) {
        throw new IllegalArgumentException("curveFactor must be > 0, was " + curveFactor);
      }
    }
  }

  /**
   * Data centers and the delays between the parts.
   *
   * @param dataCenters at least one; the first hosts the global object and the Anywhere counter
   * @param workerReportMillis r_w: how often a worker reports to its data-center coordinator
   * @param dataCenterReportMillis r_dc: how often a data center reports to the global object
   * @param propagationMillis one-way delay between a data center and the global object
   * @param inDataCenterMillis round trip of a call inside a data center (worker to its coordinator
   *     or its DC counter; the reference measured under 10 ms)
   * @param anywhereCounterMillis round trip to the Anywhere counter from a data center other than
   *     the first, which hosts it (cross-ocean in the reference deployment: 60–70 ms)
   * @param outages times in which the gateways cannot reach the coordinator (none by default)
   */
  public record Topology(
      List<DataCenter> dataCenters,
      long workerReportMillis,
      long dataCenterReportMillis,
      long propagationMillis,
      long inDataCenterMillis,
      long anywhereCounterMillis,
      List<Outage> outages) {

    /** A topology whose gateways never lose their coordinator. */
    public Topology(
        List<DataCenter> dataCenters,
        long workerReportMillis,
        long dataCenterReportMillis,
        long propagationMillis,
        long inDataCenterMillis,
        long anywhereCounterMillis) {
      this(
          dataCenters,
          workerReportMillis,
          dataCenterReportMillis,
          propagationMillis,
          inDataCenterMillis,
          anywhereCounterMillis,
          List.of());
    }

    public Topology {
      outages = List.copyOf(outages);
      dataCenters = List.copyOf(dataCenters);
      if (dataCenters.isEmpty()) {
        throw new IllegalArgumentException("a topology needs at least one data center");
      }
      if (dataCenters.stream().map(DataCenter::name).distinct().count() != dataCenters.size()) {
        throw new IllegalArgumentException("data center names must be distinct: " + dataCenters);
      }
      positive("workerReportMillis", workerReportMillis);
      positive("dataCenterReportMillis", dataCenterReportMillis);
      nonNegative("propagationMillis", propagationMillis);
      nonNegative("inDataCenterMillis", inDataCenterMillis);
      nonNegative("anywhereCounterMillis", anywhereCounterMillis);
    }

    /**
     * 3 data centers × 4 evenly loaded workers; reports every 5 s; 100 ms to the global object; 5
     * ms in-DC calls, 65 ms to the Anywhere counter.
     */
    public static Topology threeDataCenters() {
      return new Topology(
          List.of(
              DataCenter.even("san-jose", 4, 0.4),
              DataCenter.even("london", 4, 0.35),
              DataCenter.even("nairobi", 4, 0.25)),
          5_000,
          5_000,
          100,
          5,
          65);
    }

    /**
     * The embedded default ({@code anteroom run}): one process, one data center of 2 event-loop
     * workers reporting every second, no network between the parts.
     */
    public static Topology singleNode() {
      return new Topology(List.of(DataCenter.even("local", 2, 1.0)), 1_000, 1_000, 0, 0, 0);
    }

    /** The same delays with other data centers. */
    public Topology withDataCenters(List<DataCenter> replaced) {
      return new Topology(
          replaced,
          workerReportMillis,
          dataCenterReportMillis,
          propagationMillis,
          inDataCenterMillis,
          anywhereCounterMillis,
          outages);
    }

    /** The same topology whose gateways also lose their coordinator during {@code outage}. */
    public Topology withOutage(Outage outage) {
      List<Outage> more = new java.util.ArrayList<>(outages);
      more.add(outage);
      return new Topology(
          dataCenters,
          workerReportMillis,
          dataCenterReportMillis,
          propagationMillis,
          inDataCenterMillis,
          anywhereCounterMillis,
          more);
    }

    /** Whether the gateways are cut off from their coordinator at {@code millis} of the run. */
    boolean cutOffAt(long millis) {
      for (Outage o : outages) {
        if (o.covers(millis)) {
          return true;
        }
      }
      return false;
    }

    int workerCount() {
      return dataCenters.stream().mapToInt(dc -> dc.workerWeights().size()).sum();
    }
  }

  /**
   * A time in which every gateway is cut off from the coordinator (a network partition of the
   * coordinator's leader, say): reports and counter calls fail; the coordinator itself goes on. The
   * gateways decide degraded ({@code failMode} degrade) meanwhile, as the gateway does.
   *
   * @param fromMillis when it begins, from the start of the run
   * @param durationMillis how long it lasts
   */
  public record Outage(long fromMillis, long durationMillis) {
    public Outage {
      nonNegative("outage fromMillis", fromMillis);
      positive("outage durationMillis", durationMillis);
    }

    boolean covers(long millis) {
      return millis >= fromMillis && millis < fromMillis + durationMillis;
    }
  }

  /**
   * One data center.
   *
   * @param name its name (used as the DC id in the core)
   * @param workerWeights relative share of this DC's requests that each worker receives (one entry
   *     per worker)
   * @param trafficShare relative share of all new users arriving here
   * @param fromMinute no user arrives here before this minute of the run (a DC with no history)
   */
  public record DataCenter(
      String name, List<Double> workerWeights, double trafficShare, int fromMinute) {
    public DataCenter {
      Objects.requireNonNull(name, "data center name");
      workerWeights = List.copyOf(workerWeights);
      if (workerWeights.isEmpty() || workerWeights.stream().anyMatch(w -> !(w > 0))) {
        throw new IllegalArgumentException(
            "data center "
                + name
                + " needs at least one worker, each with a weight > 0: "
                + workerWeights);
      }
      if (!(trafficShare >= 0)) {
        throw new IllegalArgumentException("data center " + name + ": trafficShare must be >= 0");
      }
      nonNegative("fromMinute of " + name, fromMinute);
    }

    /** {@code workers} equally loaded workers. */
    public static DataCenter even(String name, int workers, double trafficShare) {
      return new DataCenter(name, java.util.Collections.nCopies(workers, 1.0), trafficShare, 0);
    }
  }

  /**
   * New users per minute over time: straight lines between points (minute, rate), constant before
   * the first and after the last point. A step is two points at the same minute.
   */
  public record Profile(List<double[]> points) {
    public Profile {
      points = List.copyOf(points);
      if (points.isEmpty()) {
        throw new IllegalArgumentException(
            "an arrival profile needs at least one (minute, users/min) point");
      }
      double last = Double.NEGATIVE_INFINITY;
      for (double[] p : points) {
        if (p.length != 2 || p[0] < last || p[1] < 0) {
          throw new IllegalArgumentException(
              "arrival profile points must be (minute, users/min >= 0) pairs with non-decreasing minutes");
        }
        last = p[0];
      }
    }

    public static Profile constant(double usersPerMinute) {
      return new Profile(List.<double[]>of(new double[] {0, usersPerMinute}));
    }

    /** Builds a profile from alternating minute, rate values. */
    public static Profile of(double... minuteRatePairs) {
      if (minuteRatePairs.length % 2 != 0) {
        throw new IllegalArgumentException("Profile.of takes (minute, users/min) pairs");
      }
      java.util.ArrayList<double[]> ps = new java.util.ArrayList<>();
      for (int i = 0; i < minuteRatePairs.length; i += 2) {
        ps.add(new double[] {minuteRatePairs[i], minuteRatePairs[i + 1]});
      }
      return new Profile(ps);
    }

    /** Users per minute at {@code minute} (fractional). At a step the later point wins. */
    public double rateAt(double minute) {
      double[] first = points.get(0);
      if (minute < first[0]) {
        return first[1];
      }
      for (int i = points.size() - 1; i >= 0; i--) {
        double[] p = points.get(i);
        if (minute >= p[0]) {
          if (i == points.size() - 1) {
            return p[1];
          }
          double[] q = points.get(i + 1);
          if (q[0] == p[0]) {
            return q[1];
          }
          return p[1] + (q[1] - p[1]) * (minute - p[0]) / (q[0] - p[0]);
        }
      }
      return first[1];
    }
  }

  /**
   * How simulated users behave.
   *
   * @param meanPages pages an admitted user views (geometric, ≥ 1)
   * @param meanThinkSeconds think time between two pages (exponential)
   * @param meanPatienceMinutes how long a queued user waits before giving up (exponential)
   * @param refreshJitterMillis a queued page refreshes every queueRefreshSeconds ± this
   */
  public record Behaviour(
      double meanPages,
      double meanThinkSeconds,
      double meanPatienceMinutes,
      long refreshJitterMillis) {
    /** 5 pages, 30 s think time, 10 min patience, ±1 s refresh jitter. */
    public static final Behaviour DEFAULT = new Behaviour(5, 30, 10, 1_000);

    public Behaviour {
      if (!(meanPages >= 1)
          || !(meanThinkSeconds > 0)
          || !(meanPatienceMinutes > 0)
          || refreshJitterMillis < 0) {
        throw new IllegalArgumentException(
            "behaviour needs meanPages >= 1, meanThinkSeconds > 0, meanPatienceMinutes > 0, jitter >= 0");
      }
    }
  }

  private static void positive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0, was " + value);
    }
  }

  private static void nonNegative(String what, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(what + " must be >= 0, was " + value);
    }
  }
}
