package io.anteroom.sim;

import io.anteroom.sim.engine.EventLoop;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Simulated users driving a {@link RoomUnderTest}: arrivals by the scenario's profile, admitted
 * users browsing with think times then leaving, queued users refreshing and sometimes giving up. It
 * keeps the ground truth in {@link Observations}.
 *
 * <p>Determinism: arrivals come from a random stream of their own, and every user draws its pages,
 * think times, patience and workers from a stream seeded by (seed, user number), so every strategy
 * sees the same users with the same intentions; the room's answers only change when they act.
 * Single-threaded, on the run's event loop.
 */
final class TrafficRun<T> {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** Beyond one refresh interval: the refresh jitter (±1 s) and a counter round trip. */
  static final long OVERTAKE_GRACE_MILLIS = 2_000;

  private final Scenario scenario;
  private final RoomUnderTest<T> room;
  private final EventLoop loop;
  private final Observations observations;
  private final SplittableRandom arrivals;
  private final long seed;
  private final long sessionMillis;
  private final long refreshMillis;
  private long nextUserId;

  /**
   * Sink of one CSV row per user first queued below 95 % utilization ({@code --explain-queued});
   * null: off.
   */
  private java.util.function.Consumer<String> queueLog;

  private final class User {
    final int dc;
    final SplittableRandom random;
    T ticket;
    long bucket;
    boolean active;
    boolean waiting;
    long queuedAt;
    double shownWait;
    long patienceDeadline;
    int pagesLeft;
    long checkInVersion;

    User(int dc, long id) {
      this.dc = dc;
      this.random = new SplittableRandom(mix(seed + GOLDEN * (id + 1)));
    }
  }

  TrafficRun(Scenario scenario, RoomUnderTest<T> room, EventLoop loop, long seed) {
    this.scenario = scenario;
    this.room = room;
    this.loop = loop;
    this.seed = seed;
    this.arrivals = new SplittableRandom(mix(seed));
    this.observations =
        new Observations(
            scenario.limits().totalActiveUsers(),
            scenario.limits().newUsersPerMinute(),
            scenario.minutes(),
            scenario.limits().queueRefreshSeconds() * 1_000L + OVERTAKE_GRACE_MILLIS);
    this.sessionMillis = scenario.limits().sessionDurationMinutes() * 60_000L;
    this.refreshMillis = scenario.limits().queueRefreshSeconds() * 1_000L;
  }

  /**
   * Explains every user first queued below 95 % utilization as a CSV row (header first) into {@code
   * sink}.
   */
  void explainQueued(java.util.function.Consumer<String> sink) {
    this.queueLog = sink;
    sink.accept(Observations.QUEUE_EXPLANATION_HEADER + "," + room.queueExplanationHeader());
  }

  Observations observations() {
    return observations;
  }

  /** Schedules the room and the traffic, and runs the whole scenario. */
  void run() {
    room.start(loop);
    loop.at(0, () -> second(0));
    loop.runUntil(scenario.minutes() * 60_000L);
    observations.sample(scenario.minutes() * 60 - 1);
  }

  private void second(int s) {
    if (s > 0) {
      observations.sample(s - 1);
    }
    if (s >= scenario.minutes() * 60) {
      return;
    }
    double minute = s / 60.0;
    List<Scenario.DataCenter> dcs = scenario.topology().dataCenters();
    double shareSum = 0;
    for (Scenario.DataCenter dc : dcs) {
      shareSum += open(dc, s) ? dc.trafficShare() : 0;
    }
    int n = shareSum > 0 ? poisson(arrivals, scenario.arrivals().rateAt(minute) / 60.0) : 0;
    for (int i = 0; i < n; i++) {
      long at = s * 1000L + arrivals.nextInt(1000);
      double pick = arrivals.nextDouble() * shareSum;
      int dc = 0;
      for (int d = 0; d < dcs.size(); d++) {
        if (!open(dcs.get(d), s)) {
          continue;
        }
        dc = d;
        pick -= dcs.get(d).trafficShare();
        if (pick < 0) {
          break;
        }
      }
      User user = new User(dc, nextUserId++);
      loop.at(at, () -> request(user));
    }
    loop.at((s + 1) * 1000L, () -> second(s + 1));
  }

  private static boolean open(Scenario.DataCenter dc, int second) {
    return second >= dc.fromMinute() * 60 && dc.trafficShare() > 0;
  }

