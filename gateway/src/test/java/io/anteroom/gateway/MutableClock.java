package io.anteroom.gateway;

import io.anteroom.objects.ManualScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Virtual time for tests: a clock that moves only when told to, backed by the objects runtime's
 * {@link ManualScheduler}, so moving it also fires the durable objects' due alarms (the data
 * center's reports to the global object).
 */
final class MutableClock extends Clock {
  final ManualScheduler scheduler;

  MutableClock(Instant start) {
    this.scheduler = new ManualScheduler(start);
  }

  void advance(Duration d) {
    scheduler.advance(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return scheduler.clock().instant();
  }
}
