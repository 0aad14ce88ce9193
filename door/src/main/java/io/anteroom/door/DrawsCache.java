package io.anteroom.door;

import io.anteroom.door.Answer.Respond;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The public list of draws ({@link io.anteroom.door.queue.DrawResponder#DRAWS_PATH}) computed once
 * per set of rooms and kept until it can change: a room's configuration changes (a new {@link
 * Rooms.Snapshot}) or one of its draws reaches its {@code revealAt} (its secret appears, and an
 * hour of random queueing starts). The list costs an HMAC and a SHA-256 per draw, up to 26 per room
 * under random queueing, and it is public: recomputed on every request, a flood of it would cost
 * the gateway about 100 µs of CPU each (docs/benchmarks.md). Kept per set of rooms a host's request
 * sees, not per host, so a client's made-up {@code Host} headers add nothing here.
 *
 * <p>Thread-safe: two requests at the moment the list changes may both compute it.
 */
final class DrawsCache {
  private record Kept(Respond answer, Instant validUntil) {}

  private record Lists(Rooms.Snapshot snapshot, Map<List<String>, Kept> byRooms) {}

  private volatile Lists lists = new Lists(null, Map.of());

  /** The list for {@code host}'s rooms in {@code snapshot} at {@code clock}'s now. */
  Respond answer(Rooms.Snapshot snapshot, String host, Clock clock) {
    Instant now = clock.instant();
    List<String> rooms = Answers.drawingRooms(snapshot, host);
    Lists current = lists;
    if (current.snapshot() != snapshot) {
      current = new Lists(snapshot, new ConcurrentHashMap<>());
      lists = current;
    }
    Kept kept = current.byRooms().get(rooms);
    if (kept == null || !now.isBefore(kept.validUntil())) {
      var computed = Answers.draws(snapshot, rooms, now);
      kept = new Kept(computed.answer(), computed.validUntil());
      current.byRooms().put(rooms, kept);
    }
    return kept.answer();
  }
}
