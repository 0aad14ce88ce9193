package io.anteroom.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TrafficRunTest {
  private static final Scenario FLAT =
      new Scenario(
          "flat",
          "60 users a minute",
          Scenario.Limits.DEFAULT,
          Scenario.Topology.threeDataCenters(),
          Scenario.Profile.constant(60),
          Scenario.Behaviour.DEFAULT,
          20,
          false);

  private static SimulationResult run(Scenario s, long seed) {
    return Simulation.builder()
        .scenario(s)
        .seed(seed)
        .rooms((sc, st, loop) -> new QueueOnceRoom(5))
        .run();
  }

  @Test
  void everyArrivingUserIsQueuedOnceAndAdmittedOnItsFirstRefresh() {
    Metrics m = run(FLAT, 3).metrics();
    // about 60 arrivals a minute for 20 minutes; the last refreshes fall after the end
    assertThat(m.queuedUsers()).isBetween(1000L, 1400L);
    // each queued user is admitted on its first refresh or gave up before it (3 % have < 20 s of
    // patience); only the users queued in the last ~20 s are still waiting at the end
    assertThat(m.admissions() + m.abandoned()).isBetween(m.queuedUsers() - 30, m.queuedUsers());
    assertThat(m.abandoned()).isBetween(m.queuedUsers() / 100, m.queuedUsers() / 15);
    // the ±1 s refresh jitter lets a few users of minute m refresh before the last ones of m - 1
    assertThat(m.fifoInversions()).isBetween(1L, m.admissions() / 100);
  }

  @Test
  void activeUsersFollowArrivalsTimesTheTimeASessionHoldsItsSlot() {
    SimulationResult r = run(FLAT, 3);
    // 60/min × (2 min of browsing + 5 min session + ~20 s queued) ≈ 440 at steady state
    int[] active = r.series().activeBySecond();
    double lateMean = Arrays.stream(active, 12 * 60, 20 * 60).average().orElseThrow();
    assertThat(lateMean).isBetween(360.0, 520.0);
  }

  @Test
  void usersWhoWaitedLessThanAMinuteDoNotCountInTheWaitError() {
    Metrics m = run(FLAT, 3).metrics();
    assertThat(m.waitSamples()).isZero();
    assertThat(m.meanWaitError()).isNaN();
  }

  @Test
  void impatientUsersGiveUpWhileQueuedAndStopCountingAsWaiting() {
    Scenario impatient =
        new Scenario(
            "impatient",
            "",
            Scenario.Limits.DEFAULT,
            Scenario.Topology.threeDataCenters(),
            Scenario.Profile.constant(60),
            new Scenario.Behaviour(5, 30, 0.1, 1_000),
            10,
            false);
    SimulationResult r = run(impatient, 3);
    // patience averages 6 s, the first refresh comes after ~20 s: most give up, e^{-20/6} ≈ 4 %
    // stay
    assertThat(r.metrics().abandoned()).isGreaterThan(r.metrics().queuedUsers() * 9 / 10);
    assertThat(r.series().waitingBySecond()[599]).isLessThan(30);
  }

  @Test
  void sameSeedGivesTheSameRunAndAnotherSeedADifferentOne() {
    SimulationResult a = run(FLAT, 11);
    SimulationResult b = run(FLAT, 11);
    SimulationResult c = run(FLAT, 12);
    assertThat(b.metrics()).isEqualTo(a.metrics());
    assertThat(b.series().activeBySecond()).isEqualTo(a.series().activeBySecond());
    assertThat(Report.csvLine(b)).isEqualTo(Report.csvLine(a));
    assertThat(c.series().activeBySecond()).isNotEqualTo(a.series().activeBySecond());
  }
}
