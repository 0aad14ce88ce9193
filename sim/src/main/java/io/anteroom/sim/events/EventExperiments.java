package io.anteroom.sim.events;

import io.anteroom.room.DataCenterLedger;
import io.anteroom.room.Decision;
import io.anteroom.room.EventWindow;
import io.anteroom.room.GlobalLedger;
import io.anteroom.room.MinuteCounter;
import io.anteroom.room.QueueOrder;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.RoomWorker;
import io.anteroom.room.Ticket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.apache.commons.math3.stat.correlation.SpearmansCorrelation;

/**
 * The event and random-queueing cases of {@code docs/simulation.md}, through the real room core
 * (workers, data-center and global ledgers, counters) in virtual time, on the model room (T = 1000,
 * N = 200, S = 5 min; 3 data centers × 4 workers reporting every 5 s):
 *
 * <ul>
 *   <li>{@code prequeue-shuffle}: 5,000 users join a 30-minute pre-queue; at the start everyone
 *       gets a random place ({@code prequeue-fifo}: the same without shuffle, for comparison);
 *   <li>{@code steady-random} and {@code steady-fifo}: 250 new users a minute for 40 minutes (about
 *       1.8 × what T sustains), then none until everyone got in.
 * </ul>
 *
 * Users refresh the queue every R = 20 s; admitted users view 5 pages 30 s apart (each renews the
 * session) and leave. Counter calls and reports have no network delay here (the main simulator
 * models those); every draw is the core's.
 *
 * <pre>
 * ./mvnw -q -o -pl sim -am package -DskipTests
 * java -cp "sim/target/classes:$(cat sim/target/classpath.txt)" io.anteroom.sim.events.EventExperiments
 * </pre>
 */
public final class EventExperiments {
  /** Spearman's rank correlation, ties given their mean rank. */
  private static final SpearmansCorrelation SPEARMAN = new SpearmansCorrelation();

  /**
   * One run's figures.
   *
   * @param admittedBeforeStart admissions before the event start (pre-queue cases; must be 0)
   * @param peakActiveOverT the highest number of users with a running session, over T
   * @param maxMinuteOverN the largest minute's admissions over N
   * @param arrivalRank Spearman's rank correlation between arrival and admission time
   * @param placeRank the same between shuffled place and admission time (NaN without shuffle)
   * @param waits minutes from arrival (or the event start, for the pre-queue) to admission: p50,
   *     p90, p99, max, standard deviation
   * @param lastAdmittedMinutes minutes from the start of the admissions to the last one
   */
  public record Result(
      String name,
      int users,
      long admitted,
      long admittedBeforeStart,
      double peakActiveOverT,
      double maxMinuteOverN,
      double arrivalRank,
      double placeRank,
      double[] waits,
      double lastAdmittedMinutes) {}

  static final Instant T0 = Instant.parse("2026-12-01T17:30:00Z");
  static final int T = 1000;
  static final int N = 200;
  static final int S = 5;
  static final int R = 20;
  static final int PAGES = 5;
  static final long PAGE_MILLIS = 30_000;
  static final double[] SHARES = {0.4, 0.35, 0.25};
  static final int WORKERS = 4;
  static final long REPORT_MILLIS = 5_000;

  private EventExperiments() {}

  /** A pre-queue of {@code users} over 30 minutes, the event at minute 30, run for 60 minutes. */
  public static Result prequeue(boolean shuffle, int users, long seed) {
    Instant start = T0.plus(Duration.ofMinutes(30));
    var window = new EventWindow("launch", T0, start, start.plus(Duration.ofHours(3)), shuffle);
    RoomConfig config = room(QueueOrder.FIFO).event(window).build();
    var rnd = new SplittableRandom(seed);
    long[] arrivals = new long[users];
    for (int i = 0; i < users; i++) {
      arrivals[i] = T0.toEpochMilli() + (long) (rnd.nextDouble() * 30 * 60_000);
    }
    Arrays.sort(arrivals);
    Run run = new Run(config, arrivals, seed);
    run.until(start.plus(Duration.ofMinutes(60)).toEpochMilli());
    return run.result(shuffle ? "prequeue-shuffle" : "prequeue-fifo", start.toEpochMilli(), window);
  }

  /** 250 users a minute for 40 minutes, then none; run for 100 minutes. */
  public static Result steady(QueueOrder order, long seed) {
    return steady(order, 40, 100, seed);
  }

