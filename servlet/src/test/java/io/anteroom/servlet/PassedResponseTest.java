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
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the filter does to the application's response on an admitted request, in a real Tomcat: why
 * the response is wrapped ({@link PassedResponse}). The door completes it while its headers can
 * still change, also when the body outgrows the container's buffer and the response is committed
 * inside a write; the application's {@code Cache-Control} is made private whenever it is set; its
 * {@code Anteroom-Command} is never sent to the client, however it is spelled or added.
 */
class PassedResponseTest {
  private static final int BIG = 256 * 1024; // Tomcat's response buffer is 8 KiB

  @TempDir Path dir;
  private Tomcat tomcat;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();

  /** The application: public pages, large bodies through the stream and the writer, a logout. */
  static final class App extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.setContentType("text/plain");
      resp.setHeader("Cache-Control", "public, max-age=600");
      switch (req.getRequestURI()) {
        case "/big-stream" -> {
          byte[] chunk = "0123456789abcdef".repeat(64).getBytes(); // 1 KiB
          for (int i = 0; i < BIG / chunk.length; i++) {
            resp.getOutputStream().write(chunk);
          }
        }
        case "/big-writer" -> {
          String chunk = "0123456789abcdef".repeat(64);
          for (int i = 0; i < BIG / chunk.length(); i++) {
            resp.getWriter().write(chunk);
          }
        }
        case "/logout" -> {
          resp.addHeader("anteroom-COMMAND", "revoke");
          resp.getWriter().write("bye");
        }
        default -> resp.getWriter().write("page");
      }
    }
  }

  @BeforeEach
  void start() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        "dataDir: "
            + data
            + "\nrooms: [ { id: shop, totalActiveUsers: 100, newUsersPerMinute: 100 } ]\n");
    tomcat = new Tomcat();
    tomcat.setBaseDir(dir.resolve("tomcat").toString());
    var connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", dir.toString());
    Tomcat.addServlet(context, "app", new App());
    context.addServletMappingDecoded("/", "app");
    var filter = new FilterDef();
    filter.setFilterName("anteroom");
    filter.setFilterClass(AnteroomFilter.class.getName());
    filter.addInitParameter("config", config.toString());
    context.addFilterDef(filter);
    var mapping = new FilterMap();
    mapping.setFilterName("anteroom");
    mapping.addURLPattern("/*");
    context.addFilterMap(mapping);
    tomcat.start();
    base = "http://127.0.0.1:" + connector.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    tomcat.stop();
    tomcat.destroy();
    client.close();
  }

  private HttpResponse<String> get(String path, String cookie) throws Exception {
    var b = HttpRequest.newBuilder(URI.create(base + path));
    if (cookie != null) {
      b.header("Cookie", cookie);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String ticketCookie(HttpResponse<String> r) {
    return r.headers().allValues("set-cookie").stream()
        .filter(c -> c.startsWith("__anteroom_shop="))
        .map(c -> c.split(";", 2)[0])
        .findFirst()
        .orElse(null);
  }

  @Test
  void aBodyLargerThanTheContainersBufferStillCarriesTheTicketAndAPrivateCacheControl()
      throws Exception {
    for (String path : new String[] {"/big-stream", "/big-writer"}) {
      HttpResponse<String> admitted = get(path, null); // a new user, admitted on this request

      assertThat(admitted.body()).as(path).hasSize(BIG);
      assertThat(ticketCookie(admitted))
          .as(path + ": the ticket, set before the first byte")
          .isNotNull();
      assertThat(admitted.headers().firstValue("cache-control"))
          .as(path)
          .hasValueSatisfying(v -> assertThat(v).contains("private").doesNotContain("public"));
      assertThat(admitted.headers().firstValue("anteroom-throttle")).as(path).hasValue("0");
    }
  }

  @Test
  void anAdmittedUsersPageIsPrivateWhateverCacheControlTheApplicationSets() throws Exception {
    String cookie = ticketCookie(get("/", null));
    assertThat(cookie).isNotNull();

    HttpResponse<String> again = get("/page", cookie); // a session's request, its cookie kept

    assertThat(again.body()).isEqualTo("page");
    assertThat(again.headers().firstValue("cache-control"))
        .hasValueSatisfying(v -> assertThat(v).contains("private").doesNotContain("public"));
  }

  @Test
  void theApplicationsCommandNeverReachesTheClientHoweverItIsAdded() throws Exception {
    String cookie = ticketCookie(get("/", null));

    HttpResponse<String> out = get("/logout", cookie);

    assertThat(out.body()).isEqualTo("bye");
    assertThat(out.headers().firstValue("anteroom-command")).isEmpty();
    assertThat(out.headers().allValues("set-cookie"))
        .anySatisfy(c -> assertThat(c).startsWith("__anteroom_shop=;").contains("Max-Age=0"));
  }
}
