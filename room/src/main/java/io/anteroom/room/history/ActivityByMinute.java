package io.anteroom.room.history;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The mutable accumulator of {@link MinuteActivity} by minute (minutes since the epoch): a worker's
 * pending activity between reports, a data center's sums of its workers' reports. Not thread-safe;
 * owners serialize access.
 */
public final class ActivityByMinute {
  private final TreeMap<Long, MinuteActivity> minutes = new TreeMap<>();

  /** Adds {@code activity} to {@code minute}'s. */
  public void add(long minute, MinuteActivity activity) {
    if (activity == null || activity.isEmpty()) {
      return;
    }
    minutes.merge(minute, activity, MinuteActivity::plus);
  }

  /** Adds every minute of {@code byMinute} (null adds nothing). */
  public void addAll(Map<Long, MinuteActivity> byMinute) {
    if (byMinute != null) {
      byMinute.forEach(this::add);
    }
  }

  /** Forgets minutes before {@code firstKept}. */
  public void pruneBefore(long firstKept) {
    minutes.headMap(firstKept, false).clear();
  }

  /** An immutable copy. */
  public SortedMap<Long, MinuteActivity> snapshot() {
    return Collections.unmodifiableSortedMap(new TreeMap<>(minutes));
  }

  public void clear() {
    minutes.clear();
  }

  public boolean isEmpty() {
    return minutes.isEmpty();
  }
}
