package io.anteroom.spring;

import io.anteroom.servlet.AnteroomPassFilter;
import java.io.UncheckedIOException;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingFilterBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConfigurationCondition;

/**
 * Auto-configuration of the origin-side pass check ({@link AnteroomPassFilter}) for an application
 * behind an Anteroom gateway, when {@code anteroom.pass.jwks} is set or {@code
 * anteroom.pass.strict=true}: the filter on {@code /*} at {@code anteroom.pass.filter-order},
 * verifying {@code Anteroom-Pass} against the gateway's keys for the rooms {@code
 * anteroom.pass.rooms}, the verified pass as the request attribute {@value
 * AnteroomPassFilter#PASS_ATTRIBUTE}. Backs off when the application registers its own. Missing or
 * bad settings stop the application at start with one line.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({jakarta.servlet.Filter.class, AnteroomPassFilter.class})
@Conditional(AnteroomPassAutoConfiguration.PassConfigured.class)
@EnableConfigurationProperties(AnteroomProperties.class)
public class AnteroomPassAutoConfiguration {

  /** {@code anteroom.pass.jwks} is set, or strict mode is asked for (and then needs it). */
  static final class PassConfigured extends AnyNestedCondition {
    PassConfigured() {
      super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnProperty(prefix = "anteroom.pass", name = "jwks")
    static final class Jwks {}

    @ConditionalOnProperty(prefix = "anteroom.pass", name = "strict", havingValue = "true")
    static final class Strict {}
  }

  /** The pass filter, on every path (its exempt paths excepted). */
  @Bean
  @ConditionalOnMissingFilterBean(AnteroomPassFilter.class)
  public FilterRegistrationBean<AnteroomPassFilter> anteroomPassFilter(
      AnteroomProperties properties) {
    var pass = properties.getPass();
    if (pass.isStrict() && properties.getConfig() != null) {
      // the room's own filter runs after this one and adds the pass: every request would be refused
      throw new IllegalStateException(
          "anteroom: anteroom.pass.strict is for an application behind an Anteroom gateway; with"
              + " anteroom.config the waiting room runs in this application and no request arrives"
              + " with a pass: set one or the other");
    }
    AnteroomPassFilter filter;
    try {
      filter =
          new AnteroomPassFilter(
              AnteroomPassFilter.verifier(pass.getJwks(), pass.getRooms(), "anteroom.pass."),
              pass.getExempt(),
              pass.isStrict());
    } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
      throw new IllegalStateException("anteroom: " + e.getMessage());
    }
    var registration = new FilterRegistrationBean<>(filter);
    registration.setName("anteroomPass");
    registration.addUrlPatterns("/*");
    registration.setOrder(pass.getFilterOrder());
    return registration;
  }
}
