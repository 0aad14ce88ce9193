package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.RawHttp;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spellings of a path or a host that a client may send to reach a room's origin without being
 * counted: each is queued (routed to its room) or refused with 400, never forwarded as is. The
 * origin records what it received and is judged as a lenient origin (a servlet container) would
 * read it: path parameters dropped, escapes decoded, dot and empty segments resolved.
 */
class HostileTargetTest {

  /** The confirmed attack's set-up: one room on /shop/ of one host, everything else open. */
  private static final String SHOP =
      """
      rooms:
        - { id: shop, host: shop.example.com, path: /shop/, queueAll: true }
        - { id: open, host: open.example, path: /, totalActiveUsers: 100 }
      """;

  /** A whole site in the room but its static files. */
  private static final String SITE =
      """
      rooms:
        - { id: site, host: shop.example.com, path: /, queueAll: true,
            bypass: [ { path: /static/** } ] }
      """;

  @TempDir Path dataDir;

  /** The path a lenient origin serves for this request-target. */
  static String lenientPath(String target) {
    String p = target;
    if (p.startsWith("http://") || p.startsWith("https://")) {
      int slash = p.indexOf('/', p.indexOf("//") + 2);
      p = slash < 0 ? "/" : p.substring(slash);
    }
    int q = p.indexOf('?');
    p = q < 0 ? p : p.substring(0, q);
    p = p.replaceAll(";[^/]*", "");
    p = URLDecoder.decode(p.replace("+", "%2B"), StandardCharsets.UTF_8).replace('\\', '/');
    var segments = new ArrayDeque<String>();
    for (String s : p.split("/")) {
      if (s.equals("..")) {
        segments.pollLast();
      } else if (!s.isEmpty() && !s.equals(".")) {
        segments.addLast(s);
      }
    }
    return "/" + String.join("/", segments) + (p.endsWith("/") && !segments.isEmpty() ? "/" : "");
  }

  private static List<String> servedPaths(Harness h) {
    return h.origin.received.stream()
        .map(r -> lenientPath(r.substring(r.indexOf(' ') + 1)))
        .toList();
  }

  private static String get(String target, String... headers) {
    return "GET "
        + target
        + " HTTP/1.1\n"
        + String.join("\n", headers)
        + (headers.length > 0 ? "\n" : "")
        + "Connection: close";
  }

  private static final String HOST = "Host: shop.example.com";

  @Test
  void noSpellingOfAPathOrHostReachesTheOriginOfAQueueAllRoomUncounted() throws Exception {
    Map<String, String> tricks = new LinkedHashMap<>();
    tricks.put("double slash", get("//shop/x", HOST));
    tricks.put("dot segment", get("/./shop/x", HOST));
    tricks.put("escaped letter", get("/%73hop/x", HOST));
    tricks.put("escaped dot segment", get("/%2e/shop/x", HOST));
    tricks.put("dot-dot segment", get("/a/../shop/x", HOST));
    tricks.put("escaped dot-dot", get("/a/%2e%2e/shop/x", HOST));
    tricks.put("path parameter", get("/shop;v=1/x", HOST));
    tricks.put("dot-dot with parameter", get("/a/..;/shop/x", HOST));
    tricks.put("encoded slash", get("/shop%2fx", HOST));
    tricks.put("dot-dot above the root", get("/%2E%2E/shop/x", HOST));
    tricks.put("trailing dot in Host", get("/shop/x", "Host: shop.example.com."));
    tricks.put("upper case, dot and port in Host", get("/shop/x", "Host: SHOP.example.com.:80"));
    tricks.put(
        "absolute-form target", get("http://shop.example.com/shop/x", "Host: elsewhere.example"));
    tricks.put("HTTP/1.0 without Host", "GET /shop/x HTTP/1.0");
    tricks.put("two Host headers", get("/shop/x", "Host: elsewhere.example", HOST));
    try (var h = new Harness(dataDir, SHOP)) {
      var outcomes = new LinkedHashMap<String, Integer>();
      var reachedOrigin = new java.util.ArrayList<String>();
      for (var trick : tricks.entrySet()) {
        RawHttp.Response r = RawHttp.send(h.gateway.port(), trick.getValue());
        if (r.body().startsWith("origin:")) {
          reachedOrigin.add(trick.getKey());
        }
        outcomes.put(trick.getKey(), r.status());
      }
      if (h2c(h, "/shop/x").startsWith("origin:")) {
        reachedOrigin.add("h2c with :authority");
      }
      outcomes.put("h2c with :authority", h2cStatus);
      assertThat(outcomes).hasSize(16);
      assertThat(reachedOrigin).as("tricks that reached the origin").isEmpty();
      assertThat(outcomes.values())
          .as("queued (200, the queue page) or refused (400): %s", outcomes)
          .allMatch(s -> s == 200 || s == 400);
      assertThat(servedPaths(h))
          .as("what the origin received: %s", h.origin.received)
          .noneMatch(p -> p.startsWith("/shop/"));
      // unambiguous spellings are routed to the room (queued), ambiguous ones refused
      assertThat(outcomes)
          .containsEntry("double slash", 200)
          .containsEntry("escaped letter", 200)
          .containsEntry("trailing dot in Host", 200)
          .containsEntry("absolute-form target", 200)
          .containsEntry("h2c with :authority", 200)
          .containsEntry("encoded slash", 400)
          .containsEntry("dot-dot above the root", 400)
          .containsEntry("two Host headers", 400)
          .containsEntry("HTTP/1.0 without Host", 400);
    }
  }

