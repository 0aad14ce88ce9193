package io.anteroom.room;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The times of one scheduled event of a room, validated on construction: the room admits nobody new
 * before {@code opensAt}; from {@code prequeueFrom} arrivals wait in a pre-queue; with {@code
 * shuffle} every pre-queued user gets a random place at {@code opensAt}; at {@code closesAt} the
 * room's own settings apply again.
 *
 * <p>How the shuffle works without per-user state: while the pre-queue is open, its users wait in
 * one bucket, {@link #prequeueBucket()}, older than anything else. After the opening, a ticket of
 * that bucket moves, at its next request, to one of {@link #SHUFFLE_PLACES} buckets just after it,
 * chosen by a keyed hash of the event name and the ticket id ({@link Lottery#place}). The queue
 * then runs in bucket order as usual: the places are random, the same on every gateway, and
 * unrelated to arrival time. The pre-queue bucket stays the oldest, so it holds everyone back until
 * its users have moved (one refresh each); nobody is admitted from it.
 *
 * @param name the event's name (unique per room; part of the shuffle's hash)
 * @param prequeueFrom when the pre-queue opens; null for none
 * @param opensAt the event start
 * @param closesAt the event end (after {@code opensAt})
 * @param shuffle give every pre-queued user a random place at the start (needs {@code
 *     prequeueFrom})
 */
public record EventWindow(
    String name, Instant prequeueFrom, Instant opensAt, Instant closesAt, boolean shuffle) {

  /** How many random places the pre-queue is shuffled into (buckets; users share a place). */
  public static final int SHUFFLE_PLACES = 60;

  public EventWindow {
    String where = "event '" + name + "': ";
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("event: name must be a non-blank string");
    }
    if (opensAt == null) {
      throw new IllegalArgumentException(where + "eventStartTime is missing");
    }
    if (closesAt == null) {
      throw new IllegalArgumentException(where + "eventEndTime is missing");
    }
    if (!closesAt.isAfter(opensAt)) {
      throw new IllegalArgumentException(
          where
              + "eventEndTime "
              + closesAt
              + " is not after eventStartTime "
              + opensAt
              + "; the end must come after the start");
    }
    if (prequeueFrom != null && prequeueFrom.isAfter(opensAt)) {
      throw new IllegalArgumentException(
          where
              + "prequeueStartTime "
              + prequeueFrom
              + " is after eventStartTime "
              + opensAt
              + "; the pre-queue must open at or before the start");
    }
    if (shuffle && prequeueFrom == null) {
      throw new IllegalArgumentException(
          where + "shuffleAtEventStart needs prequeueStartTime: only a pre-queue is shuffled");
    }
  }

  /** When the event's settings start to apply: the pre-queue's opening, or else the start. */
  public Instant appliesFrom() {
    return prequeueFrom != null ? prequeueFrom : opensAt;
  }

  /** Whether the event's settings apply at {@code now}. */
  public boolean appliesAt(Instant now) {
    return !now.isBefore(appliesFrom()) && now.isBefore(closesAt);
  }

  /** Before the start: nobody new is admitted. */
  public boolean prequeueAt(Instant now) {
    return now.isBefore(opensAt);
  }

  /** The bucket pre-queued users wait in when shuffled (older than every shuffled place). */
  public long prequeueBucket() {
    return Minutes.minuteOf(prequeueFrom) - SHUFFLE_PLACES - 1;
  }

  /** The bucket of shuffled place {@code place} ({@code 0 .. SHUFFLE_PLACES - 1}). */
  public long placeBucket(int place) {
    return prequeueBucket() + 1 + place;
  }

  /** The event whose settings apply at {@code now}, if any. */
  public static Optional<EventWindow> at(List<EventWindow> events, Instant now) {
    return events.stream().filter(e -> e.appliesAt(now)).findFirst();
  }

  /**
   * Checks that the events of one room have distinct names and do not overlap (from each one's
   * pre-queue to its end).
   *
   * @param where what to name in a message (such as {@code "room 'shop': events"})
   * @throws IllegalArgumentException naming the two events
   */
  public static void requireDisjoint(String where, List<EventWindow> events) {
    var sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparing(EventWindow::appliesFrom));
    for (int i = 0; i < sorted.size(); i++) {
      for (int j = i + 1; j < sorted.size(); j++) {
        if (sorted.get(i).name().equals(sorted.get(j).name())) {
          throw new IllegalArgumentException(
              where + ": two events are named '" + sorted.get(i).name() + "'; names must differ");
        }
      }
      if (i > 0 && sorted.get(i).appliesFrom().isBefore(sorted.get(i - 1).closesAt())) {
        EventWindow a = sorted.get(i - 1);
        EventWindow b = sorted.get(i);
        throw new IllegalArgumentException(
            where
                + ": event '"
                + b.name()
                + "' (from "
                + b.appliesFrom()
                + ") overlaps event '"
                + a.name()
                + "' (until "
                + a.closesAt()
                + "); events must not overlap, pre-queue included");
      }
    }
  }
}
