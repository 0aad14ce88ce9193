package io.anteroom.bench.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.ticket.TicketCookie;
import io.anteroom.host.RoomHost;
import io.anteroom.servlet.AnteroomFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Servlet filter's own CPU per admitted request, without a server (issue 44's filter target):
 * an admitted user's {@code GET /hello} with its ticket cookie through the real {@link
 * AnteroomFilter} ({@link LeanRequest} and {@link LeanResponse}: headers in small arrays searched
 * in order without case, as Tomcat keeps them; reused as Tomcat recycles its own), beside baselines
 * in the same run:
 *
 * <ul>
 *   <li>{@code empty}: the same request through a filter that only continues the chain (the
 *       baseline the other cases are read against: the lean request and response and the
 *       "application");
 *   <li>{@code wrappers}: the benchmark's reference filter ({@link WrappersOnly}: both wrappers,
 *       two headers, no door);
 *   <li>{@code filter}: {@link AnteroomFilter}, as the starter installs it;
 *   <li>{@code door}: {@link Door#enter} and {@link Door#onOriginResponse} alone, as an adapter
 *       calls them (the Vert.x proxy's admitted path runs the same door);
 *   <li>{@code open}: opening the ticket cookie alone ({@link TicketCookie#openValue}, the thread's
 *       cache), the unit the door's cost was compared with before.
 * </ul>
 *
 * Each round runs every case for the given seconds, in turn (the order rotating), and records the
 * thread's CPU time per request; the median over the rounds is printed last, with the filter's and
 * the reference's cost above {@code empty}. {@code pollute} (KiB, default 0) walks a buffer of that
 * size after every request of every case, so that the door's data is no longer hot in the CPU's
 * caches between requests, as in a server that runs the application in between (the buffer's own
 * cost is in every case, so it cancels in the differences).
 *
 * <p>Usage: {@code FilterCost [seconds=3] [rounds=7] [pollute KiB=0] [threads=1]}
 */
public final class FilterCost {
  private FilterCost() {}

  private static final byte[] BODY = "hello from the shop\n".getBytes(StandardCharsets.US_ASCII);

  /** What Spring's MVC chain does with the request and response, reduced to a few calls. */
  private static final FilterChain APPLICATION =
      (req, res) -> {
        var http = (jakarta.servlet.http.HttpServletRequest) req;
        http.getHeader("Accept");
        http.getHeader("Accept-Encoding");
        var out = (HttpServletResponse) res;
        out.setStatus(200);
        out.setContentType("text/plain;charset=UTF-8");
        out.setContentLength(BODY.length);
        out.getOutputStream().write(BODY);
      };

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    int polluteKib = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    Path dir = Files.createTempDirectory("filter-cost");
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
      AnteroomFilter filter = new AnteroomFilter(host);
      String cookie = admittedCookie(filter);
      TicketCookie ticketCookie = door.rooms().get("shop").orElseThrow().cookie();
      String value = cookie.substring(cookie.indexOf('=') + 1);
      System.out.printf(
          "cookie: %d characters; %d s per case per round, %d rounds, pollute %d KiB, %d thread(s)%n",
          cookie.length(), seconds, rounds, polluteKib, threads);
      Map<String, Case> cases = new LinkedHashMap<>();
      cases.put("empty", () -> new ThroughFilter((rq, rs, ch) -> ch.doFilter(rq, rs), cookie));
      cases.put("wrappers", () -> new ThroughFilter(new WrappersOnly(), cookie));
      cases.put("filter", () -> new ThroughFilter(filter, cookie));
      cases.put("door", () -> new DoorOnly(door, cookie));
      cases.put(
          "open",
          () ->
              () -> {
                if (ticketCookie.openValue(value) == null) {
                  throw new IllegalStateException("the cookie does not open");
                }
              });
      String only = System.getProperty("cases"); // e.g. -Dcases=door,open, to profile a few
      if (only != null) {
        cases.keySet().retainAll(List.of(only.split(",")));
      }
      List<String> names = new ArrayList<>(cases.keySet());
      Map<String, List<Double>> results = new HashMap<>();
      Map<String, List<Double>> allocated = new HashMap<>();
      for (int r = 0; r <= rounds; r++) {
        StringBuilder line = new StringBuilder(r == 0 ? "warm-up:" : "round " + r + ":");
        for (int k = 0; k < names.size(); k++) {
          String name = names.get((k + r) % names.size());
          Result got = run(cases.get(name), seconds, polluteKib, threads);
          line.append(String.format(" %s %.0f ns", name, got.ns()));
          if (r > 0) {
            results.computeIfAbsent(name, n -> new ArrayList<>()).add(got.ns());
            allocated.computeIfAbsent(name, n -> new ArrayList<>()).add(got.bytes());
          }
        }
        System.out.println(line);
      }

      StringBuilder summary = new StringBuilder("median of " + rounds + " rounds:");
      for (String name : cases.keySet()) {
        summary.append(String.format(" %s %.0f ns", name, median(results.get(name))));
      }
      System.out.println(summary);
      StringBuilder heap = new StringBuilder("bytes allocated per request (median):");
      for (String name : cases.keySet()) {
        heap.append(String.format(" %s %.0f B", name, median(allocated.get(name))));
      }
      System.out.println(heap);
      if (!cases.containsKey("empty")
          || !cases.containsKey("filter")
          || !cases.containsKey("wrappers")) {
        return;
      }
      double empty = median(results.get("empty"));
      System.out.printf(
          "above empty: filter %+.0f ns, wrappers %+.0f ns (CPU per request, thread time)%n",
          median(results.get("filter")) - empty, median(results.get("wrappers")) - empty);
    }
  }

  /** One kind of request, made once per call, by one thread's state. */
  private interface Case {
    Request start();
  }

  private interface Request {
    void once() throws Exception;
  }

  private static Result run(Case c, int seconds, int polluteKib, int threads)
      throws InterruptedException {
    var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] cpu = new long[threads];
    long[] bytes = new long[threads];
    long[] count = new long[threads];
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int me = t;
      ts[t] =
          new Thread(
              () -> {
                Request request = c.start();
                byte[] junk = new byte[polluteKib * 1024];
                long b0 = bean.getCurrentThreadAllocatedBytes();
                long c0 = bean.getCurrentThreadCpuTime();
                long n = 0;
                int sink = 0;
                try {
                  while (System.nanoTime() < end) {
                    for (int i = 0; i < 200; i++) {
                      request.once();
                      for (int j = 0; j < junk.length; j += 64) {
                        sink += junk[j]++;
                      }
                    }
                    n += 200;
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                cpu[me] = bean.getCurrentThreadCpuTime() - c0;
                bytes[me] = bean.getCurrentThreadAllocatedBytes() - b0;
                count[me] = n + (sink == 42 ? 1 : 0);
              });
      ts[t].start();
    }
    for (Thread t : ts) {
      t.join();
    }
    long n = Arrays.stream(count).sum();
    return new Result(
        (double) Arrays.stream(cpu).sum() / n, (double) Arrays.stream(bytes).sum() / n);
  }

  /** CPU time and bytes allocated per request. */
  private record Result(double ns, double bytes) {}

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** An admitted user's ticket cookie ({@code name=value}), from the filter's first answer. */
  private static String admittedCookie(AnteroomFilter filter) throws IOException, ServletException {
    var request = request(null);
    var response = new LeanResponse();
    filter.doFilter(request, response, APPLICATION);
    String set = response.getHeader("Set-Cookie");
    if (response.getStatus() != 200 || set == null) {
      throw new IllegalStateException(
          "the first request was not admitted: " + response.getStatus());
    }
    return set.substring(0, set.indexOf(';'));
  }

  /** wrk's request: {@code Host}, the cookie and {@code Accept}, as curl and wrk send them. */
  private static LeanRequest request(String cookie) {
    var request = new LeanRequest("GET", "/hello", "127.0.0.1");
    request.headers.add("Host", "127.0.0.1:8080");
    if (cookie != null) {
      request.headers.add("Cookie", cookie);
    }
    request.headers.add("Accept", "*/*");
    return request;
  }

  /**
   * The request through {@code filter} and the application, its objects reused; the cookie renewed
   * as a browser would keep it.
   */
  private static final class ThroughFilter implements Request {
    private final Filter filter;
    private final LeanRequest request;
    private final LeanResponse response = new LeanResponse();
    private String cookie;

    ThroughFilter(Filter filter, String cookie) {
      this.filter = filter;
      this.cookie = cookie;
      this.request = request(cookie);
    }

    @Override
    public void once() throws Exception {
      response.reset();
      filter.doFilter(request, response, APPLICATION);
      if (response.getStatus() != 200) {
        throw new IllegalStateException("not admitted: " + response.getStatus());
      }
      String set = response.getHeader("Set-Cookie");
      if (set != null) {
        String renewed = set.substring(0, set.indexOf(';'));
        if (!renewed.equals(cookie)) {
          cookie = renewed;
          request.headers.set("Cookie", cookie);
        }
      }
    }
  }

  /** {@link Door#enter} and {@link Door#onOriginResponse} alone, as an adapter calls them. */
  private static final class DoorOnly implements Request {
    private final Door door;
    private final AdmittedGet facts;
    private final AppResponse response = new AppResponse();

    DoorOnly(Door door, String cookie) {
      this.door = door;
      this.facts = new AdmittedGet(cookie);
    }

    @Override
    public void once() {
      Answer a = door.enter(facts, Runnable::run).toCompletableFuture().join();
      if (!(a instanceof Answer.Pass p)) {
        throw new IllegalStateException("not admitted: " + a);
      }
      response.headers.clear();
      door.onOriginResponse(p, response, 1000);
      String set = response.headers.get("Set-Cookie");
      if (set != null) {
        facts.cookie = set.substring(0, set.indexOf(';'));
      }
    }
  }
}
