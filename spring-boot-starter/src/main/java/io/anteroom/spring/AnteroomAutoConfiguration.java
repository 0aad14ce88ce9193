package io.anteroom.spring;

import io.anteroom.door.config.ConfigLoader;
import io.anteroom.host.CoordinatorLink;
import io.anteroom.host.RoomHost;
import io.anteroom.servlet.AnteroomFilter;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingFilterBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the waiting room in a servlet web application, when {@code anteroom.config}
 * names its YAML file: the rooms (their objects embedded in the application, SQLite in the file's
 * {@code dataDir}; or, with {@code anteroom.coordinator}, every instance a gateway of a coordinator
 * or a replicated cluster, as {@code anteroom gateway}), the {@link AnteroomFilter} on {@code /*}
 * at {@code anteroom.filter-order}, Micrometer meters ({@code anteroom.requests}, {@code
 * anteroom.users}) when Micrometer is present, and the health indicator {@code anteroom} when
 * Spring Boot's health module is. Each bean backs off when the application defines its own (a
 * {@link RoomHost}, an {@link AnteroomFilter} or its registration). A file with problems stops the
 * application at start with one line per problem.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({jakarta.servlet.Filter.class, AnteroomFilter.class})
@ConditionalOnProperty(prefix = "anteroom", name = "config")
@EnableConfigurationProperties(AnteroomProperties.class)
public class AnteroomAutoConfiguration {

  /**
   * The rooms of {@code anteroom.config}: embedded, or a gateway of {@code anteroom.coordinator};
   * closed with the application.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RoomHost anteroomRoomHost(AnteroomProperties properties) {
    try {
      var config = ConfigLoader.load(properties.getConfig());
      if (properties.getCoordinator().isEmpty()) {
        return RoomHost.start(config, RoomHost.embedded(config), "local", Clock.systemUTC());
      }
      var link =
          new CoordinatorLink(
              properties.getCoordinator(),
              properties.getDatacenter(),
              properties.getCoordinatorSecretFile(),
              properties.getCoordinatorTrust(),
              CoordinatorLink.Names.SPRING);
      return RoomHost.remote(
          config, link, System.getenv(CoordinatorLink.SECRET_ENV), Clock.systemUTC());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("anteroom: " + e.getMessage());
    }
  }

  /** The filter over the rooms, on every path (the rooms' routes and bypass rules decide). */
  @Bean
  @ConditionalOnMissingFilterBean(AnteroomFilter.class)
  public FilterRegistrationBean<AnteroomFilter> anteroomFilter(
      RoomHost rooms, AnteroomProperties properties) {
    var registration = new FilterRegistrationBean<>(new AnteroomFilter(rooms));
    registration.setName("anteroom");
    registration.addUrlPatterns("/*");
    registration.setOrder(properties.getFilterOrder());
    return registration;
  }

  /** The rooms' meters, when Micrometer is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean(name = "anteroomMeterBinder")
    MeterBinder anteroomMeterBinder(RoomHost rooms) {
      return new AnteroomMeters(rooms);
    }
  }

  /** The rooms' health, when Spring Boot's health module is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "anteroomHealthIndicator")
    HealthIndicator anteroomHealthIndicator(RoomHost rooms) {
      return new AnteroomHealth(rooms);
    }
  }
}
