package io.anteroom.room;

import java.time.Instant;
import java.util.Collection;
import java.util.SortedMap;

/**
 * The room's counts as the global view shows them, for the room's history: the same formulas the
 * room state uses ({@code Counting}), over the sum of every data center's newest totals.
 *
 * @param activeUsers admitted users with a running session at {@code now}
 * @param waitingUsers users counted as waiting at {@code now}
 * @param abandonedLastMinute waiting users whose place stopped counting during the minute before
 *     {@code now}'s without an admission or a refresh
 */
public record RoomGauges(long activeUsers, long waitingUsers, long abandonedLastMinute) {

  /** The counts of the global {@code view} at {@code now}. */
  public static RoomGauges of(
      RoomConfig config, Collection<DataCenterAggregate> view, Instant now) {
    Tally sum = new Tally();
    view.forEach(a -> sum.add(a.totals()));
    Deltas d = sum.toDeltas();
    long waiting = 0;
    for (SortedMap<Long, Long> keys : d.waitingByBucket().values()) {
      waiting += Counting.waiting(keys, now, config);
    }
    return new RoomGauges(
        Counting.activeUsers(d.activeByExpiryMinute(), now, config.rules()),
        waiting,
        Counting.abandonments(d.waitingByBucket(), Minutes.minuteOf(now) - 1, config));
  }
}
