package io.anteroom.spring;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The starter's properties ({@code anteroom.*}). The rooms themselves are configured in the YAML
 * file {@code anteroom.config} names, the same file {@code anteroom run --config} reads.
 */
@ConfigurationProperties("anteroom")
public class AnteroomProperties {

  /**
   * The waiting room's YAML configuration file (the same keys, defaults and checks as {@code
   * anteroom run --config}). Without it the starter does nothing.
   */
  private Path config;

  /**
   * The filter's order in the servlet filter chain: after the request wrappers of Spring Boot
   * (character encoding, forwarded headers) and before Spring Security's chain (-100), so a queued
   * user costs no authentication.
   */
  private int filterOrder = -200;

  public Path getConfig() {
    return config;
  }

  public void setConfig(Path config) {
    this.config = config;
  }

  public int getFilterOrder() {
    return filterOrder;
  }

  public void setFilterOrder(int filterOrder) {
    this.filterOrder = filterOrder;
  }
}
