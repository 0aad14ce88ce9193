package io.anteroom.sim.engine;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A {@link Clock} that reads the simulated time of an {@link EventLoop}, to the nanosecond, so that
 * core classes taking a {@code Clock} (the room core, threshold monitors, rate controllers) run in
 * virtual time.
 *
 * <p>Single-threaded: it is read only from the event loop's thread, which is the only writer.
 */
public final class VirtualClock extends Clock {
  private final EventLoop loop;
  private final ZoneId zone;

  VirtualClock(EventLoop loop, ZoneId zone) {
    this.loop = loop;
    this.zone = zone;
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return zone.equals(this.zone) ? this : new VirtualClock(loop, zone);
  }

  @Override
  public long millis() {
    return instant().toEpochMilli();
  }

  @Override
  public Instant instant() {
    return loop.instant();
  }

  static VirtualClock utc(EventLoop loop) {
    return new VirtualClock(loop, ZoneOffset.UTC);
  }
}
