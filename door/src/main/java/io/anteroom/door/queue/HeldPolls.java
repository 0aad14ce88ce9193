package io.anteroom.door.queue;

import io.anteroom.room.RoomState;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The queue pages' held polls of one gateway (the push of {@code docs/gateway.md}, "Your turn
 * without delay"): at most {@code max} at a time, each of a room and a bucket, woken by {@link
 * #onState} when {@link EntryRule} says its bucket may enter, in the order they were held. A poll
 * is settled once: woken ({@code true}), expired by its adapter's timer or dropped when its client
 * left ({@code false}); either way its place is freed at once. A held poll holds no ticket and no
 * slot of the room: it is not a request to the room, only a wait for its next state.
 *
 * <p>Thread-safe: holds come from event loops or servlet threads, states from the coordination's
 * thread; one monitor per room.
 */
public final class HeldPolls {

  /** The most polls held at a time by default ({@code maxHeldPolls}). */
  public static final int DEFAULT_MAX = 10_000;

  /**
   * How long a poll is held by default before it is answered "not yet" ({@code pollHoldSeconds}).
   */
  public static final int DEFAULT_HOLD_SECONDS = 25;

  private final int max;
  private final AtomicInteger held = new AtomicInteger();
  private final Map<Object, Room> rooms = new ConcurrentHashMap<>();

