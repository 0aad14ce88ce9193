package io.anteroom.bench.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.host.RoomHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The door's own work on an admitted request, without a server: {@link Door#enter} and {@link
 * Door#onOriginResponse} for an admitted user's request, in a loop on {@code threads} threads, as
 * the Servlet filter calls them (issue 44's filter cost, measured apart from Tomcat and Spring).
 * Prints nanoseconds of wall time per request per thread and the thread CPU time per request.
 *
 * <p>Usage: {@code DoorCost [seconds=10] [threads=1] [rounds=5]}
 */
public final class DoorCost {
  private DoorCost() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Path dir = Files.createTempDirectory("door-cost");
    Path yaml = dir.resolve("anteroom.yaml");
    Files.writeString(
        yaml,
        "dataDir: "
            + dir.resolve("data")
            + "\nrooms: [ { id: shop, totalActiveUsers: 1000000, newUsersPerMinute: 1000000,"
            + " sessionDurationMinutes: 60 } ]\n");
    GatewayConfig config = ConfigLoader.load(yaml);
    try (RoomHost host =
        RoomHost.start(config, RoomHost.embedded(config), "local", Clock.systemUTC())) {
      Door door = host.door();
      String cookie = admittedCookie(door);
      System.out.println("cookie: " + cookie.length() + " characters");
      var bean =
          (com.sun.management.ThreadMXBean)
              java.lang.management.ManagementFactory.getThreadMXBean();
      for (int r = 0; r <= rounds; r++) {
        LongAdder requests = new LongAdder();
        LongAdder cpu = new LongAdder();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          Thread th =
              new Thread(
                  () -> {
                    long c0 = bean.getCurrentThreadCpuTime();
                    long n = 0;
                    String mine = cookie;
                    while (System.nanoTime() < end) {
                      for (int i = 0; i < 1000; i++) {
                        mine = once(door, mine);
                      }
                      n += 1000;
                    }
                    cpu.add(bean.getCurrentThreadCpuTime() - c0);
                    requests.add(n);
                  });
          th.start();
          ts.add(th);
        }
        for (Thread th : ts) {
          th.join();
        }
        long n = requests.sum();
        System.out.printf(
            "%s round %d: %d threads, %.0f ns wall per request per thread, %.0f ns CPU per request%n",
            r == 0 ? "warm-up" : "measured",
            r,
            threads,
            seconds * 1e9 * threads / n,
            (double) cpu.sum() / n);
      }
    }
  }

  private static String admittedCookie(Door door) {
    Answer a = door.enter(new AdmittedGet(null), Runnable::run).toCompletableFuture().join();
    if (!(a instanceof Answer.Pass p)) {
      throw new IllegalStateException("the first request was not admitted: " + a);
    }
    AppResponse r = new AppResponse();
    door.onOriginResponse(p, r, 1000);
    String set = r.headers.get("Set-Cookie");
    if (set == null) {
      throw new IllegalStateException("no ticket cookie was set");
    }
    return set.substring(0, set.indexOf(';'));
  }

  /** One admitted request; returns the cookie the browser holds after it (renewed each minute). */
  private static String once(Door door, String cookie) {
    Answer a = door.enter(new AdmittedGet(cookie), Runnable::run).toCompletableFuture().join();
    if (!(a instanceof Answer.Pass p)) {
      throw new IllegalStateException("not admitted: " + a);
    }
    AppResponse r = new AppResponse();
    door.onOriginResponse(p, r, 1000);
    String set = r.headers.get("Set-Cookie");
    return set == null ? cookie : set.substring(0, set.indexOf(';'));
  }
}
