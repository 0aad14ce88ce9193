package io.anteroom.spring;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  /**
   * The coordinator of the remote topology (as {@code anteroom gateway --coordinator}): one URL,
   * e.g. {@code https://10.0.0.2:7070}, or every peer's URL of a replicated coordinator. Every
   * instance of the application is then a gateway of it; without it the room's objects are embedded
   * in the application (one instance).
   */
  private List<URI> coordinator = new ArrayList<>();

  /**
   * This instance's data center (as {@code --datacenter}); required with {@code
   * anteroom.coordinator}. Gateways of one data center share counters.
   */
  private String datacenter;

  /**
   * The deployment's shared secret file, lines {@code keyId:base64} (as {@code
   * --coordinator-secret-file}); default: the environment variable ANTEROOM_COORDINATOR_SECRET.
   * Required unless the coordinator is on this host.
   */
  private Path coordinatorSecretFile;

  /**
   * PEM certificates (its own, or a private CA) an {@code https://} coordinator's certificate must
   * chain to (as {@code --coordinator-trust}); default: the JVM's trust store.
   */
  private List<Path> coordinatorTrust = new ArrayList<>();

  /** The origin-side check of the signed pass, for an application behind an Anteroom gateway. */
  private final PassProperties pass = new PassProperties();

  public PassProperties getPass() {
    return pass;
  }

  /**
   * The check of the {@code Anteroom-Pass} header ({@code anteroom.pass.*}), for an application
   * behind an Anteroom gateway: active when {@code jwks} is set.
   */
  public static class PassProperties {
    /**
     * Refuse (403) every request without a valid pass, except on the exempt paths, so a site
     * reachable around the gateway is no longer open. When false, such requests go through and are
     * only counted in the log, and a valid pass is still handed to the application.
     */
    private boolean strict;

    /**
     * The gateway's JWKS: its URL (http://ADMIN_LISTEN/.well-known/jwks.json; cached, fetched again
     * at most every 30 s when a pass names an unknown key) or a file holding a copy (read at
     * start).
     */
    private String jwks;

    /** The rooms whose passes this application accepts. */
    private List<String> rooms = new ArrayList<>();

    /**
     * Paths not checked: what the room forwards without a pass (its bypass rules, health checks),
     * e.g. /health or /actuator/** (everything below /actuator).
     */
    private List<String> exempt = new ArrayList<>();

    /**
     * The pass filter's order in the servlet filter chain: before Spring Security's chain (-100)
     * and the waiting room's own filter (anteroom.filter-order), so a refused request costs nothing
     * else.
     */
    private int filterOrder = -300;

    public boolean isStrict() {
      return strict;
    }

    public void setStrict(boolean strict) {
      this.strict = strict;
    }

    public String getJwks() {
      return jwks;
    }

    public void setJwks(String jwks) {
      this.jwks = jwks;
    }

    public List<String> getRooms() {
      return rooms;
    }

    public void setRooms(List<String> rooms) {
      this.rooms = rooms;
    }

    public List<String> getExempt() {
      return exempt;
    }

    public void setExempt(List<String> exempt) {
      this.exempt = exempt;
    }

    public int getFilterOrder() {
      return filterOrder;
    }

    public void setFilterOrder(int filterOrder) {
      this.filterOrder = filterOrder;
    }
  }

  public List<URI> getCoordinator() {
    return coordinator;
  }

  public void setCoordinator(List<URI> coordinator) {
    this.coordinator = coordinator;
  }

  public String getDatacenter() {
    return datacenter;
  }

  public void setDatacenter(String datacenter) {
    this.datacenter = datacenter;
  }

  public Path getCoordinatorSecretFile() {
    return coordinatorSecretFile;
  }

  public void setCoordinatorSecretFile(Path coordinatorSecretFile) {
    this.coordinatorSecretFile = coordinatorSecretFile;
  }

  public List<Path> getCoordinatorTrust() {
    return coordinatorTrust;
  }

  public void setCoordinatorTrust(List<Path> coordinatorTrust) {
    this.coordinatorTrust = coordinatorTrust;
  }

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