  /** 250 users a minute for {@code arrivalMinutes}, then none; run for {@code runMinutes}. */
  public static Result steady(QueueOrder order, int arrivalMinutes, int runMinutes, long seed) {
    var rnd = new SplittableRandom(seed);
    int users = 250 * arrivalMinutes;
    long[] arrivals = new long[users];
    for (int i = 0; i < users; i++) {
      arrivals[i] = T0.toEpochMilli() + (long) (rnd.nextDouble() * arrivalMinutes * 60_000);
    }
    Arrays.sort(arrivals);
    Run run = new Run(room(order).build(), arrivals, seed);
    run.until(T0.plus(Duration.ofMinutes(runMinutes)).toEpochMilli());
    return run.result(
        order == QueueOrder.RANDOM ? "steady-random" : "steady-fifo", Long.MIN_VALUE, null);
  }

  private static RoomConfig.Builder room(QueueOrder order) {
    return RoomConfig.builder("sim-events")
        .totalActiveUsers(T)
        .newUsersPerMinute(N)
        .sessionDurationMinutes(S)
        .queueRefreshSeconds(R)
        .queueOrder(order);
  }

  /** The core wired for one run: 3 data centers × 4 workers, immediate counters and reports. */
  private static final class Run {
    final RoomConfig config;
    final long[] arrivals;
    final int[] worker;
    final Ticket[] tickets;
    final long[] admittedAt;
    final long[] lastPageAt;
    final int[] pagesLeft;
    final List<RoomWorker> workers = new ArrayList<>();
    final List<DataCenterLedger> ledgers = new ArrayList<>();
    final List<MinuteCounter> counters = new ArrayList<>();
    final MinuteCounter anywhere;
    final GlobalLedger global;
    final Map<Long, Integer> admissionsByMinute = new HashMap<>();
    final PriorityQueue<long[]> due = new PriorityQueue<>(Comparator.comparingLong(e -> e[0]));
    long now;

    Run(RoomConfig config, long[] arrivals, long seed) {
      this.config = config;
      this.arrivals = arrivals;
      int n = arrivals.length;
      this.worker = new int[n];
      this.tickets = new Ticket[n];
      this.admittedAt = new long[n];
      this.lastPageAt = new long[n];
      this.pagesLeft = new int[n];
      Arrays.fill(admittedAt, -1);
      this.now = T0.toEpochMilli();
      Instant start = Instant.ofEpochMilli(now);
      for (int d = 0; d < SHARES.length; d++) {
        for (int w = 0; w < WORKERS; w++) {
          workers.add(new RoomWorker(config, "dc" + d, "dc" + d + "/w" + w, start));
        }
        ledgers.add(new DataCenterLedger(config, "dc" + d));
        counters.add(new MinuteCounter(config.rules()));
      }
      anywhere = new MinuteCounter(config.rules());
      global = new GlobalLedger(config);
      var rnd = new SplittableRandom(seed * 31 + 7);
      for (int i = 0; i < n; i++) {
        double u = rnd.nextDouble();
        int d = u < SHARES[0] ? 0 : u < SHARES[0] + SHARES[1] ? 1 : 2;
        worker[i] = d * WORKERS + rnd.nextInt(WORKERS);
        due.add(new long[] {arrivals[i], i});
      }
    }

    void until(long end) {
      long nextReport = now + REPORT_MILLIS;
      while (now < end) {
        long[] next = due.peek();
        if (next != null && next[0] < nextReport && next[0] < end) {
          due.poll();
          now = next[0];
          request((int) next[1]);
        } else {
          now = Math.min(nextReport, end);
          report();
          nextReport += REPORT_MILLIS;
        }
      }
    }

    void request(int user) {
      RoomWorker w = workers.get(worker[user]);
      int dc = worker[user] / WORKERS;
      Instant at = Instant.ofEpochMilli(now);
      Decision d = w.decide(tickets[user], at);
      while (d instanceof Decision.Draw draw) {
        // a decision early in a minute also asks the other data centers' counters (limit 0)
        MinuteCounter c =
            draw.counter().isAnywhere()
                ? anywhere
                : counters.get(Integer.parseInt(draw.counter().dataCenter().substring(2)));
        d = w.onCounterReply(draw, c.take(draw, at), at);
      }
      switch (d) {
        case Decision.Admit a -> {
          tickets[user] = a.ticket();
          if (admittedAt[user] < 0) {
            admittedAt[user] = now;
            pagesLeft[user] = PAGES;
            admissionsByMinute.merge(Math.floorDiv(now, 60_000), 1, Integer::sum);
          }
          lastPageAt[user] = now;
          if (--pagesLeft[user] > 0) {
            due.add(new long[] {now + PAGE_MILLIS, user});
          }
        }
        case Decision.Queue q -> {
          if (q.ticket() != null) {
            tickets[user] = q.ticket();
          }
          due.add(new long[] {now + R * 1000L, user});
        }
        case Decision.Draw x -> throw new IllegalStateException("undrawn " + x);
      }
    }

