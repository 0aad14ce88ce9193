package io.anteroom.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The example shop as its README starts it, on a random port, with a room of one user. */
class ShopApplicationTest {

  @TempDir Path dir;

  private ConfigurableApplicationContext shop;
  private int port;

  @BeforeEach
  void start() throws Exception {
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        "dataDir: " + dir.resolve("data") + "\nrooms: [ { id: shop, totalActiveUsers: 1 } ]\n");
    shop =
        new SpringApplicationBuilder(ShopApplication.class)
            .run("--server.port=0", "--anteroom.config=" + config); // above application.properties
    port = Integer.parseInt(shop.getEnvironment().getProperty("local.server.port"));
  }

  @AfterEach
  void stop() {
    shop.close();
  }

  /** A browser: its own cookies, so its own place in the room. */
  private final class Browser implements AutoCloseable {
    private final HttpClient client =
        HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

    HttpResponse<String> get(String path) throws Exception {
      return client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path) throws Exception {
      return client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
      client.close();
    }
  }

  @Test
  void usersPastTheLimitGetTheQueuePageInsteadOfTheShop() throws Exception {
    try (var first = new Browser();
        var second = new Browser()) {
      var admitted = first.get("/");
      var queued = second.get("/products/tickets");

      assertThat(admitted.body()).contains("<h1>The shop</h1>");
      assertThat(queued.body()).doesNotContain("Concert tickets").doesNotContain("The shop</h1>");
      assertThat(queued.headers().firstValue("content-type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
      assertThat(queued.headers().allValues("set-cookie"))
          .as("the room's ticket: the queued user's place in line")
          .anySatisfy(c -> assertThat(c).startsWith("__anteroom_shop="));
    }
  }

  @Test
  void anAdmittedUserOrdersOnceAndASecondOrderWithTheSamePassIsRefused() throws Exception {
    try (var alice = new Browser()) {
      assertThat(alice.get("/products/tickets").body()).contains("Concert tickets");

      var order = alice.post("/checkout?product=tickets");
      var again = alice.post("/checkout?product=sneakers");

      assertThat(order.statusCode()).as(order.body()).isEqualTo(201);
      assertThat(order.body()).startsWith("order accepted: tickets");
      assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
      assertThat(again.body()).startsWith("this visit has already ordered");
    }
  }
}
