package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one admission point (a gateway process) remembers about ticket ids, so that a copied or
 * replayed cookie counts once: which waiting tickets it admitted, which sessions it ended, in which
 * expiry minute it counts each admitted ticket, and how many users of each whole bucket it let in.
 * Shared by all {@link RoomWorker}s of a room in the process (its event-loop shards and its
 * degraded fallback) and kept across configuration changes.
 *
 * <p>The room's counts stay per-user-state-free ({@code waiting-room.md}); this ledger only stops
 * one ticket from being used twice at this admission point:
 *
 * <ul>
 *   <li>A waiting ticket is admitted at most once: its id is recorded at the admission ({@link
 *       #recordAdmission}). A tab racing its own admission (same cookie jar, request sent before
 *       the admitted cookie arrived) is within {@link #RACE_GRACE} of it and is shown the queue
 *       without a new cookie, so the admitted cookie in the jar is not replaced; later presenters
 *       of the waiting ticket are new arrivals ({@link #waitingStatus}).
 *   <li>An admitted ticket's count moves forward at most once per expiry minute, from where this
 *       ledger counts it, not from where a (possibly stale) cookie says ({@link #renewFrom}).
 *   <li>A session is ended once ({@link #revoke}); its ticket is not honoured again ({@link
 *       #revoked}).
 *   <li>Whole-bucket treatment is given to at most as many users of a bucket as the bucket was seen
 *       to count ({@link #takeWholeBucketPlace}).
 * </ul>
 *
 * <p>Entries exist only for tickets this room sealed and admitted (a client cannot make up ids: the
 * cookie is authenticated), so the ledger grows with admissions, not with requests; entries are
 * dropped once their ticket can no longer be valid, and at most {@code capacity} are kept (beyond
 * it new ids are not remembered: each copy then counts as its cookie says, as before this ledger
 * existed). Time comes in as arguments; thread-safe: changes take one monitor (short critical
 * sections); the two questions of an admitted user's every request, {@link #revoked} and {@link
 * #countedThrough}, read without it (a concurrent map of entries whose fields are volatile), so
 * request threads do not queue on the ledger for what changes nothing.
 */
public final class TicketLedger {

  /**
   * How long after an admission a request with the admitted waiting ticket is held, not renewed.
   */
  public static final Duration RACE_GRACE = Duration.ofSeconds(30);

  /** Returned by {@link #renewFrom} and {@link #revoke} when nothing is to be counted. */
  public static final long NOTHING = Long.MIN_VALUE;

  /** What a waiting ticket's id means here. */
  public enum WaitingStatus {
    /** Not admitted here: the ticket keeps its place. */
    WAITING,
    /** Admitted moments ago: a racing tab; show the queue and leave its cookie alone. */
    JUST_ADMITTED,
    /** Admitted earlier: this copy is a new arrival. */
    ADMITTED_BEFORE
  }

  private static final long UNKNOWN = Long.MIN_VALUE;

  private static final class Entry {
    volatile long admittedAtMillis = UNKNOWN;
    volatile long countedExpiryMinute = UNKNOWN;
    volatile boolean revoked;
    volatile long keepUntilMinute;
  }

  private static final class WholeBucket {
    long counted;
    long admitted;
    long touchedMinute;
  }

  private final int capacity;
  private final Map<Long, Entry> ids = new ConcurrentHashMap<>();
  private final Map<Long, WholeBucket> wholeBuckets = new HashMap<>();
  private volatile long prunedMinute = UNKNOWN;

  /**
   * How many remembered entries are revoked (changed under the monitor): while none is, {@link
   * #revoked} answers without looking the id up (sessions are rarely ended, and the question is an
   * admitted user's every request).
   */
  private volatile int revokedEntries;

  /**
   * A ledger that remembers up to {@code 2^16} ticket ids (a small room; see {@link #capacityFor}).
   */
  public TicketLedger() {
    this(1 << 16);
  }

  /**
   * A capacity for a room of {@code totalActiveUsers}: eight ids per user the room may hold (the
   * sessions of a session length, the waiting tickets admitted within a queue timeout, with room to
   * spare), at least {@code 2^16} and at most {@code 2^23} (about 100 bytes each: 6.5 MB to 800
   * MB).
   */
  public static int capacityFor(int totalActiveUsers) {
    return (int) Math.min(1 << 23, Math.max(1 << 16, 8L * totalActiveUsers));
  }

  /**
   * @param capacity the most ticket ids remembered at once
   */
  public TicketLedger(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    this.capacity = capacity;
  }

  /** How many ticket ids are remembered now. */
  public synchronized int size() {
    return ids.size();
  }

  /** What presenting the waiting ticket {@code id} at {@code now} means. */
  public synchronized WaitingStatus waitingStatus(long id, Instant now) {
    pruneIfDue(Minutes.minuteOf(now));
    Entry e = ids.get(id);
    if (e == null || e.admittedAtMillis == UNKNOWN) {
      return WaitingStatus.WAITING;
    }
    return now.toEpochMilli() - e.admittedAtMillis < RACE_GRACE.toMillis()
        ? WaitingStatus.JUST_ADMITTED
        : WaitingStatus.ADMITTED_BEFORE;
  }

  /**
   * Records that {@code id} was admitted at {@code now} and counted in {@code expiryMinute}; the
   * entry is kept until {@code keepUntilMinute} (past the session and past the last minute the
   * waiting ticket could still be presented).
   */
  public synchronized void recordAdmission(
      long id, Instant now, long expiryMinute, long keepUntilMinute) {
    Entry e = entry(id, Minutes.minuteOf(now), keepUntilMinute);
    if (e != null) {
      e.admittedAtMillis = now.toEpochMilli();
      e.countedExpiryMinute = expiryMinute;
      if (e.revoked) {
        e.revoked = false;
        revokedEntries--;
      }
    }
  }

  /**
   * Forgets this point's admission of waiting ticket {@code id}, given back because the admission
   * must not stand (another gateway let the same place in first, or that could not be checked):
   * returns the expiry minute its count is to be taken from ({@code cookieExpiry} when the id was
   * not remembered), or {@link #NOTHING} when it was given back already. A waiting ticket of this
   * id is then {@link WaitingStatus#WAITING} again, and an admitted one of another gateway is
   * counted as its cookie says.
   */
  public synchronized long forgetAdmission(long id, long cookieExpiry, Instant now) {
    pruneIfDue(Minutes.minuteOf(now));
    Entry e = ids.get(id);
    if (e == null) {
      return cookieExpiry;
    }
    if (e.admittedAtMillis == UNKNOWN) {
      return NOTHING;
    }
    long from = countedAt(e, cookieExpiry);
    e.admittedAtMillis = UNKNOWN;
    e.countedExpiryMinute = UNKNOWN;
    return from;
  }

  /**
   * Whether the session of admitted ticket {@code id} was ended here. Takes no lock, and looks
   * nothing up while no remembered session is ended.
   */
  public boolean revoked(long id) {
    if (revokedEntries == 0) { // read before the entry's flag, which revoke sets before this
      return false;
    }
    Entry e = ids.get(id);
    return e != null && e.revoked;
  }

  /**
   * Whether a renewal of admitted ticket {@code id} to {@code newExpiry} at minute {@code minute}
   * would change nothing here: {@link #renewFrom} would return {@link #NOTHING} and leave its entry
   * as it is (counted at {@code newExpiry} or later, and at or after the cookie's {@code
   * cookieExpiry}, kept past {@code newExpiry}, and no pruning due). Takes no lock: the question of
   * an admitted user's every request after its first of the minute. False means "ask {@link
   * #renewFrom}", never "counted elsewhere".
   */
  public boolean countedThrough(long id, long cookieExpiry, long newExpiry, long minute) {
    if (minute != prunedMinute) {
      return false;
    }
    Entry e = ids.get(id);
    if (e == null) {
      return false;
    }
    long counted = e.countedExpiryMinute;
    return counted != UNKNOWN
        && counted >= newExpiry
        && counted >= cookieExpiry
        && e.keepUntilMinute > newExpiry;
  }

  /**
   * A renewal of admitted ticket {@code id} to {@code newExpiry}: returns the expiry minute to move
   * its count from ({@code -1} there, {@code +1} at {@code newExpiry}), or {@link #NOTHING} when it
   * is counted at {@code newExpiry} or later already. Where this ledger does not know the ticket
   * (admitted by another gateway, or before a restart), it is counted where the cookie says ({@code
   * cookieExpiry}).
   */
  public synchronized long renewFrom(long id, long cookieExpiry, long newExpiry, Instant now) {
    Entry e = entry(id, Minutes.minuteOf(now), newExpiry + 1);
    long from = countedAt(e, cookieExpiry);
    if (from >= newExpiry) {
      if (e != null) {
        e.countedExpiryMinute = from;
      }
      return NOTHING;
    }
    if (e != null) {
      e.countedExpiryMinute = newExpiry;
      e.keepUntilMinute = Math.max(e.keepUntilMinute, newExpiry + 1);
    }
    return from;
  }

  /**
   * Ends the session of admitted ticket {@code id}: returns the expiry minute to take its count
   * from, or {@link #NOTHING} when it was ended here already.
   */
  public synchronized long revoke(long id, long cookieExpiry, Instant now) {
    Entry e = entry(id, Minutes.minuteOf(now), cookieExpiry + 1);
    if (e == null) {
      return cookieExpiry; // not remembered (over capacity): counted as its cookie says
    }
    if (e.revoked) {
      return NOTHING;
    }
    e.revoked = true;
    revokedEntries++; // after the flag: a reader that sees the count sees the flag
    long from = countedAt(e, cookieExpiry);
    e.keepUntilMinute = Math.max(e.keepUntilMinute, Math.max(from, cookieExpiry) + 1);
    return from;
  }

  /**
   * Whether one more user of whole bucket {@code bucketId} may be treated as such (drawing against
   * the whole pool, with the slots the bucket's count reserved), given that the room's state counts
   * {@code countedWaiting} users in it now. At most the largest count seen are given the place; the
   * rest (copies of one ticket, presented at several gateways) draw like the partial bucket.
   */
  public synchronized boolean takeWholeBucketPlace(
      long bucketId, long countedWaiting, Instant now) {
    long m = Minutes.minuteOf(now);
    pruneIfDue(m);
    WholeBucket b = wholeBuckets.computeIfAbsent(bucketId, k -> new WholeBucket());
    b.counted = Math.max(b.counted, countedWaiting);
    b.touchedMinute = m;
    if (b.admitted >= b.counted) {
      return false;
    }
    b.admitted++;
    return true;
  }

  /** Gives back a whole-bucket place taken by a user that was not admitted after all. */
  public synchronized void returnWholeBucketPlace(long bucketId) {
    WholeBucket b = wholeBuckets.get(bucketId);
    if (b != null && b.admitted > 0) {
      b.admitted--;
    }
  }

  /**
   * Where a ticket is counted: the later of this ledger's minute and the cookie's. A cookie that
   * says later was renewed by another gateway (cookies cannot be forged, and a renewal only moves
   * forward); one that says earlier is a stale copy.
   */
  private static long countedAt(Entry e, long cookieExpiry) {
    return e == null || e.countedExpiryMinute == UNKNOWN
        ? cookieExpiry
        : Math.max(e.countedExpiryMinute, cookieExpiry);
  }

  private Entry entry(long id, long minute, long keepUntilMinute) {
    pruneIfDue(minute);
    Entry e = ids.get(id);
    if (e == null) {
      if (ids.size() >= capacity) {
        return null;
      }
      e = new Entry();
      ids.put(id, e);
    }
    e.keepUntilMinute = Math.max(e.keepUntilMinute, keepUntilMinute);
    return e;
  }

  /** Drops, once a minute, entries whose tickets can no longer be valid. */
  private void pruneIfDue(long minute) {
    if (minute == prunedMinute) {
      return;
    }
    prunedMinute = minute;
    for (Iterator<Entry> it = ids.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.keepUntilMinute < minute) {
        it.remove();
        if (e.revoked) {
          revokedEntries--;
        }
      }
    }
    // a bucket not asked about for an hour has been emptied (its users refresh every few seconds)
    wholeBuckets.values().removeIf(b -> b.touchedMinute < minute - 60);
  }
}