  @Test
  void bypassRulesJudgeTheNormalisedPathSoDotSegmentsCannotLeaveTheBypassedTree() throws Exception {
    try (var h = new Harness(dataDir, SITE)) {
      for (String target :
          List.of(
              "/static/../checkout",
              "/static/%2e%2e/checkout",
              "/static/..;/checkout",
              "/static/%2E%2E;x=1/checkout")) {
        RawHttp.Response r = RawHttp.send(h.gateway.port(), get(target, HOST));
        assertThat(r.status()).as(target).isIn(200, 400);
        assertThat(r.body()).as(target).doesNotStartWith("origin:");
      }
      assertThat(servedPaths(h))
          .as("what the origin received: %s", h.origin.received)
          .doesNotContain("/checkout");
      RawHttp.Response asset = RawHttp.send(h.gateway.port(), get("/static/app.js", HOST));
      assertThat(asset.body()).as("the bypass itself still works").startsWith("origin:");
    }
  }

  @Test
  void theOriginReceivesTheNormalisedTargetAndHost() throws Exception {
    try (var h = new Harness(dataDir, SHOP)) {
      RawHttp.Response r =
          RawHttp.send(
              h.gateway.port(), get("//x/./y/../z;p=1/%7Euser?q=%2F", "Host: Open.Example.:8080"));
      assertThat(r.body()).startsWith("origin:");
      assertThat(h.origin.received).containsExactly("open.example:8080 /x/z/~user?q=%2F");
      assertThat(h.origin.lastHeaders).containsEntry("x-forwarded-host", "open.example:8080");
    }
  }

  @Test
  void anAmbiguousTargetGetsA400WithTheReason() throws Exception {
    try (var h = new Harness(dataDir, SHOP)) {
      RawHttp.Response r = RawHttp.send(h.gateway.port(), get("/shop/%2e%2e%2fx", HOST));
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.body()).contains("encoded /");
      assertThat(h.origin.received).isEmpty();
      assertThat(h2c(h, "/shop/%2e%2e%2fx")).as("over h2c too").contains("encoded /");
      assertThat(h2cStatus).isEqualTo(400);
    }
  }

  private int h2cStatus;

  /**
   * An HTTP/2 request over cleartext with prior knowledge, naming its host in :authority only;
   * returns the body and keeps the status in {@link #h2cStatus}.
   */
  private String h2c(Harness h, String path) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      var client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setProtocolVersion(HttpVersion.HTTP_2)
                  .setHttp2ClearTextUpgrade(false));
      return client
          .request(
              new RequestOptions()
                  .setServer(SocketAddress.inetSocketAddress(h.gateway.port(), "127.0.0.1"))
                  .setHost("shop.example.com")
                  .setPort(80)
                  .setURI(path))
          .compose(
              req ->
                  req.send()
                      .compose(
                          resp -> {
                            assertThat(resp.version()).isEqualTo(HttpVersion.HTTP_2);
                            h2cStatus = resp.statusCode();
                            return resp.body().map(Object::toString);
                          }))
          .await(20, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
