package io.anteroom.coordinator;

import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.Rules;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * A counter durable object (one per room and data center, and the room's Anywhere counter): a thin
 * shell over {@link MinuteCounter}.
 *
 * <p>Invariants: one event at a time, so numbers are handed out in order. Every consumed number is
 * saved with an {@code allowUnconfirmed} write (coalesced by the runtime, never delaying the
 * answer): after a restart the counter resumes from the last saved position, so at most the numbers
 * of the last unflushed writes can be handed out twice. (Saving per take rather than on an alarm: a
 * counter that forgot its minute would grant its whole limit again.)
 */
final class CounterObject implements RoomCounter {
  static final String POSITION_KEY = "position";

  private final Storage storage;
  private final Clock clock;
  private MinuteCounter counter;
  private Position saved;

  CounterObject(ObjectContext ctx) {
    this.storage = ctx.storage();
    this.clock = ctx.clock();
    ctx.blockConcurrencyWhile(
        () -> {
          saved = storage.get(POSITION_KEY, Position.class).orElse(null);
          return null;
        });
  }

  /**
   * The counter's minute, how many numbers of it were consumed, and when (per second of it and of
   * the minute before, for the numbers the next minute carries: {@link MinuteCounter.Snapshot}).
   * Positions saved before counters carried have no per-second counts ({@code null}).
   */
  record Position(long minute, long consumed, long[] bySecond, long[] previousBySecond) {
    static Position of(MinuteCounter.Snapshot s) {
      return new Position(s.minute(), s.count(), s.bySecond(), s.previousBySecond());
    }

    MinuteCounter.Snapshot snapshot() {
      return new MinuteCounter.Snapshot(minute, consumed, bySecond, previousBySecond);
    }
  }

  @Override
  public Grant take(Rules rules, CounterKey key, long limit) {
    return takeCarrying(rules, key, limit, null);
  }

  @Override
  public CompletableFuture<Grant> takeAsync(Rules rules, CounterKey key, long limit) {
    return CompletableFuture.completedFuture(take(rules, key, limit));
  }

  @Override
  public Grant takeCarrying(Rules rules, CounterKey key, long limit, Instant carriedSince) {
    MinuteCounter c = counter(rules);
    long before = c.consumed(key.minute());
    Grant grant = c.take(key.minute(), limit, carriedSince, clock.instant());
    saveIfMoved(key, before);
    return grant;
  }

  /**
   * Saved before the answer leaves (unlike a take's coalesced write): a charge is rare, and a
   * restart that forgot it would hand its slots out again.
   */
  @Override
  public CompletableFuture<Long> chargeAsync(
      Rules rules, CounterKey key, long admissions, long limit) {
    MinuteCounter c = counter(rules);
    long before = c.consumed(key.minute());
    long left = c.charge(key.minute(), admissions, limit, clock.instant());
    if (c.consumed(key.minute()) != before) {
      storage.put(POSITION_KEY, Position.of(c.snapshot()));
    }
    return CompletableFuture.completedFuture(left);
  }

  private MinuteCounter counter(Rules rules) {
    if (counter == null) {
      counter = new MinuteCounter(rules);
      if (saved != null) {
        counter.restore(saved.snapshot(), clock.instant());
      }
    }
    return counter;
  }

  private void saveIfMoved(CounterKey key, long before) {
    long after = counter.consumed(key.minute());
    if (after != before) {
      storage.put(
          POSITION_KEY,
          Position.of(counter.snapshot()),
          StorageOptions.DEFAULT.withAllowUnconfirmed());
    }
  }

  @Override
  public CompletableFuture<Grant> takeCarryingAsync(
      Rules rules, CounterKey key, long limit, Instant carriedSince) {
    return CompletableFuture.completedFuture(takeCarrying(rules, key, limit, carriedSince));
  }
}
