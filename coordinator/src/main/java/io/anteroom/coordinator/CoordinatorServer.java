package io.anteroom.coordinator;

import io.anteroom.objects.Runtime;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.SharedSecret;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The room objects of a runtime served over HTTP to remote gateways: the server of {@code anteroom
 * coordinator} ({@link #serve}), and the settings it shares with each peer of a replicated
 * coordinator ({@link Options}: address, shared secrets, TLS, webhooks). Only the gateways' RPC
 * surface is exported ({@link #GATEWAY_NAMESPACES}: the data-center, counter, audit and room
 * documents objects); the global objects are called by the data-center objects inside the process.
 */
public final class CoordinatorServer {
  private CoordinatorServer() {}

  /** The namespaces a gateway calls. */
  public static final List<String> GATEWAY_NAMESPACES =
      List.of(
          RoomObjects.DATA_CENTER_NAMESPACE,
          RoomObjects.COUNTER_NAMESPACE,
          RoomObjects.AUDIT_NAMESPACE,
          RoomObjects.ROOMS_NAMESPACE);

  /**
   * How a coordinator serves its room objects.
   *
   * @param host the address the object server binds
   * @param port its port (0: any free port)
   * @param secrets the deployment's shared secrets: every call must be signed with one of them
   *     (several during a rotation); none: unauthenticated, which the object server allows only on
   *     a loopback {@code host}
   * @param tlsCert PEM certificate (chain) to serve HTTPS with, or null for plain HTTP
   * @param tlsKey its PEM private key: both or neither
   * @param webhooks where the rooms' state changes are posted
   */
  public record Options(
      String host,
      int port,
      List<SharedSecret> secrets,
      Path tlsCert,
      Path tlsKey,
      WebhookTargets webhooks) {
    public Options {
      Objects.requireNonNull(host, "host");
      secrets = List.copyOf(secrets);
      Objects.requireNonNull(webhooks, "webhooks");
      if ((tlsCert == null) != (tlsKey == null)) {
        throw new IllegalArgumentException(
            "coordinator TLS needs both a PEM certificate and its PEM private key");
      }
    }

    /** A builder for {@code host:port}: unauthenticated, plain HTTP, no webhooks until set. */
    public static Builder builder(String host, int port) {
      return new Builder(host, port);
    }

    /** Whether the server speaks HTTPS. */
    public boolean tls() {
      return tlsCert != null;
    }

    /**
     * {@code server} set to these options: bound to {@link #host}:{@link #port}, with their secrets
     * and TLS, exporting {@code namespaces}.
     */
    public HttpObjectServer.Builder applyTo(
        HttpObjectServer.Builder server, List<String> namespaces) {
      server
          .export(namespaces.toArray(String[]::new))
          .secret(secrets.toArray(SharedSecret[]::new))
          .host(host)
          .port(port);
      if (tlsCert != null) {
        server.tls(tlsCert, tlsKey);
      }
      return server;
    }
  }

  /** Builds {@link Options}. */
  public static final class Builder {
    private final String host;
    private final int port;
    private List<SharedSecret> secrets = List.of();
    private Path tlsCert;
    private Path tlsKey;
    private WebhookTargets webhooks = WebhookTargets.NONE;

    private Builder(String host, int port) {
      this.host = host;
      this.port = port;
    }

    /** The deployment's shared secrets (none: unauthenticated, loopback only). */
    public Builder secrets(List<SharedSecret> secrets) {
      this.secrets = secrets;
      return this;
    }

    /** HTTPS with this PEM certificate (chain) and private key (both null: plain HTTP). */
    public Builder tls(Path certificate, Path privateKey) {
      this.tlsCert = certificate;
      this.tlsKey = privateKey;
      return this;
    }

    /** Where the rooms' state changes are posted. */
    public Builder webhooks(WebhookTargets webhooks) {
      this.webhooks = webhooks;
      return this;
    }

    public Options build() {
      return new Options(host, port, secrets, tlsCert, tlsKey, webhooks);
    }
  }

  /**
   * Serves the room objects of {@code runtime} on a loopback {@code host} without authentication
   * (tests, one host).
   */
  public static HttpObjectServer serve(Runtime runtime, String host, int port) {
    return serve(runtime, Options.builder(host, port).build());
  }

  /**
   * Registers the room objects in {@code runtime} (reports throttled above {@link
   * RoomObjects#REPORT_MAX_QPS}, state changes posted to the options' webhooks) and serves them:
   * the {@code anteroom coordinator}.
   *
   * @throws IllegalArgumentException refused before binding: no secret on a non-loopback address
   * @throws IllegalStateException the port cannot be bound, in one line
   */
  public static HttpObjectServer serve(Runtime runtime, Options options) {
    RoomObjects.register(runtime, RoomObjects.REPORT_MAX_QPS, options.webhooks());
    var server = options.applyTo(HttpObjectServer.builder(runtime.transport()), GATEWAY_NAMESPACES);
    try {
      return server.start();
    } catch (IllegalArgumentException e) {
      throw e; // refused before binding (no secret on a non-loopback address): say so as is
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "coordinator: cannot listen on "
              + options.host()
              + ":"
              + options.port()
              + " ("
              + e.getMessage()
              + "); is another process using the port?",
          e);
    }
  }
}
