package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Users of a {@link MiniRoom} in virtual time: each arrives at its time and then asks again every
 * {@code queueRefreshSeconds} (in a shuffled order within a step, so no user is always first) until
 * admitted. Records when each user was admitted and the admissions per minute.
 */
final class Crowd {
  static final class User {
    final int index;
    final Instant arrival;
    Instant nextRequest;
    Ticket ticket;
    Instant admittedAt;

    User(int index, Instant arrival) {
      this.index = index;
      this.arrival = arrival;
      this.nextRequest = arrival;
    }
  }

  final List<User> users = new ArrayList<>();
  final Map<Long, Integer> admissionsByMinute = new HashMap<>();
  private final MiniRoom room;
  private final Random order;

  Crowd(MiniRoom room, long seed) {
    this.room = room;
    this.order = new Random(seed);
  }

  User arrive(Instant at) {
    User u = new User(users.size(), at);
    users.add(u);
    return u;
  }

  /** Runs in steps of {@code step}, syncing the room every step, until {@code until}. */
  void runUntil(Instant until, Duration step, int refreshSeconds) {
    while (room.now().isBefore(until)) {
      Instant now = room.now();
      List<User> due = new ArrayList<>();
      for (User u : users) {
        if (u.admittedAt == null && !u.nextRequest.isAfter(now)) {
          due.add(u);
        }
      }
      Collections.shuffle(due, order);
      for (User u : due) {
        Decision d = room.request(u.ticket);
        switch (d) {
          case Decision.Admit a -> {
            u.ticket = a.ticket();
            u.admittedAt = now;
            admissionsByMinute.merge(Minutes.minuteOf(now), 1, Integer::sum);
          }
          case Decision.Queue q -> {
            if (q.ticket() != null) {
              u.ticket = q.ticket();
            }
            u.nextRequest = now.plusSeconds(refreshSeconds);
          }
          case Decision.Draw x -> throw new IllegalStateException("undrawn " + x);
        }
      }
      room.sync();
      room.advanceTo(now.plus(step));
    }
  }

  long admitted() {
    return users.stream().filter(u -> u.admittedAt != null).count();
  }

  /** Spearman's rank correlation of two equally long series (ties get their mean rank). */
  static double spearman(double[] a, double[] b) {
    return new org.apache.commons.math3.stat.correlation.SpearmansCorrelation().correlation(a, b);
  }
}
