package io.anteroom.room.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * The audit log's rule, kept in memory by its owner (the deployment's audit object at the
 * coordinator): entries numbered in order of arrival; at most {@link #MAX_ENTRIES} kept and none
 * older than {@link #MAX_AGE} (whichever drops more). Not thread-safe; the owner serializes calls.
 *
 * <pre>{@code
 * AuditTrail trail = new AuditTrail(savedEntries);
 * AuditTrail.Appended a = trail.append(entry, nowMillis); // save a.entry(), delete a.dropped()
 * List<AuditEntry> newest = trail.page(Long.MAX_VALUE, 50);
 * }</pre>
 */
public final class AuditTrail {

  /** The most entries kept: a busy sale day of changes several times over. */
  public static final int MAX_ENTRIES = 10_000;

  /** The oldest entry kept. */
  public static final Duration MAX_AGE = Duration.ofDays(30);

  /** The most entries one page returns. */
  public static final int MAX_PAGE = 500;

  private final TreeMap<Long, AuditEntry> entries = new TreeMap<>();

  /** A trail holding {@code saved} (e.g. read back from storage after a restart). */
  public AuditTrail(Collection<AuditEntry> saved) {
    saved.forEach(e -> entries.put(e.seq(), e));
  }

  /**
   * An appended entry and the numbers of the entries that fell out of the log with it.
   *
   * @param entry the entry as kept, with its number
   * @param dropped the numbers of the entries no longer kept
   */
  public record Appended(AuditEntry entry, List<Long> dropped) {}

  /**
   * Appends {@code entry} (its {@code seq} is replaced by the next number) at {@code nowMillis}.
   */
  public Appended append(AuditEntry entry, long nowMillis) {
    long next = entries.isEmpty() ? 1 : entries.lastKey() + 1;
    AuditEntry kept = entry.withSeq(next);
    entries.put(next, kept);
    List<Long> dropped = new ArrayList<>();
    long oldest = nowMillis - MAX_AGE.toMillis();
    while (entries.size() > MAX_ENTRIES
        || (!entries.isEmpty() && entries.firstEntry().getValue().atMillis() < oldest)) {
      dropped.add(entries.pollFirstEntry().getKey());
    }
    return new Appended(kept, dropped);
  }

  /**
   * Up to {@code limit} (1..{@link #MAX_PAGE}) entries numbered below {@code before}, newest first:
   * the first page with {@code Long.MAX_VALUE}, the next one with the last entry's number.
   */
  public List<AuditEntry> page(long before, int limit) {
    int n = Math.max(1, Math.min(MAX_PAGE, limit));
    List<AuditEntry> page = new ArrayList<>(n);
    for (AuditEntry e : entries.headMap(before, false).descendingMap().values()) {
      if (page.size() == n) {
        break;
      }
      page.add(e);
    }
    return page;
  }

  public int size() {
    return entries.size();
  }
}
