package io.anteroom.sim.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.QueueOrder;
import org.junit.jupiter.api.Test;

/** The event and random cases of the simulator, smaller than the report's, with their rules. */
class EventExperimentsTest {

  @Test
  void aShuffledPrequeueIsHeldUntilTheStartAndAdmittedByPlaceNotArrival() {
    var r = EventExperiments.prequeue(true, 1000, 3);
    assertThat(r.admittedBeforeStart()).isZero();
    assertThat(r.admitted()).isEqualTo(1000);
    // the simulator's target: no minute above 1.05 N (a whole bucket may enter a little beyond N)
    assertThat(r.maxMinuteOverN()).isLessThanOrEqualTo(1.05);
    assertThat(r.peakActiveOverT()).isLessThanOrEqualTo(1.02);
    assertThat(Math.abs(r.arrivalRank())).isLessThan(0.1);
    assertThat(r.placeRank()).isGreaterThan(0.9);
  }

  @Test
  void withoutShuffleThePrequeueKeepsArrivalOrder() {
    var r = EventExperiments.prequeue(false, 1000, 3);
    assertThat(r.admittedBeforeStart()).isZero();
    assertThat(r.arrivalRank()).isGreaterThan(0.9);
  }

  @Test
  void randomHoldsTheLimitsAsFifoDoesAndIgnoresArrivalOrder() {
    var random = EventExperiments.steady(QueueOrder.RANDOM, 10, 30, 5);
    var fifo = EventExperiments.steady(QueueOrder.FIFO, 10, 30, 5);
    for (var r : new EventExperiments.Result[] {random, fifo}) {
      assertThat(r.maxMinuteOverN()).isLessThanOrEqualTo(1.05);
      assertThat(r.peakActiveOverT()).isLessThanOrEqualTo(1.05);
    }
    assertThat(fifo.arrivalRank()).isGreaterThan(0.95);
    // a late arrival can still not enter before it arrives, so some correlation remains
    assertThat(random.arrivalRank()).isLessThan(0.9);
    assertThat(random.waits()[4]).isGreaterThan(fifo.waits()[4]); // a wider spread of waits
    assertThat(random.waits()[2]).isGreaterThan(fifo.waits()[2]);
  }
}
