package io.anteroom.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the history of a fault run against what a replicated counter and a waiting room promise,
 * and gives the figures to print:
 *
 * <ul>
 *   <li><b>numbers unique</b>: no number of a minute confirmed twice;
 *   <li><b>never reissued after a confirmation, no confirmed write lost</b>: a call invoked after
 *       another call's confirmation (in real time, same minute) gets a higher number. A number
 *       equal to a confirmed one is a reissue; a lower one means the counter went back, so a
 *       confirmed write was lost. Calls whose outcome is unknown (the reply was lost) may have
 *       consumed a number and constrain nothing;
 *   <li><b>T held</b>: the users holding admission at most T, or at most {@code T + share} where
 *       the room documents a share it may exceed by (a partial outage, {@code docs/room.md});
 *   <li><b>failover</b>: from the moment a majority of the peers can talk again, the first call
 *       invoked after it is confirmed within {@link #FAILOVER_LIMIT_MILLIS}.
 * </ul>
 *
 * <p>Times are epoch milliseconds of one machine. Not thread-safe: record the history, then {@link
 * #check}.
 */
public final class HistoryChecker {
  /** The longest failover allowed once a majority can talk (issue 40). */
  public static final long FAILOVER_LIMIT_MILLIS = 3_000;

  /** How a call ended. */
  public enum Outcome {
    /** Answered: its number was handed out. */
    OK,
    /** Certainly not run. */
    FAILED,
    /** May or may not have run (a lost reply, a timeout). */
    UNKNOWN
  }

  /**
   * One counter call.
   *
   * @param number the number received ({@link Outcome#OK} only)
   */
  public record Op(
      long invokedMillis, long completedMillis, Outcome outcome, long minute, long number) {
    public static Op ok(long invoked, long completed, long minute, long number) {
      return new Op(invoked, completed, Outcome.OK, minute, number);
    }

    public static Op failed(long invoked, long completed) {
      return new Op(invoked, completed, Outcome.FAILED, -1, -1);
    }

    public static Op unknown(long invoked, long completed) {
      return new Op(invoked, completed, Outcome.UNKNOWN, -1, -1);
    }
  }

  /** A room's count: users holding admission, its T and the share it may exceed T by. */
  public record Room(String name, int users, int t, int share, String why) {}

  /** The figures of a history and what it violated (empty: none). */
  public record Figures(
      int calls,
      int confirmed,
      int failed,
      int unknown,
      long failoverMillis,
      long longestGapMillis,
      List<Room> rooms,
      List<String> violations,
      List<String> failoverViolations) {
    public boolean ok() {
      return violations.isEmpty();
    }

    /**
     * The violations of safety: numbers, lost writes, T (all but the failover's, which is
     * liveness).
     */
    public List<String> safetyViolations() {
      return violations.stream().filter(v -> !failoverViolations.contains(v)).toList();
    }

    @Override
    public String toString() {
      StringBuilder sb =
          new StringBuilder()
              .append(calls)
              .append(" counter calls: ")
              .append(confirmed)
              .append(
                  safetyViolations().isEmpty()
                      ? " confirmed, numbers unique and never reissued; "
                      : " confirmed; ")
              .append(failed)
              .append(" failed (not run), ")
              .append(unknown)
              .append(" unknown outcome; failover ")
              .append(failoverMillis < 0 ? "n/a (no majority mark)" : failoverMillis + " ms")
              .append(" (limit ")
              .append(FAILOVER_LIMIT_MILLIS)
              .append(" ms); longest gap between confirmations ")
              .append(longestGapMillis)
              .append(" ms");
      for (Room r : rooms) {
        sb.append("; room ")
            .append(r.name())
            .append(": ")
            .append(r.users())
            .append(" users holding admission for T = ")
            .append(r.t());
        if (r.share() > 0) sb.append(" (+ ").append(r.share()).append(" allowed: ").append(r.why());
        if (r.share() > 0) sb.append(')');
      }
      if (!violations.isEmpty()) sb.append("; VIOLATIONS: ").append(violations);
      return sb.toString();
    }
  }

  private final List<Op> ops = new ArrayList<>();
  private final List<Long> majorityMarks = new ArrayList<>();
  private final List<Room> rooms = new ArrayList<>();

  /** Adds one call. */
  public HistoryChecker add(Op op) {
    ops.add(op);
    return this;
  }

  /** Adds calls. */
  public HistoryChecker addAll(List<Op> calls) {
    ops.addAll(calls);
    return this;
  }

  /** From {@code millis} on a majority of the peers can talk (after a fault, or at its start). */
  public HistoryChecker majorityCanTalkAt(long millis) {
    majorityMarks.add(millis);
    return this;
  }

  /**
   * A room held {@code users} at most, for {@code t}; {@code share} more are allowed only where the
   * room documents it ({@code why}), else 0.
   */
  public HistoryChecker room(String name, int users, int t, int share, String why) {
    if (share < 0) throw new IllegalArgumentException("share " + share + " < 0");
    rooms.add(new Room(name, users, t, share, why));
    return this;
  }

  /** Checks everything recorded. */
  public Figures check() {
    List<String> violations = new ArrayList<>();
    List<Op> confirmed = ops.stream().filter(o -> o.outcome() == Outcome.OK).toList();
    Map<Long, List<Op>> byMinute = new TreeMap<>();
    for (Op o : confirmed) byMinute.computeIfAbsent(o.minute(), m -> new ArrayList<>()).add(o);
    for (var e : byMinute.entrySet()) checkMinute(e.getKey(), e.getValue(), violations);

    for (Room r : rooms) {
      if (r.users() > r.t() + r.share()) {
        violations.add(
            "room %s held %d users for T = %d%s"
                .formatted(
                    r.name(),
                    r.users(),
                    r.t(),
                    r.share() > 0 ? " and a documented share of " + r.share() : ""));
      }
    }

    List<String> slow = new ArrayList<>();
    long failover = -1;
    for (long mark : majorityMarks) {
      long first =
          confirmed.stream()
              .filter(o -> o.invokedMillis() >= mark)
              .mapToLong(Op::completedMillis)
              .min()
              .orElse(-1);
      if (first < 0) {
        slow.add("no call invoked after the majority could talk (at " + mark + ") confirmed");
        continue;
      }
      long ms = first - mark;
      failover = Math.max(failover, ms);
      if (ms > FAILOVER_LIMIT_MILLIS) {
        slow.add(
            "failover took %d ms after the majority could talk (limit %d ms)"
                .formatted(ms, FAILOVER_LIMIT_MILLIS));
      }
    }
    violations.addAll(slow);

    // from the first call on: a history that begins with a failing stretch counts it
    long gap = 0;
    long previous = ops.stream().mapToLong(Op::invokedMillis).min().orElse(-1);
    for (long done : confirmed.stream().mapToLong(Op::completedMillis).sorted().toArray()) {
      if (previous >= 0) gap = Math.max(gap, done - previous);
      previous = Math.max(previous, done);
    }
    int failed = (int) ops.stream().filter(o -> o.outcome() == Outcome.FAILED).count();
    int unknown = (int) ops.stream().filter(o -> o.outcome() == Outcome.UNKNOWN).count();
    return new Figures(
        ops.size(),
        confirmed.size(),
        failed,
        unknown,
        failover,
        gap,
        List.copyOf(rooms),
        List.copyOf(violations),
        List.copyOf(slow));
  }

  /** Uniqueness and real-time order of one minute's confirmed numbers. */
  private static void checkMinute(long minute, List<Op> calls, List<String> violations) {
    Map<Long, Op> seen = new HashMap<>();
    Map<Long, Integer> counts = new HashMap<>();
    for (Op o : calls) {
      counts.merge(o.number(), 1, Integer::sum);
      Op before = seen.putIfAbsent(o.number(), o);
      if (before != null) {
        violations.add(
            "number %d of minute %d confirmed twice (calls invoked at %d and %d)"
                .formatted(o.number(), minute, before.invokedMillis(), o.invokedMillis()));
      }
    }
    // sweep the calls by invocation; keep the highest number confirmed before each invocation
    List<Op> byCompletion =
        calls.stream().sorted(Comparator.comparingLong(Op::completedMillis)).toList();
    List<Op> byInvocation =
        calls.stream().sorted(Comparator.comparingLong(Op::invokedMillis)).toList();
    int next = 0;
    Op highest = null;
    for (Op b : byInvocation) {
      while (next < byCompletion.size()
          && byCompletion.get(next).completedMillis() < b.invokedMillis()) {
        Op a = byCompletion.get(next++);
        if (highest == null || a.number() > highest.number()) highest = a;
      }
      if (highest != null && b.number() <= highest.number()) {
        boolean reissued = counts.get(b.number()) > 1;
        violations.add(
            ("number %d of minute %d confirmed at %d, then a call invoked at %d got %d: %s")
                .formatted(
                    highest.number(),
                    minute,
                    highest.completedMillis(),
                    b.invokedMillis(),
                    b.number(),
                    reissued
                        ? "a confirmed number reissued"
                        : "the counter went back, a confirmed write was lost"));
      }
    }
  }
}