    void report() {
      Instant at = Instant.ofEpochMilli(now);
      for (int d = 0; d < ledgers.size(); d++) {
        for (int w = 0; w < WORKERS; w++) {
          ledgers.get(d).apply(workers.get(d * WORKERS + w).report(at), at);
        }
        global.apply(ledgers.get(d).aggregate(at));
      }
      var view = global.view(at);
      for (int d = 0; d < ledgers.size(); d++) {
        RoomState state = ledgers.get(d).roomState(view, at);
        for (int w = 0; w < WORKERS; w++) {
          workers.get(d * WORKERS + w).applyState(state);
        }
      }
    }

    Result result(String name, long startMillis, EventWindow window) {
      int n = arrivals.length;
      var admittedUsers = new ArrayList<Integer>();
      long beforeStart = 0;
      for (int i = 0; i < n; i++) {
        if (admittedAt[i] >= 0) {
          admittedUsers.add(i);
          if (admittedAt[i] < startMillis) {
            beforeStart++;
          }
        }
      }
      int m = admittedUsers.size();
      double[] arrival = new double[m];
      double[] admission = new double[m];
      double[] place = new double[m];
      double[] waits = new double[m];
      List<long[]> sessions = new ArrayList<>();
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (int k = 0; k < m; k++) {
        int i = admittedUsers.get(k);
        arrival[k] = arrivals[i];
        admission[k] = admittedAt[i];
        place[k] = window == null ? 0 : tickets[i].bucketId() - window.prequeueBucket() - 1;
        waits[k] = (admittedAt[i] - Math.max(arrivals[i], startMillis)) / 60_000.0;
        sessions.add(new long[] {admittedAt[i], 1});
        sessions.add(new long[] {lastPageAt[i] + S * 60_000L, -1});
        first = Math.min(first, admittedAt[i]);
        last = Math.max(last, admittedAt[i]);
      }
      sessions.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
      long active = 0;
      long peak = 0;
      for (long[] e : sessions) {
        active += e[1];
        peak = Math.max(peak, active);
      }
      int maxMinute = admissionsByMinute.values().stream().mapToInt(x -> x).max().orElse(0);
      Arrays.sort(waits);
      return new Result(
          name,
          n,
          m,
          beforeStart,
          (double) peak / T,
          (double) maxMinute / N,
          SPEARMAN.correlation(arrival, admission),
          window != null && window.shuffle() ? SPEARMAN.correlation(place, admission) : Double.NaN,
          new double[] {
            percentile(waits, 0.5),
            percentile(waits, 0.9),
            percentile(waits, 0.99),
            m == 0 ? Double.NaN : waits[m - 1],
            sd(waits)
          },
          m == 0 ? Double.NaN : (last - first) / 60_000.0);
    }
  }

  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  }

  static double sd(double[] v) {
    double mean = Arrays.stream(v).average().orElse(Double.NaN);
    return Math.sqrt(Arrays.stream(v).map(x -> (x - mean) * (x - mean)).average().orElse(0));
  }

  /** The Markdown table of {@code docs/simulation.md}. */
  public static String table(List<Result> results) {
    var sb = new StringBuilder();
    sb.append(
        "| case | users | admitted | before start | peak/T | max adm/N | rank(arrival, admission)"
            + " | rank(place, admission) | wait p50 / p90 / p99 / max (min) | wait sd (min) |"
            + " admitting took (min) |\n");
    sb.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %d | %.3f | %.2f | %+.3f | %s | %.1f / %.1f / %.1f / %.1f | %.1f |"
                  + " %.1f |%n",
              r.name(),
              r.users(),
              r.admitted(),
              r.admittedBeforeStart(),
              r.peakActiveOverT(),
              r.maxMinuteOverN(),
              r.arrivalRank(),
              Double.isNaN(r.placeRank())
                  ? "–"
                  : String.format(Locale.ROOT, "%+.3f", r.placeRank()),
              r.waits()[0],
              r.waits()[1],
              r.waits()[2],
              r.waits()[3],
              r.waits()[4],
              r.lastAdmittedMinutes()));
    }
    return sb.toString();
  }

  /** Runs the four cases with seed 1 (or the seed given) and prints the table. */
  public static void main(String[] args) {
    long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
    System.out.print(
        table(
            List.of(
                prequeue(true, 5000, seed),
                prequeue(false, 5000, seed),
                steady(QueueOrder.RANDOM, seed),
                steady(QueueOrder.FIFO, seed))));
  }
}
