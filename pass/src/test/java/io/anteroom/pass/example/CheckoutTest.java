package io.anteroom.pass.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.anteroom.pass.PassIssuer;
import io.anteroom.pass.PassKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The example of docs/pass.md: it runs against a JWKS served over HTTP as the gateway's admin
 * listener serves it, and the page shows this very file, so the page cannot drift from the code.
 */
class CheckoutTest {
  static final Path SOURCE = Path.of("src/test/java/io/anteroom/pass/example/Checkout.java");
  static final Path PAGE = Path.of("../docs/pass.md");

  final PassKeys keys = PassKeys.generate();
  final PassIssuer gateway = PassIssuer.builder(keys).build();
  HttpServer adminListener;

  @AfterEach
  void stop() {
    adminListener.stop(0);
  }

  @Test
  void theCheckoutTakesOneOrderPerAdmittedUserAndNoneWithoutAValidPass() throws Exception {
    var checkout = new Checkout(serveJwks());
    long admitted = Instant.now().minusSeconds(60).toEpochMilli();
    long sessionEnds = admitted + Duration.ofMinutes(15).toMillis();

    String alice = gateway.passFor("shop", null, 1001L, admitted, sessionEnds);
    String aliceLater =
        PassIssuer.builder(keys).build().passFor("shop", null, 1001L, admitted, sessionEnds);
    String bob = gateway.passFor("shop", null, 2002L, admitted, sessionEnds);
    String otherRoom = gateway.passFor("tickets", null, 3003L, admitted, sessionEnds);
    String forged =
        PassIssuer.builder(PassKeys.generate())
            .build()
            .passFor("shop", null, 4004L, admitted, sessionEnds);

    assertThat(checkout.placeOrder(alice, "cart")).isEqualTo(201);
    assertThat(checkout.placeOrder(aliceLater, "cart"))
        .isEqualTo(409); // another gateway, another pass, same user
    assertThat(checkout.placeOrder(bob, "cart")).isEqualTo(201);
    assertThat(checkout.placeOrder(null, "cart")).isEqualTo(403); // around the room
    assertThat(checkout.placeOrder(otherRoom, "cart")).isEqualTo(403);
    assertThat(checkout.placeOrder(forged, "cart")).isEqualTo(403);
  }

  @Test
  void thePageShowsTheExampleVerbatim() throws IOException {
    adminListener = HttpServer.create(); // nothing to stop otherwise
    String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    String marker = "<!-- verbatim: pass/" + SOURCE + " -->\n```java\n";
    int start = page.indexOf(marker);
    assertThat(start)
        .as("%s holds the marker %s followed by the example's code block", PAGE, marker.strip())
        .isNotNegative();
    int from = start + marker.length();
    int end = page.indexOf("```\n", from);
    assertThat(page.substring(from, end))
        .as("the code block of %s must be %s verbatim (copy the file into the page)", PAGE, SOURCE)
        .isEqualTo(source);
  }

  private java.net.URL serveJwks() throws IOException {
    adminListener = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    adminListener.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          byte[] body = keys.jwks().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/jwk-set+json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    adminListener.start();
    return URI.create(
            "http://127.0.0.1:" + adminListener.getAddress().getPort() + "/.well-known/jwks.json")
        .toURL();
  }
}
