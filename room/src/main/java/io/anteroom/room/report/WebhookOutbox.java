package io.anteroom.room.report;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The deliveries a room's webhooks still owe, one per change and URL, and when each is due: at once
 * for a new one; after a failure {@link #FIRST_RETRY} doubling per attempt up to {@link
 * #MAX_RETRY}; given up (and said so by the caller) once {@link #GIVE_UP_AFTER} passed since the
 * first attempt. The owner stores every {@link Delivery} it is handed under {@link Delivery#key()}
 * and deletes it once delivered or given up, so the outbox survives a restart; its alarm is {@link
 * #nextDue()}.
 *
 * <p>Invariants: pure (times are passed in); not thread-safe; a delivery is removed only by {@link
 * #delivered} or by a {@link #failed} that gives up, so every change is delivered at least once to
 * every URL unless a receiver fails for {@link #GIVE_UP_AFTER}.
 *
 * <pre>{@code
 * outbox.add(changes, urls, now).forEach(d -> storage.put(d.key(), d));
 * for (Delivery d : outbox.due(now)) { if (post(d)) outbox.delivered(d) else outbox.failed(d, now); }
 * outbox.nextDue().ifPresent(t -> storage.setAlarm(Instant.ofEpochMilli(t)));
 * }</pre>
 */
public final class WebhookOutbox {

  public static final Duration FIRST_RETRY = Duration.ofSeconds(2);
  public static final Duration MAX_RETRY = Duration.ofMinutes(10);
  public static final Duration GIVE_UP_AFTER = Duration.ofHours(24);

  /** Deliveries kept at most; past it the oldest are given up (a receiver down for long). */
  public static final int MAX_PENDING = 10_000;

  /**
   * One change owed to one URL.
   *
   * @param change the change
   * @param url where it goes
   * @param attempts failed attempts so far
   * @param dueMillis when to try next (epoch milliseconds)
   * @param firstMillis when it was first due
   */
  public record Delivery(
      StateChange change, String url, int attempts, long dueMillis, long firstMillis) {

    /** Its storage key: the change's id and the URL's hash, sortable by the change's number. */
    public String key() {
      String[] parts = change.id().split("/");
      long n = Long.parseLong(parts[parts.length - 1]);
      return String.format("%019d/%08x", n, url.hashCode());
    }
  }

  private final TreeMap<String, Delivery> pending = new TreeMap<>();

  /** An outbox holding {@code saved} deliveries (read back after a restart). */
  public WebhookOutbox(Collection<Delivery> saved) {
    saved.forEach(d -> pending.put(d.key(), d));
  }

  /** Owes every change to every URL from {@code nowMillis}; returns the deliveries to store. */
  public List<Delivery> add(Collection<StateChange> changes, List<String> urls, long nowMillis) {
    List<Delivery> added = new ArrayList<>();
    for (StateChange c : changes) {
      for (String url : urls) {
        Delivery d = new Delivery(c, url, 0, nowMillis, nowMillis);
        if (pending.putIfAbsent(d.key(), d) == null) {
          added.add(d);
        }
      }
    }
    return added;
  }

  /** The deliveries due at {@code nowMillis}, oldest change first. */
  public List<Delivery> due(long nowMillis) {
    return pending.values().stream().filter(d -> d.dueMillis() <= nowMillis).toList();
  }

  public void delivered(Delivery d) {
    pending.remove(d.key());
  }

  /**
   * A failed attempt at {@code nowMillis}: the delivery rescheduled (store it), or empty when it is
   * given up (delete it).
   */
  public Optional<Delivery> failed(Delivery d, long nowMillis) {
    if (nowMillis - d.firstMillis() >= GIVE_UP_AFTER.toMillis()) {
      pending.remove(d.key());
      return Optional.empty();
    }
    int attempts = d.attempts() + 1;
    Delivery next =
        new Delivery(
            d.change(),
            d.url(),
            attempts,
            nowMillis + backoff(attempts).toMillis(),
            d.firstMillis());
    pending.put(next.key(), next);
    return Optional.of(next);
  }

  /** The wait after the {@code attempts}-th failure: 2 s, 4 s, 8 s, ... at most 10 min. */
  public static Duration backoff(int attempts) {
    long ms = FIRST_RETRY.toMillis();
    for (int i = 1; i < attempts && ms < MAX_RETRY.toMillis(); i++) {
      ms *= 2;
    }
    return Duration.ofMillis(Math.min(ms, MAX_RETRY.toMillis()));
  }

  /** When the next delivery is due, if any. */
  public OptionalLong nextDue() {
    return pending.values().stream().mapToLong(Delivery::dueMillis).min();
  }

  /** The deliveries over {@link #MAX_PENDING}, oldest change first: give them up (delete them). */
  public List<Delivery> overflow() {
    List<Delivery> out = new ArrayList<>();
    while (pending.size() > MAX_PENDING) {
      out.add(pending.pollFirstEntry().getValue());
    }
    return out;
  }

  public int size() {
    return pending.size();
  }

  /** The deliveries owed, oldest change first. */
  public List<Delivery> pending() {
    return pending.values().stream().sorted(Comparator.comparing(Delivery::key)).toList();
  }
}
