package io.anteroom.host;

import io.anteroom.door.admission.Coordination;
import io.anteroom.door.config.DataDirectory;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.ticket.TicketKeys;
import io.anteroom.objects.RefusedCallException;
import io.anteroom.objects.http.LoopbackRule;
import io.anteroom.objects.http.SharedSecret;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The remote topology's settings, the same for every server that is a gateway of a coordinator or
 * of a replicated cluster ({@code anteroom gateway}, the Servlet filter, the Spring Boot starter):
 * the coordinators' URLs, this gateway's data center, the deployment's shared secret and the PEM
 * certificates to trust for {@code https://} coordinators. One place for their checks and messages;
 * each server names its options its own way ({@link Names}: {@code --coordinator} on the command
 * line, {@code anteroom.coordinator} in Spring, the filter's init parameter {@code coordinator}).
 *
 * <pre>{@code
 * var link = new CoordinatorLink(List.of(URI.create("https://10.0.0.2:7070")), "dublin",
 *     Path.of("/etc/anteroom/coordinator.secret"), List.of(Path.of("/etc/anteroom/ca.pem")),
 *     CoordinatorLink.Names.CLI);
 * Coordination coordination = link.connect(config, System.getenv(CoordinatorLink.SECRET_ENV));
 * }</pre>
 *
 * @param coordinators one coordinator, or every peer of a replicated coordinator
 * @param dataCenter this gateway's data center (gateways of one data center share counters)
 * @param secretFile the deployment's shared secret (lines {@code keyId:base64}); null: the
 *     environment's {@value #SECRET_ENV}, or none (only for a coordinator on this host)
 * @param trust PEM certificates an {@code https://} coordinator's certificate must chain to; empty:
 *     the JVM's trust store
 * @param names how the server calling this spells its options, for the messages
 */
public record CoordinatorLink(
    List<URI> coordinators, String dataCenter, Path secretFile, List<Path> trust, Names names) {

  /** The environment variable holding the shared secret when no file is given. */
  public static final String SECRET_ENV = "ANTEROOM_COORDINATOR_SECRET";

  /** How long a call to the coordinator may take (as {@code anteroom gateway}'s). */
  public static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

  /** Calls of {@link #probe} before it gives up on an unreachable coordinator. */
  static final int PROBE_ATTEMPTS = 3;

  /** How each server spells the options, so a message names what its user wrote. */
  public record Names(String coordinator, String dataCenter, String secretFile, String trust) {
    /** {@code anteroom gateway}'s options. */
    public static final Names CLI =
        new Names(
            "--coordinator", "--datacenter", "--coordinator-secret-file", "--coordinator-trust");

    /** The Spring Boot starter's properties. */
    public static final Names SPRING =
        new Names(
            "anteroom.coordinator",
            "anteroom.datacenter",
            "anteroom.coordinator-secret-file",
            "anteroom.coordinator-trust");

    /** The Servlet filter's init parameters. */
    public static final Names FILTER =
        new Names(
            "init parameter coordinator",
            "init parameter datacenter",
            "init parameter coordinator-secret-file",
            "init parameter coordinator-trust");
  }

  public CoordinatorLink {
    coordinators = List.copyOf(Objects.requireNonNull(coordinators, "coordinators"));
    trust = trust == null ? List.of() : List.copyOf(trust);
    Objects.requireNonNull(names, "names");
  }

  /**
   * Checks the settings and reads the secret: every coordinator an {@code http(s)://HOST:PORT} URL,
   * a data center, and the deployment's secret unless every coordinator is on this host.
   *
   * @param env the value of {@value #SECRET_ENV} (null when unset)
   * @return the secrets (the first signs); empty only for coordinators on this host
   * @throws IllegalArgumentException one line saying what is wrong, never echoing a key
   */
  public List<SharedSecret> validate(String env) {
    if (coordinators.isEmpty()) {
      throw new IllegalArgumentException(
          names.coordinator() + ": give the coordinator's URL (every peer's for a cluster)");
    }
    if (dataCenter == null || dataCenter.isBlank()) {
      throw new IllegalArgumentException(
          names.coordinator()
              + " needs "
              + names.dataCenter()
              + " NAME (this gateway's data center; gateways of one data center share counters)");
    }
    List<SharedSecret> secrets = secrets(secretFile, env);
    for (URI coordinator : coordinators) {
      if (coordinator.getScheme() == null
          || !(coordinator.getScheme().equals("http") || coordinator.getScheme().equals("https"))
          || coordinator.getHost() == null) {
        throw new IllegalArgumentException(
            names.coordinator() + " " + coordinator + " is not an http(s)://HOST:PORT URL");
      }
      LoopbackRule.require(
          !secrets.isEmpty(),
          coordinator.getHost(),
          () ->
              names.coordinator()
                  + " "
                  + coordinator
                  + " is not on this host:"
                  + " give the deployment's shared secret ("
                  + names.secretFile()
                  + " FILE or $"
                  + SECRET_ENV
                  + ")");
    }
    return secrets;
  }

  /**
   * The coordination of a gateway of these coordinators: the settings checked ({@link #validate}),
   * {@code config}'s data directory claimed, the deployment's ticket keys required ({@link
   * TicketKeys#requireShared}: a gateway never makes its own), and the stubs built. Nothing is
   * called yet; {@link #probe} does.
   *
   * @throws IllegalArgumentException one line saying what is wrong
   */
  public Coordination connect(GatewayConfig config, String env) {
    List<SharedSecret> secrets = validate(env);
    DataDirectory.claim(config.dataDir());
    TicketKeys.requireShared(config.ticketKeys(), config.dataDir());
    return ObjectCoordination.remote(
        coordinators, CALL_TIMEOUT, secrets.isEmpty() ? null : secrets.getFirst(), trust);
  }

  /**
   * One call to the coordinator, at start: a coordinator that refuses this gateway's signature (a
   * wrong or missing deployment secret) stops the start with one line, since no room could ever
   * admit anyone; a coordinator that cannot be reached now does not (the rooms run degraded, by
   * their {@code failMode}, until it answers), and is said in the returned line.
   *
   * @return null when the coordinator answered, else one line for the log
   * @throws IllegalArgumentException when the coordinator refuses the gateway's authentication
   */
  public String probe(Coordination coordination, GatewayConfig config) {
    if (config.rooms().isEmpty()) {
      return null;
    }
    String room = config.rooms().getFirst().id();
    String failure = null;
    // a few attempts: the first call of a cold process (connections, TLS) may take its timeout
    for (int attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
      try {
        coordination
            .overrides(room, dataCenter)
            .toCompletableFuture()
            .get(CALL_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "the coordinator was not asked (interrupted)";
      } catch (TimeoutException e) {
        failure = "no answer from " + coordinators + " within " + CALL_TIMEOUT;
      } catch (ExecutionException | CompletionException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        failure = String.valueOf(cause.getMessage());
        // the coordinator refuses a call whose signature no shared secret of its checks
        if (RefusedCallException.statusOf(cause) == 401) {
          throw new IllegalArgumentException(
              "the coordinator refused this gateway's signature: is "
                  + (secretFile != null ? names.secretFile() + " " + secretFile : "$" + SECRET_ENV)
                  + " the deployment's shared secret? ("
                  + failure
                  + ")");
        }
      }
    }
    return "the coordinator cannot be reached now; rooms run degraded until it answers: " + failure;
  }

  /**
   * The deployment's shared secrets: the file's non-blank lines that are not comments ({@code #}),
   * else the environment value, else none. Messages never echo a key.
   *
   * @throws IllegalArgumentException naming the file (or variable) and what is wrong
   */
  public static List<SharedSecret> secrets(Path file, String env) {
    var secrets = new ArrayList<SharedSecret>();
    if (file != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(file);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read the secret file " + file + ": " + e, e);
      }
      for (String line : lines) {
        if (!line.isBlank() && !line.strip().startsWith("#")) {
          try {
            secrets.add(SharedSecret.parse(line));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
          }
        }
      }
      if (secrets.isEmpty()) {
        throw new IllegalArgumentException(
            file + ": no secret in it (expected a line" + " keyId:base64 of at least 32 bytes)");
      }
    } else if (env != null && !env.isBlank()) {
      try {
        secrets.add(SharedSecret.parse(env));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("$" + SECRET_ENV + ": " + e.getMessage(), e);
      }
    }
    return secrets;
  }
}
