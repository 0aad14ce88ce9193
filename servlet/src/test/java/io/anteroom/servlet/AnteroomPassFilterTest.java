package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.anteroom.pass.Pass;
import io.anteroom.pass.PassIssuer;
import io.anteroom.pass.PassKeys;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strict mode at the origin: {@link AnteroomPassFilter} in a real Tomcat 11 refuses every request
 * without a valid pass from the gateway's keys, lets exempt paths through, and hands the verified
 * pass to the application.
 */
class AnteroomPassFilterTest {

  @TempDir Path dir;

  /** The gateway's pass keys, and a gateway's issuer of passes with them. */
  private static final PassKeys KEYS = PassKeys.generate();

  private final PassIssuer gateway = PassIssuer.builder(KEYS).build();
  private Tomcat tomcat;

  @AfterEach
  void stop() throws Exception {
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
  }

  /** The application: says the pass id it was handed, or "none". */
  static final class App extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.setContentType("text/plain");
      Object pass = req.getAttribute(AnteroomPassFilter.PASS_ATTRIBUTE);
      resp.getWriter()
          .write(
              "app:"
                  + req.getRequestURI()
                  + ":"
                  + (pass == null ? "none" : ((Pass) pass).passId()));
    }
  }

  private Path jwksFile() throws IOException {
    Path file = dir.resolve("jwks.json");
    Files.writeString(file, KEYS.jwks());
    return file;
  }

  private String start(Map<String, String> params) throws Exception {
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
    filter.setFilterName("anteroom-pass");
    filter.setFilterClass(AnteroomPassFilter.class.getName());
    params.forEach(filter::addInitParameter);
    context.addFilterDef(filter);
    var mapping = new FilterMap();
    mapping.setFilterName("anteroom-pass");
    mapping.addURLPattern("/*");
    context.addFilterMap(mapping);
    tomcat.start();
    assertThat(context.getState().isAvailable()).as("the filter started").isTrue();
    return "http://127.0.0.1:" + connector.getLocalPort();
  }

  private Map<String, String> strict() throws IOException {
    var params = new HashMap<String, String>();
    params.put("jwks", jwksFile().toString());
    params.put("rooms", "shop");
    params.put("exempt", "/health, /actuator/**");
    return params;
  }

  private static HttpResponse<String> get(String url, String pass) throws Exception {
    var request = HttpRequest.newBuilder(URI.create(url));
    if (pass != null) {
      request.header("Anteroom-Pass", pass);
    }
    try (var client = HttpClient.newHttpClient()) {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private String validPass() {
    long now = System.currentTimeMillis();
    return gateway.passFor("shop", null, 42L, now - 60_000, now + 600_000);
  }

  private static void assertRefused(HttpResponse<String> r) {
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo(AnteroomPassFilter.REFUSED_BODY);
    assertThat(r.headers().firstValue("cache-control")).contains("no-store");
  }

  @Test
  void aValidPassReachesTheApplicationWhichIsHandedTheVerifiedPass() throws Exception {
    String url = start(strict());

    var r = get(url + "/checkout", validPass());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("app:/checkout:" + gateway.passId("shop", 42L));
  }

  @Test
  void aRequestWithoutAPassIsRefusedWith403() throws Exception {
    String url = start(strict());
    assertRefused(get(url + "/checkout", null));
  }

  @Test
  void forgedExpiredForeignAndOtherRoomPassesAreRefused() throws Exception {
    String url = start(strict());
    String valid = validPass();
    int sig = valid.lastIndexOf('.') + 5;
    String forged =
        valid.substring(0, sig) + (valid.charAt(sig) == 'A' ? 'B' : 'A') + valid.substring(sig + 1);
    long now = System.currentTimeMillis();
    var anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
    String expired =
        PassIssuer.builder(KEYS)
            .clock(anHourAgo)
            .build()
            .passFor("shop", null, 42L, now - 7_200_000, now + 600_000);
    String foreignKey =
        PassIssuer.builder(PassKeys.generate())
            .build()
            .passFor("shop", null, 42L, now, now + 600_000);
    String otherRoom = gateway.passFor("admin", null, 42L, now, now + 600_000);

    for (String pass : new String[] {forged, expired, foreignKey, otherRoom, "not-a-pass"}) {
      assertRefused(get(url + "/checkout", pass));
    }
  }

  @Test
  void exemptPathsPassWithoutAPassAndTheirOddSpellingsDoNot() throws Exception {
    String url = start(strict());

    assertThat(get(url + "/health", null).body()).isEqualTo("app:/health:none");
    assertThat(get(url + "/actuator", null).statusCode()).isEqualTo(200);
    assertThat(get(url + "/actuator/info", null).statusCode()).isEqualTo(200);
    assertRefused(get(url + "/healthz", null));
    assertRefused(get(url + "/health/../checkout", null));
    assertRefused(get(url + "/actuator/..;/checkout", null));
    assertRefused(get(url + "/actuatorx", null));
  }

  @Test
  void withoutStrictARequestWithoutAPassGoesThroughButAValidOneIsStillHandedOver()
      throws Exception {
    var params = strict();
    params.put("strict", "false");
    String url = start(params);

    assertThat(get(url + "/checkout", null).body()).isEqualTo("app:/checkout:none");
    assertThat(get(url + "/checkout", validPass()).body())
        .isEqualTo("app:/checkout:" + gateway.passId("shop", 42L));
  }

  @Test
  void theKeysMayComeFromTheGatewaysJwksUrl() throws Exception {
    var jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwks.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          byte[] body = KEYS.jwks().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    jwks.start();
    try {
      var params = strict();
      params.put(
          "jwks", "http://127.0.0.1:" + jwks.getAddress().getPort() + "/.well-known/jwks.json");
      String url = start(params);

      assertThat(get(url + "/checkout", validPass()).statusCode()).isEqualTo(200);
      assertRefused(get(url + "/checkout", null));
    } finally {
      jwks.stop(0);
    }
  }

  private static FilterConfig params(Map<String, String> values) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "anteroom-pass";
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
  void missingOrBadSettingsFailInitWithOneLine() throws Exception {
    assertThatThrownBy(() -> new AnteroomPassFilter().init(params(Map.of("rooms", "shop"))))
        .isInstanceOf(ServletException.class)
        .hasNoCause()
        .hasMessageStartingWith("anteroom pass: init parameter jwks must name the gateway's JWKS");
    String jwks = jwksFile().toString();
    assertThatThrownBy(() -> new AnteroomPassFilter().init(params(Map.of("jwks", jwks))))
        .isInstanceOf(ServletException.class)
        .hasMessage(
            "anteroom pass: init parameter rooms must name the rooms whose passes this application"
                + " accepts");
    assertThatThrownBy(
            () ->
                new AnteroomPassFilter()
                    .init(params(Map.of("jwks", jwks, "rooms", "shop", "exempt", "/static/*.css"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("exempt path \"/static/*.css\": * is only allowed as a final /**");
    Path missing = dir.resolve("nope.json");
    assertThatThrownBy(
            () ->
                new AnteroomPassFilter()
                    .init(params(Map.of("jwks", missing.toString(), "rooms", "shop"))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("cannot read the JWKS file " + missing);
  }
}