  private void request(User user) {
    List<Double> weights = scenario.topology().dataCenters().get(user.dc).workerWeights();
    double sum = 0;
    for (double w : weights) {
      sum += w;
    }
    double pick = user.random.nextDouble() * sum;
    int worker = 0;
    while (worker < weights.size() - 1 && (pick -= weights.get(worker)) >= 0) {
      worker++;
    }
    long sentAt = loop.now();
    int at = worker;
    room.request(user.dc, worker, user.ticket, reply -> answered(user, at, sentAt, reply));
  }

  private void answered(User user, int worker, long sentAt, RoomUnderTest.Reply<T> reply) {
    long now = loop.now();
    user.ticket = reply.ticket();
    if (reply.admitted()) {
      long bucket = room.bucketOf(reply.ticket());
      if (user.waiting) {
        user.waiting = false;
        observations.leftQueue(user.bucket);
        observations.admittedAfter((now - user.queuedAt) / 60_000.0);
        if (user.queuedAt >= Observations.WAIT_WARM_UP_MILLIS) {
          observations.waited(user.shownWait, (now - user.queuedAt) / 60_000.0);
        }
      }
      if (!user.active) { // a new session: an admission (a valid session is only renewed)
        user.active = true;
        user.bucket = bucket;
        observations.sessionStarted();
        observations.admitted(now, bucket, reply.reason());
        loop.after(
            refreshMillis + OVERTAKE_GRACE_MILLIS, () -> observations.checkOvertaken(bucket));
        user.pagesLeft = pages(user.random);
      }
      long version = ++user.checkInVersion;
      loop.after(
          sessionMillis,
          () -> {
            if (user.checkInVersion == version && user.active) {
              user.active = false;
              observations.sessionExpired();
            }
          });
      if (--user.pagesLeft > 0) {
        loop.after(
            exponential(user.random, scenario.behaviour().meanThinkSeconds() * 1000),
            () -> request(user));
      }
      return;
    }
    if (user.active) { // the room no longer honours the session (its ticket expired): it ends here
      user.active = false;
      user.checkInVersion++;
      observations.sessionExpired();
    }
    if (!user.waiting) {
      user.waiting = true;
      user.bucket = room.bucketOf(reply.ticket());
      user.queuedAt = now;
      user.shownWait = reply.shownWaitMinutes();
      user.patienceDeadline =
          now + exponential(user.random, scenario.behaviour().meanPatienceMinutes() * 60_000);
      if (queueLog != null && observations.utilization(now) < 0.95) {
        queueLog.accept(
            observations.queueExplanation(now, user.bucket)
                + ","
                + room.explainQueued(user.dc, worker, reply.ticket()));
      }
      if (reply.place() != null) {
        observations.placeShown(now, user.bucket, reply.place());
      }
      observations.queued(now, user.bucket);
    }
    long jitter = scenario.behaviour().refreshJitterMillis();
    long delay = refreshMillis + (jitter == 0 ? 0 : user.random.nextLong(-jitter, jitter + 1));
    loop.after(Math.max(1, delay - (now - sentAt)), () -> refresh(user));
  }

  private void refresh(User user) {
    if (loop.now() >= user.patienceDeadline) {
      user.waiting = false;
      observations.leftQueue(user.bucket);
      observations.abandoned();
      return;
    }
    request(user);
  }

  private int pages(SplittableRandom random) {
    double p = 1.0 / scenario.behaviour().meanPages();
    if (p >= 1) {
      return 1;
    }
    return 1 + (int) Math.floor(Math.log(1 - random.nextDouble()) / Math.log(1 - p));
  }

  private static long exponential(SplittableRandom random, double meanMillis) {
    return Math.max(1, Math.round(-Math.log(1 - random.nextDouble()) * meanMillis));
  }

  /** Poisson variate (Knuth's product method; fine for the means of a second, below ~100). */
  static int poisson(SplittableRandom random, double mean) {
    if (mean <= 0) {
      return 0;
    }
    if (mean > 200) { // normal approximation keeps the product method from underflowing
      return (int) Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian(random)));
    }
    double limit = Math.exp(-mean);
    double product = random.nextDouble();
    int n = 0;
    while (product > limit) {
      product *= random.nextDouble();
      n++;
    }
    return n;
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Stafford's variant 13 of the 64-bit finalizer: decorrelates nearby seeds. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
