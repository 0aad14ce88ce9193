package io.anteroom.sim;

import java.util.List;
import java.util.Optional;

/**
 * The built-in scenarios: the traffic situations of issue 3, on the spec's model room (T = 1000, N
 * = 200, S = 5 min; 3 data centers × 4 workers).
 *
 * <p>With 5 pages 30 s apart and a 5 min session, an admitted user holds a slot about 7 minutes, so
 * the room sustains about 140 admissions a minute once T binds; N binds during spikes.
 */
public final class Scenarios {
  private Scenarios() {}

  private static final Scenario.Topology THREE = Scenario.Topology.threeDataCenters();

  private static final List<Scenario> ALL =
      List.of(
          new Scenario(
              "steady",
              "steady overload: 250 new users/min, about 1.8x what T sustains",
              Scenario.Limits.DEFAULT,
              THREE,
              Scenario.Profile.constant(250),
              Scenario.Behaviour.DEFAULT,
              60,
              true),
          new Scenario(
              "ramp",
              "arrivals ramp from 0 to 400 users/min over an hour",
              Scenario.Limits.DEFAULT,
              THREE,
              Scenario.Profile.of(0, 0, 60, 400),
              Scenario.Behaviour.DEFAULT,
              60,
              false),
          new Scenario(
              "step-spike",
              "60 users/min, then a step to 800/min for 5 minutes at minute 15",
              Scenario.Limits.DEFAULT,
              THREE,
              Scenario.Profile.of(0, 60, 15, 60, 15, 800, 20, 800, 20, 60),
              Scenario.Behaviour.DEFAULT,
              45,
              false),
          new Scenario(
              "spike-after-low",
              "40 minutes at 15 users/min (about 10 % utilization), then 1500/min for 5 minutes",
              Scenario.Limits.DEFAULT,
              THREE,
              Scenario.Profile.of(0, 15, 40, 15, 40, 1500, 45, 1500, 45, 60),
              Scenario.Behaviour.DEFAULT,
              60,
              false),
          new Scenario(
              "uneven-workers",
              "ramp 0 to 300 users/min; in every data center one worker gets 8 of 11 requests",
              Scenario.Limits.DEFAULT,
              THREE.withDataCenters(
                  List.of(
                      new Scenario.DataCenter("san-jose", List.of(8.0, 1.0, 1.0, 1.0), 0.4, 0),
                      new Scenario.DataCenter("london", List.of(8.0, 1.0, 1.0, 1.0), 0.35, 0),
                      new Scenario.DataCenter("nairobi", List.of(8.0, 1.0, 1.0, 1.0), 0.25, 0))),
              Scenario.Profile.of(0, 0, 60, 300),
              Scenario.Behaviour.DEFAULT,
              60,
              false),
          new Scenario(
              "new-datacenter",
              "120 users/min from 3 data centers; at minute 20 a fourth (delhi, no history) adds 120/min",
              Scenario.Limits.DEFAULT,
              THREE.withDataCenters(
                  List.of(
                      Scenario.DataCenter.even("san-jose", 4, 0.4),
                      Scenario.DataCenter.even("london", 4, 0.35),
                      Scenario.DataCenter.even("nairobi", 4, 0.25),
                      new Scenario.DataCenter("delhi", List.of(1.0, 1.0), 1.0, 20))),
              Scenario.Profile.of(0, 120, 20, 120, 20, 240),
              Scenario.Behaviour.DEFAULT,
              45,
              false),
          new Scenario(
              "partition",
              "T = 1000 with N out of the way (2000/min): 100 users/min, then 1000/min from 10:50; at"
                  + " 10:55 every gateway is cut off from the coordinator for 20 s (failMode degrade),"
                  + " across the minute boundary",
              new Scenario.Limits(1000, 2000, 5, 20, 5, 1.0),
              THREE.withOutage(new Scenario.Outage(655_000, 20_000)),
              Scenario.Profile.of(0, 100, 10.8, 100, 10.8, 1000, 16, 1000, 16, 100),
              Scenario.Behaviour.DEFAULT,
              14,
              false),
          new Scenario(
              "partition-small",
              "the partition of the issue that found it: T = 10, two gateways (dublin, nairobi); 2 users/min,"
                  + " then 120/min from 10:55, when both are cut off from the coordinator for 20 s",
              new Scenario.Limits(10, 1000, 5, 20, 5, 1.0),
              new Scenario.Topology(
                      List.of(
                          Scenario.DataCenter.even("dublin", 1, 0.5),
                          Scenario.DataCenter.even("nairobi", 1, 0.5)),
                      5_000,
                      5_000,
                      100,
                      5,
                      65)
                  .withOutage(new Scenario.Outage(655_000, 20_000)),
              Scenario.Profile.of(0, 2, 10.9, 2, 10.9, 120, 30, 120),
              Scenario.Behaviour.DEFAULT,
              14,
              false),
          new Scenario(
              "single-node",
              "the embedded default: one process, one data center of 2 event-loop workers reporting every second; "
                  + "steady overload of 250 users/min",
              Scenario.Limits.DEFAULT,
              Scenario.Topology.singleNode(),
              Scenario.Profile.constant(250),
              Scenario.Behaviour.DEFAULT,
              30,
              true));

  /** Every built-in scenario, in a fixed order. */
  public static List<Scenario> all() {
    return ALL;
  }

  /** The built-in scenario of that name. */
  public static Optional<Scenario> named(String name) {
    return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The built-in scenario of that name, or an error listing the names that exist. */
  public static Scenario require(String name) {
    return named(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown scenario '"
                        + name
                        + "'; built-in scenarios: "
                        + String.join(", ", ALL.stream().map(Scenario::name).toList())));
  }
}
