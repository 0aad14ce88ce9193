package io.anteroom.gateway.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's synthetic visitors: they fill the room first, browse for a while, then leave, so a
 * person opening the demo in a browser sees the queue at once and gets in a minute or two later.
 * Each visitor keeps its own ticket cookie.
 */
public final class DemoCrowd implements AutoCloseable {

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "demo-crowd");
            t.setDaemon(true);
            return t;
          });
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  public DemoCrowd(String gatewayUrl, int visitors, Duration stay, Duration every) {
    List<String[]> jars = new ArrayList<>();
    for (int i = 0; i < visitors; i++) {
      jars.add(new String[1]);
    }
    long rounds = Math.max(1, stay.toMillis() / every.toMillis());
    for (long round = 0; round <= rounds; round++) {
      timer.schedule(
          () -> jars.forEach(jar -> visit(gatewayUrl, jar)),
          round * every.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  private void visit(String url, String[] jar) {
    var b = HttpRequest.newBuilder(URI.create(url + "/")).timeout(Duration.ofSeconds(10));
    if (jar[0] != null) {
      b.header("Cookie", jar[0]);
    }
    client
        .sendAsync(b.build(), HttpResponse.BodyHandlers.discarding())
        .thenAccept(
            r -> r.headers().firstValue("set-cookie").ifPresent(c -> jar[0] = c.split(";", 2)[0]));
  }

  @Override
  public void close() {
    timer.shutdownNow();
    client.close();
  }
}
