package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue page's push in the Servlet filter, in a real Tomcat: a waiting user's poll is held in
 * async mode and answered when the room frees a slot (here the application ends the first user's
 * session with {@code Anteroom-Command: revoke}); the push itself lets nobody in, and a chain
 * without async support tells the page to keep refreshing.
 */
class FilterPushTest {
  @TempDir Path dir;
  private Tomcat tomcat;
  private final HttpClient client = HttpClient.newHttpClient();

  @AfterEach
  void stop() throws Exception {
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
    client.close();
  }

  /** The application: {@code /logout} ends the session, anything else answers "app:". */
  static final class App extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      if (req.getRequestURI().equals("/logout")) {
        resp.setHeader("Anteroom-Command", "revoke");
      }
      resp.setContentType("text/plain");
      resp.getWriter().write("app:" + req.getRequestURI());
    }
  }

  private String app(boolean async) throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        "dataDir: "
            + data
            + "\nrooms: [ { id: shop, totalActiveUsers: 1, newUsersPerMinute: 100 } ]\n");
    tomcat = new Tomcat();
    tomcat.setBaseDir(dir.resolve("tomcat").toString());
    var connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", dir.toString());
    Tomcat.addServlet(context, "app", new App()).setAsyncSupported(async);
    context.addServletMappingDecoded("/", "app");
    var filter = new FilterDef();
    filter.setFilterName("anteroom");
    filter.setFilterClass(AnteroomFilter.class.getName());
    filter.addInitParameter("config", config.toString());
    filter.setAsyncSupported(Boolean.toString(async));
    context.addFilterDef(filter);
    var mapping = new FilterMap();
    mapping.setFilterName("anteroom");
    mapping.addURLPattern("/*");
    context.addFilterMap(mapping);
    tomcat.start();
    return "http://127.0.0.1:" + connector.getLocalPort();
  }

  /** A user: its own cookie, kept from every answer. */
  private final class User {
    final String base;
    String cookie;

    User(String base) {
      this.base = base;
    }

    CompletableFuture<HttpResponse<String>> send(String path, String... headers) {
      var b = HttpRequest.newBuilder(URI.create(base + path));
      if (headers.length > 0) {
        b.headers(headers);
      }
      if (cookie != null) {
        b.header("Cookie", cookie);
      }
      return client
          .sendAsync(b.build(), HttpResponse.BodyHandlers.ofString())
          .thenApply(
              r -> {
                r.headers().firstValue("set-cookie").ifPresent(c -> cookie = c.split(";", 2)[0]);
                return r;
              });
    }

    HttpResponse<String> get(String path, String... headers) {
      return send(path, headers).join();
    }
  }

  @Test
  void aHeldPollIsToldToTryAgainWhenTheApplicationEndsASession() throws Exception {
    String base = app(true);
    User first = new User(base);
    assertThat(first.get("/checkout").body()).isEqualTo("app:/checkout");
    User waiting = new User(base);
    HttpResponse<String> queued = waiting.get("/checkout", "Accept", "application/json");
    assertThat(queued.body()).contains("\"inWaitingRoom\":true");
    String lastUpdated = queued.body().replaceAll(".*\"lastUpdated\":\"([^\"]+)\".*", "$1");
    long seen = java.time.Instant.parse(lastUpdated).toEpochMilli();

    var poll = waiting.send("/checkout", "Accept", "application/json", "Anteroom-Watch", "" + seen);
    assertThat(first.get("/logout").body()).isEqualTo("app:/logout"); // the session ends

    HttpResponse<String> told = poll.get(30, TimeUnit.SECONDS); // the next report frees the slot
    assertThat(told.statusCode()).isEqualTo(200);
    assertThat(told.body()).isEqualTo("{\"enter\":true}");
    assertThat(told.headers().allValues("set-cookie")).as("the push sets no cookie").isEmpty();
    // whether the reload enters is the room's decision on that request (here the minute's pool,
    // fixed at its start, may still hold the slot back until the next minute): not the push's
  }

  @Test
  void withoutAsyncSupportThePageIsToldToKeepRefreshing() throws Exception {
    String base = app(false);
    User first = new User(base);
    assertThat(first.get("/checkout").body()).isEqualTo("app:/checkout");
    User waiting = new User(base);
    assertThat(waiting.get("/checkout").body()).doesNotStartWith("app:");

    HttpResponse<String> r = waiting.get("/checkout", "Anteroom-Watch", "0");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"enter\":false,\"push\":false}");
  }
}
