package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
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
 * The filter in the remote topology: every instance of the application a gateway of one coordinator
 * (in this process, over HTTP with the deployment's secret), each filter in its own real Tomcat 11,
 * as {@code anteroom gateway --coordinator} is.
 */
class RemoteTopologyTest {

  private static final SharedSecret SECRET = SharedSecret.generate("k1");

  /** The deployment's ticket keys, the same file at every instance. */
  private static final String TICKET_KEYS = "1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";

  @TempDir Path dir;

  private io.anteroom.objects.Runtime runtime;
  private HttpObjectServer coordinator;
  private Path secretFile;
  private final List<Tomcat> tomcats = new ArrayList<>();

  @BeforeEach
  void startCoordinator() throws IOException {
    runtime = io.anteroom.objects.Runtime.builder().storage(new InMemoryStorageEngine()).build();
    coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0).secrets(List.of(SECRET)).build());
    secretFile = dir.resolve("coordinator.secret");
    Files.writeString(secretFile, "# the deployment's secret\n" + SECRET.encoded() + "\n");
  }

  @AfterEach
  void stop() throws Exception {
    for (Tomcat t : tomcats) {
      t.stop();
      t.destroy();
    }
    coordinator.close();
    runtime.close();
  }

  private String coordinatorUrl() {
    return "http://127.0.0.1:" + coordinator.actualPort();
  }

  /** The application behind the filter. */
  static final class App extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.setContentType("text/plain");
      resp.getWriter().write("app:" + req.getRequestURI());
    }
  }

  /** A YAML file of one room of {@code limit} places, with the deployment's ticket keys. */
  private Path config(String name, int limit) throws IOException {
    Path data = dir.resolve(name);
    Files.createDirectories(data);
    Files.writeString(data.resolve("ticket-keys"), TICKET_KEYS);
    Files.setPosixFilePermissions(
        data.resolve("ticket-keys"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(
        file, "dataDir: " + data + "\nrooms: [ { id: shop, totalActiveUsers: " + limit + " } ]\n");
    return file;
  }

  /** An instance of the application: a Tomcat whose filter's init parameters are {@code params}. */
  private String app(Map<String, String> params) throws Exception {
    var tomcat = new Tomcat();
    tomcat.setBaseDir(dir.resolve("tomcat-" + tomcats.size()).toString());
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
    params.forEach(filter::addInitParameter);
    context.addFilterDef(filter);
    var mapping = new FilterMap();
    mapping.setFilterName("anteroom");
    mapping.addURLPattern("/*");
    context.addFilterMap(mapping);
    tomcats.add(tomcat);
    tomcat.start();
    assertThat(context.getState().isAvailable()).as("the filter started").isTrue();
    return "http://127.0.0.1:" + connector.getLocalPort();
  }

  private Map<String, String> remote(Path config) {
    return Map.of(
        "config", config.toString(),
        "coordinator", coordinatorUrl(),
        "datacenter", "dublin",
        "coordinator-secret-file", secretFile.toString());
  }

  /** One GET as a browser with the ticket cookie {@code ticket} (null: a new user). */
  private static HttpResponse<String> get(String url, String ticket) throws Exception {
    var request = HttpRequest.newBuilder(URI.create(url + "/checkout"));
    if (ticket != null) {
      request.header("Cookie", ticket);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static boolean reachedApp(HttpResponse<String> r) {
    return r.body().startsWith("app:");
  }

  /** The ticket cookie {@code r} sets, else the one the user had. */
  private static String ticket(HttpResponse<String> r, String had) {
    return r.headers().allValues("set-cookie").stream()
        .filter(c -> c.startsWith("__anteroom_shop="))
        .map(c -> c.substring(0, c.indexOf(';')))
        .findFirst()
        .orElse(had);
  }

  @Test
  void twoInstancesOfTheApplicationSharingOneCoordinatorHoldTheRoomsLimitTogether()
      throws Exception {
    String a = app(remote(config("a", 2)));
    String b = app(remote(config("b", 2)));

    // six users, each keeping its cookie and asking again (queued users draw lots in their
    // bucket, so who enters is random; how many never is): each instance alone would admit two
    String[] tickets = new String[6];
    java.util.Set<Integer> admitted = new java.util.TreeSet<>();
    for (int round = 0; round < 40 && admitted.size() < 2; round++) {
      for (int user = 0; user < tickets.length; user++) {
        var r = get((user + round) % 2 == 0 ? a : b, tickets[user]);
        tickets[user] = ticket(r, tickets[user]);
        if (reachedApp(r)) {
          admitted.add(user);
        }
        assertThat(admitted)
            .as("never more than the room's two places")
            .hasSizeLessThanOrEqualTo(2);
      }
    }

    assertThat(admitted).as("two places in the room, across both instances").hasSize(2);
    for (int user : admitted) {
      // an admitted user's ticket is honoured by either instance (the deployment's keys)
      assertThat(reachedApp(get(a, tickets[user]))).isTrue();
      assertThat(reachedApp(get(b, tickets[user]))).isTrue();
    }
    for (int user = 0; user < tickets.length; user++) {
      if (!admitted.contains(user)) {
        assertThat(reachedApp(get(a, tickets[user]))).as("still full at a").isFalse();
        assertThat(reachedApp(get(b, tickets[user]))).as("still full at b").isFalse();
      }
    }
  }

  private static FilterConfig params(Map<String, String> values) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "anteroom";
      }

      @Override
      public ServletContext getServletContext() {
        return null;
      }

      @Override
      public String getInitParameter(String name) {
        return values.get(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(values.keySet());
      }
    };
  }

  @Test
  void aWrongSecretFailsInitWithOneLine() throws Exception {
    Path wrong = dir.resolve("wrong.secret");
    Files.writeString(wrong, SharedSecret.generate("k1").encoded() + "\n");
    var params = new java.util.HashMap<>(remote(config("a", 2)));
    params.put("coordinator-secret-file", wrong.toString());

    assertThatThrownBy(() -> new AnteroomFilter().init(params(params)))
        .isInstanceOf(ServletException.class)
        .hasNoCause()
        .hasMessageStartingWith(
            "anteroom: the coordinator refused this gateway's signature: is init parameter"
                + " coordinator-secret-file "
                + wrong
                + " the deployment's shared secret?")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void aCoordinatorOnAnotherHostNeedsTheSecretAsTheGatewaySays() throws Exception {
    var params = new java.util.HashMap<>(remote(config("a", 2)));
    params.remove("coordinator-secret-file");
    params.put("coordinator", "http://10.0.0.2:7070");

    assertThatThrownBy(() -> new AnteroomFilter().init(params(params)))
        .isInstanceOf(ServletException.class)
        .hasMessage(
            "anteroom: init parameter coordinator http://10.0.0.2:7070 is not on this host: give"
                + " the deployment's shared secret (init parameter coordinator-secret-file FILE or"
                + " $ANTEROOM_COORDINATOR_SECRET)");
  }

  @Test
  void aRemoteTopologyNeedsTheDeploymentsTicketKeysAndADataCenter() throws Exception {
    Path config = config("a", 2);
    Files.delete(dir.resolve("a").resolve("ticket-keys"));
    assertThatThrownBy(() -> new AnteroomFilter().init(params(remote(config))))
        .isInstanceOf(ServletException.class)
        .hasMessageStartingWith("anteroom: no ticket keys: every gateway of a deployment must use");

    var noDataCenter = new java.util.HashMap<>(remote(config("b", 2)));
    noDataCenter.remove("datacenter");
    assertThatThrownBy(() -> new AnteroomFilter().init(params(noDataCenter)))
        .isInstanceOf(ServletException.class)
        .hasMessageStartingWith(
            "anteroom: init parameter coordinator needs init parameter datacenter NAME");
  }
}
