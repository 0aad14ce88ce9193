package io.anteroom.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Virtual time for tests: a UTC clock that stands still until the test moves it.
 *
 * <p>Invariants: time never goes backwards ({@link #advance} rejects negative durations, {@link
 * #set} an earlier instant); reads and moves are safe from any thread, so a test may move the clock
 * while a server reads it on its event loop. Every module's tests use this one clock; tests that
 * also need durable-object alarms to fire use the objects runtime's {@code ManualScheduler}, which
 * moves its clock and runs due tasks together.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock();        // 2026-01-01T00:00:00Z
 * var worker = new RoomWorker(config, clock);   // anything that takes a java.time.Clock
 * clock.advance(Duration.ofMinutes(1));
 * }</pre>
 */
public final class ManualClock extends Clock {
  /** The instant a clock made with {@link #ManualClock()} starts at. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicReference<Instant> now;

  /** A clock at {@link #DEFAULT_START}. */
  public ManualClock() {
    this(DEFAULT_START);
  }

  public ManualClock(Instant start) {
    if (start == null) {
      throw new IllegalArgumentException("start must not be null");
    }
    this.now = new AtomicReference<>(start);
  }

  /** Moves the clock forward by {@code d} (zero is allowed) and returns the new instant. */
  public Instant advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("a manual clock only moves forward; got " + d);
    }
    return now.updateAndGet(t -> t.plus(d));
  }

  /** Moves the clock forward to {@code instant}. */
  public void set(Instant instant) {
    now.updateAndGet(
        t -> {
          if (instant.isBefore(t)) {
            throw new IllegalArgumentException(
                "a manual clock only moves forward; it is " + t + ", asked for " + instant);
          }
          return instant;
        });
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public long millis() {
    return now.get().toEpochMilli();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** The same clock: a manual clock is UTC only, and zones do not matter to Anteroom's rules. */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
