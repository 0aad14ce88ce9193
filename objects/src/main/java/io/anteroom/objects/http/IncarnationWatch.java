package io.anteroom.objects.http;

import io.anteroom.objects.Incarnation;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts how often the objects a client calls were recreated behind its back: the replies of its
 * transports ({@link HttpObjectTransport.Builder#incarnations}, {@link
 * RoutingObjectTransport.Builder#incarnations}) name the runtime instance that served them ({@link
 * HttpObjectServer#INCARNATION_HEADER}), and a group's instance that differs from the one seen
 * before is a change: a coordinator restarted, or a shard has a new leader. A client that decided
 * from what the old instance answered (a waiting room's gateway, say) learns so before the reply
 * that carries the new instance completes, even when none of its own calls failed: its calls may
 * just have waited for the new leader, while other clients' calls to the old one failed.
 *
 * <p>The first reply of a group is no change. Replies without the header (older servers, a shard
 * that lost its leader as the reply left) change nothing. A reply of an old instance that arrives
 * after one of the new counts again: the count errs towards more changes, never fewer. At most
 * {@value #MAX_GROUPS} groups are remembered; a server naming more is not one of ours, and the
 * watch then starts over (a change is counted).
 *
 * <p>Thread-safe.
 */
public final class IncarnationWatch {
  static final int MAX_GROUPS = 1024;

  private final ConcurrentHashMap<String, Long> seen = new ConcurrentHashMap<>();
  private final AtomicLong changes = new AtomicLong();

  /** How many changes were seen so far; it only grows. */
  public long changes() {
    return changes.get();
  }

  /** Notes the instance a reply named (the header's value; null or malformed: nothing). */
  void observe(String header) {
    if (header != null) Incarnation.parse(header).ifPresent(this::observe);
  }

  /** Notes the instance a reply named. */
  public void observe(Incarnation incarnation) {
    if (!seen.containsKey(incarnation.group()) && seen.size() >= MAX_GROUPS) {
      seen.clear();
      changes.incrementAndGet();
    }
    // counted inside the group's update: a reply that then finds the new instance already noted
    // completes after the count went up
    seen.compute(
        incarnation.group(),
        (group, before) -> {
          if (before != null && before != incarnation.id()) changes.incrementAndGet();
          return incarnation.id();
        });
  }
}
