package io.anteroom.bench.servlet;

import io.anteroom.host.RoomHost;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Memory per waiting user in the filter (issue 44): the endpoint behind a full room (one active
 * user, taken first), then N distinct new users (requests without a cookie, each a new arrival that
 * gets the queue page); the heap used after a full GC before and after, and its difference per
 * queued user. The room keeps a queued user's place in the user's cookie, as the proxy does, so the
 * difference should be about nothing.
 *
 * <pre>{@code java -cp "$(cat bench/servlet/target/classpath.txt):bench/servlet/target/classes" \
 *   io.anteroom.bench.servlet.QueuedUsersMemory 100000}</pre>
 */
public final class QueuedUsersMemory {

  private QueuedUsersMemory() {}

  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    Path dir = Files.createTempDirectory("anteroom-queued-memory");
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        "dataDir: " + dir.resolve("data") + "\nrooms: [ { id: shop, totalActiveUsers: 1 } ]\n");
    try (var app =
        new SpringApplicationBuilder(Endpoint.class)
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--anteroom.config=" + config,
                "--logging.level.root=WARN")) {
      int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
      var uri = URI.create("http://127.0.0.1:" + port + "/hello");
      // no cookie handler: every request is a new user
      try (var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
        var request = HttpRequest.newBuilder(uri).build();
        String first = client.send(request, HttpResponse.BodyHandlers.ofString()).body();
        if (!first.startsWith("hello")) {
          throw new IllegalStateException("the first user was not admitted: " + first);
        }
        // warm up the queue path (JIT, pools) before the first measurement
        for (int i = 0; i < 2_000; i++) {
          queued(client, request);
        }
        long before = usedAfterGc();
        long start = System.nanoTime();
        for (int i = 0; i < users; i++) {
          queued(client, request);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = usedAfterGc();
        var room = app.getBean(RoomHost.class).rooms().snapshot().byId().get("shop").control();
        var status = room.status(System.currentTimeMillis());
        System.out.printf(
            "queued users: %,d distinct (new clients without a cookie, each answered with the queue"
                + " page) in %.1f s%nheap used after GC: before %,d B, after %,d B, difference"
                + " %,d B = %.2f B per queued user%nthe room's own count: %,d queued, %,d active"
                + " (%s)%n",
            users,
            seconds,
            before,
            after,
            after - before,
            (after - before) / (double) users,
            status.estimatedQueuedUsers(),
            status.estimatedTotalActiveUsers(),
            status.status());
      }
    }
  }

  private static void queued(HttpClient client, HttpRequest request) throws Exception {
    var r = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (r.body().startsWith("hello")) {
      throw new IllegalStateException("a user past the limit reached the endpoint");
    }
  }

  private static long usedAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) { // the least of five full collections: what is still referenced
      System.gc();
      Thread.sleep(200);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
