package io.anteroom.coordinator;

import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.Rules;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * The RPC interface of a counter object ({@link RoomObjects#COUNTER_NAMESPACE}, object name {@link
 * CounterKey#objectName()}): one per room and data center, plus the room's Anywhere counter. Its
 * rule is {@link MinuteCounter#take}.
 *
 * <pre>{@code
 * Decision d = worker.decide(ticket, now);
 * if (d instanceof Decision.Draw draw) {
 *     objects.counter(draw.counter())
 *         .takeCarryingAsync(config.rules(), draw.counter(), draw.limit(), draw.carriedSince())
 *            .thenApply(grant -> worker.onCounterReply(draw, grant, clock.instant()));
 * }
 * }</pre>
 */
public interface RoomCounter {

  /**
   * Draws the next number of {@code key.minute()}; granted (and, with spec rules, only then
   * consumed) below {@code limit} less the numbers of the previous minute this counter consumed at
   * or after {@code carriedSince} ({@link io.anteroom.room.Decision.Draw#carriedSince}; {@code
   * null}: none).
   */
  Grant takeCarrying(Rules rules, CounterKey key, long limit, Instant carriedSince);

  /** The same, without blocking the caller. */
  CompletableFuture<Grant> takeCarryingAsync(
      Rules rules, CounterKey key, long limit, Instant carriedSince);

  /**
   * {@link #takeCarrying} that carries nothing: the call of gateways of versions before the
   * counters carried late admissions (kept so that an upgraded coordinator serves them until they
   * are upgraded too, see {@code docs/upgrades.md}).
   */
  Grant take(Rules rules, CounterKey key, long limit);

  /** The same, without blocking the caller. */
  CompletableFuture<Grant> takeAsync(Rules rules, CounterKey key, long limit);

  /**
   * Counts {@code admissions} of {@code key.minute()} that no counter granted (made while the
   * counters could not be reached), up to {@code limit} numbers in all ({@link
   * io.anteroom.room.MinuteCounter#charge}); returns how many it could not absorb.
   */
  CompletableFuture<Long> chargeAsync(Rules rules, CounterKey key, long admissions, long limit);
}
