package io.anteroom.coordinator;

import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;
import io.anteroom.objects.StorageOptions;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.Rules;
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
  private MinuteCounter counter;
  private Position saved;

  CounterObject(ObjectContext ctx) {
    this.storage = ctx.storage();
    ctx.blockConcurrencyWhile(
        () -> {
          saved = storage.get(POSITION_KEY, Position.class).orElse(null);
          return null;
        });
  }

  /** The counter's minute and how many numbers of it were consumed. */
  record Position(long minute, long consumed) {}

  @Override
  public Grant take(Rules rules, CounterKey key, long limit) {
    if (counter == null) {
      counter = new MinuteCounter(rules);
      if (saved != null) {
        counter.restore(saved.minute(), saved.consumed());
      }
    }
    long before = counter.consumed(key.minute());
    Grant grant = counter.take(key.minute(), limit);
    long after = counter.consumed(key.minute());
    if (after != before) {
      storage.put(
          POSITION_KEY,
          new Position(counter.minute(), after),
          StorageOptions.DEFAULT.withAllowUnconfirmed());
    }
    return grant;
  }

  @Override
  public CompletableFuture<Grant> takeAsync(Rules rules, CounterKey key, long limit) {
    return CompletableFuture.completedFuture(take(rules, key, limit));
  }
}
