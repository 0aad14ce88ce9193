package io.anteroom.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.host.RoomHost;
import io.anteroom.servlet.AnteroomFilter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The starter in a real Spring Boot 4 application on embedded Tomcat. */
class AnteroomStarterTest {

  @TempDir Path dir;

  /** A shop: every page answers {@code origin:<path>}. */
  @SpringBootApplication
  @RestController
  static class Shop {
    @GetMapping("/**")
    String page(HttpServletRequest request) {
      return "origin:" + request.getRequestURI();
    }
  }

  private Path config(String rooms) throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(file, "dataDir: " + dir.resolve("data") + "\n" + rooms + "\n");
    return file;
  }

  private ConfigurableApplicationContext start(Path config) {
    return new SpringApplicationBuilder(Shop.class)
        .properties("server.port=0", "server.address=127.0.0.1", "anteroom.config=" + config)
        .run();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    try (var client = HttpClient.newHttpClient()) { // a new client: a new user, no cookie
      return client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void aSpringBootApplicationLetsTheFirstUserInQueuesTheNextAndCountsThem() throws Exception {
    try (var app = start(config("rooms: [ { id: shop, totalActiveUsers: 1 } ]"))) {
      int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));

      var first = get(port, "/cart");
      var second = get(port, "/cart");

      assertThat(first.body()).isEqualTo("origin:/cart");
      assertThat(first.headers().allValues("set-cookie"))
          .anySatisfy(c -> assertThat(c).startsWith("__anteroom_shop="));
      assertThat(second.body()).doesNotStartWith("origin:");
      assertThat(second.headers().firstValue("content-type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));

      var registry = new SimpleMeterRegistry();
      app.getBean(MeterBinder.class).bindTo(registry);
      assertThat(
              registry.get("anteroom.requests").tag("outcome", "queued").functionCounter().count())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("anteroom.requests")
                  .tag("outcome", "admitted_new")
                  .functionCounter()
                  .count())
          .isEqualTo(1);
      assertThat(app.getBean("anteroomHealthIndicator", HealthIndicator.class).health().getStatus())
          .isEqualTo(Status.UP);
    }
  }

  @Test
  void aBadFileStopsTheApplicationAtStartWithOneLinePerProblem() throws Exception {
    Path bad = config("rooms: [ { id: shop, totalActiveUsers: 0, queueingMethod: nope } ]");

    assertThatThrownBy(() -> start(bad).close())
        .rootCause()
        .hasMessageStartingWith("anteroom: invalid configuration in " + bad)
        .satisfies(
            e -> assertThat(e.getMessage().lines().filter(l -> l.startsWith("  - "))).hasSize(2));
  }

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AnteroomAutoConfiguration.class));

  @Test
  void withoutAConfigFileTheStarterDoesNothing() {
    runner.run(context -> assertThat(context).doesNotHaveBean(RoomHost.class));
  }

  /** An application that registers the filter itself. */
  @Configuration(proxyBeanMethods = false)
  static class OwnFilter {
    @Bean
    FilterRegistrationBean<AnteroomFilter> myAnteroom(RoomHost rooms) {
      var r = new FilterRegistrationBean<>(new AnteroomFilter(rooms));
      r.addUrlPatterns("/shop/*");
      return r;
    }
  }

  @Test
  void theFilterBacksOffWhenTheApplicationRegistersItsOwn() throws Exception {
    Path file = config("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    runner
        .withPropertyValues("anteroom.config=" + file)
        .withUserConfiguration(OwnFilter.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(RoomHost.class);
              assertThat(context).hasSingleBean(FilterRegistrationBean.class);
              assertThat(context).hasBean("myAnteroom").doesNotHaveBean("anteroomFilter");
            });
  }
}