  /** Holds at most {@code max} polls at a time (0: the push is off, every poll is refused). */
  public HeldPolls(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("maxHeldPolls: " + max + " is negative");
    }
    this.max = max;
  }

  /**
   * Exports the polls held now and the bound as the gauges {@value #HELD_GAUGE} and {@value
   * #MAX_GAUGE} of {@code registry} (Prometheus: {@code anteroom_push_held_polls}, {@code
   * anteroom_push_max_held_polls}); returns this.
   */
  public HeldPolls exportTo(com.codahale.metrics.MetricRegistry registry) {
    registry.gauge(HELD_GAUGE, () -> this::held);
    registry.gauge(MAX_GAUGE, () -> this::max);
    return this;
  }

  /** The gauge of the polls held now. */
  public static final String HELD_GAUGE = "anteroom.push.held_polls";

  /** The gauge of the bound ({@code maxHeldPolls}). */
  public static final String MAX_GAUGE = "anteroom.push.max_held_polls";

  /** The polls held now. */
  public int held() {
    return held.get();
  }

  /** The most polls held at a time. */
  public int max() {
    return max;
  }

  /** One room's held polls by bucket, oldest first. */
  private static final class Room {
    final BooleanSupplier paused;
    final TreeMap<Long, ArrayDeque<Poll>> byBucket = new TreeMap<>();

    /** The newest state that woke polls (epoch ms): an older or the same one wakes nobody. */
    long lastStateMillis = Long.MIN_VALUE;

    Room(BooleanSupplier paused) {
      this.paused = paused;
    }
  }

  /** One held poll: settled once, then its place is free. */
  public final class Poll {
    private final Room room;
    private final long bucketId;
    private final long seenMillis;
    private final CompletableFuture<Boolean> outcome = new CompletableFuture<>();

    private Poll(Room room, long bucketId, long seenMillis) {
      this.room = room;
      this.bucketId = bucketId;
      this.seenMillis = seenMillis;
    }

    /** Completes with {@code true} when woken, {@code false} when expired or dropped. */
    public CompletableFuture<Boolean> outcome() {
      return outcome;
    }

    /** The adapter's timer ran out, or the client left: settled "not yet", the place is freed. */
    public void release() {
      settle(false);
    }

    /** Woken now, unless settled before. */
    void wake() {
      settle(true);
    }

    private void settle(boolean enter) {
      synchronized (room) {
        ArrayDeque<Poll> polls = room.byBucket.get(bucketId);
        if (polls == null || !polls.remove(this)) {
          return; // woken or released before
        }
        if (polls.isEmpty()) {
          room.byBucket.remove(bucketId);
        }
      }
      held.decrementAndGet();
      outcome.complete(enter);
    }
  }

  /**
   * Holds a poll of a waiting user of {@code bucketId} in {@code room} (any object that stands for
   * the room's state: its gate), whose page shows the state of {@code seenMillis}; null when {@code
   * max} polls are held already (the page keeps refreshing). {@code paused} says whether the room
   * queues everyone now.
   */
  public Poll hold(Object room, long bucketId, long seenMillis, BooleanSupplier paused) {
    if (held.incrementAndGet() > max) {
      held.decrementAndGet();
      return null;
    }
    Room r = rooms.computeIfAbsent(room, k -> new Room(paused));
    Poll p = new Poll(r, bucketId, seenMillis);
    synchronized (r) {
      r.byBucket.computeIfAbsent(bucketId, k -> new ArrayDeque<>()).add(p);
    }
    return p;
  }

  /**
   * Wakes {@code poll} at once if {@code state}, the room's state when it was held, is newer than
   * its page's and lets its bucket enter (a state that came before the poll was held).
   */
  public void check(Poll poll, RoomState state) {
    if (state != null
        && poll.seenMillis < state.asOf().toEpochMilli()
        && EntryRule.entries(state, poll.bucketId, poll.room.paused.getAsBoolean()) > 0) {
      poll.wake();
    }
  }

  /**
   * A new state of {@code room}: wakes, bucket by bucket, up to {@link EntryRule#entries} of its
   * polls whose page shows an older state (oldest held first). Polls of a page that already shows
   * this state stay held: its own request was decided on it. A state no newer than the last one
   * seen wakes nobody (its slots were offered already).
   */
  public void onState(Object room, RoomState state) {
    Room r = rooms.get(room);
    if (r == null) {
      return;
    }
    long asOf = state.asOf().toEpochMilli();
    var woken = new java.util.ArrayList<Poll>();
    synchronized (r) {
      if (asOf <= r.lastStateMillis) {
        return;
      }
      r.lastStateMillis = asOf;
      boolean paused = r.paused.getAsBoolean();
      for (Iterator<Map.Entry<Long, ArrayDeque<Poll>>> buckets = r.byBucket.entrySet().iterator();
          buckets.hasNext(); ) {
        Map.Entry<Long, ArrayDeque<Poll>> bucket = buckets.next();
        long entries = EntryRule.entries(state, bucket.getKey(), paused);
        for (Iterator<Poll> polls = bucket.getValue().iterator();
            entries > 0 && polls.hasNext(); ) {
          Poll p = polls.next();
          if (p.seenMillis < asOf) {
            polls.remove();
            woken.add(p);
            entries--;
          }
        }
        if (bucket.getValue().isEmpty()) {
          buckets.remove();
        }
      }
    }
    for (Poll p : woken) {
      held.decrementAndGet();
      p.outcome.complete(true);
    }
  }

  /**
   * Forgets {@code room} (deleted): its held polls are settled "not yet" at once (each page then
   * refreshes and learns what became of its room) and its entry is dropped, so a gateway whose
   * rooms come and go keeps no trace of the gone ones.
   */
  public void forget(Object room) {
    Room r = rooms.remove(room);
    if (r == null) {
      return;
    }
    var released = new java.util.ArrayList<Poll>();
    synchronized (r) {
      r.byBucket.values().forEach(released::addAll);
      r.byBucket.clear();
    }
    for (Poll p : released) {
      held.decrementAndGet();
      p.outcome.complete(false);
    }
  }

  /** The rooms with an entry here (held polls now or before): what is kept of each room. */
  public int rooms() {
    return rooms.size();
  }

  /** Whether polls of {@code room} are held (the gate's listener does nothing otherwise). */
  public boolean holds(Object room) {
    Room r = rooms.get(room);
    if (r == null) {
      return false;
    }
    synchronized (r) {
      return !r.byBucket.isEmpty();
    }
  }
}
