package io.anteroom.coordinator.server;

import io.anteroom.cli.AnteroomSubcommand;
import io.anteroom.cli.UntilShutdown;
import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.WebhookTargets;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.DataDirectory;
import io.anteroom.door.config.GatewayConfig.HostPort;
import io.anteroom.door.config.HostPorts;
import io.anteroom.host.CoordinatorLink;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.LoopbackRule;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ClusterConfig;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.objects.ratis.ClusterStatusServer;
import io.anteroom.objects.ratis.PeerOptions;
import io.anteroom.objects.ratis.PeerTls;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code anteroom coordinator}: the room objects of every room, served over HTTP to remote gateways
 * ({@link CoordinatorServer}), or, with {@code --cluster FILE --id ID}, one peer of the replicated
 * coordinator ({@link CoordinatorPeer}). It runs until the process is asked to stop ({@link
 * UntilShutdown}).
 */
@Command(
    name = "coordinator",
    mixinStandardHelpOptions = true,
    description = {
      "Host the coordinating objects of all rooms over HTTP for remote gateways.",
      "With --cluster FILE --id ID: one peer of a replicated coordinator (Raft); start every"
          + " peer of the file, and give gateways all their URLs (docs/cluster.md)."
    })
public final class CoordinatorCommand implements Callable<Integer>, AnteroomSubcommand {
  static final String DEFAULT_LISTEN = "127.0.0.1:7070";

  /** The environment variable holding the shared secret when no file is given. */
  static final String SECRET_ENV = CoordinatorLink.SECRET_ENV;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      description =
          "where the object server binds (default: "
              + DEFAULT_LISTEN
              + "; with --cluster: this peer's http address in the file)")
  String listen;

  @Option(
      names = "--cluster",
      paramLabel = "FILE",
      description =
          "run as one peer of the replicated coordinator described by this YAML file (name,"
              + " shards, peers: id, raft HOST:PORT, http URL); the same file on every peer")
  Path cluster;

  @Option(names = "--id", paramLabel = "ID", description = "this peer's id in the --cluster file")
  String id;

  @Option(
      names = "--status-listen",
      paramLabel = "HOST:PORT",
      description =
          "with --cluster: serve GET /health (JSON, 503 while a shard has no known leader) and"
              + " GET /metrics (Prometheus) here, unauthenticated and read-only; default: off")
  String statusListen;

  @Option(
      names = "--data-dir",
      defaultValue = "./data",
      paramLabel = "DIR",
      description = "where the objects' SQLite file lives (default: ${DEFAULT-VALUE})")
  Path dataDir;

  @Option(
      names = "--secret-file",
      paramLabel = "FILE",
      description =
          "the deployment's shared secret (lines of keyId:base64, at least 32 bytes;"
              + " several during a rotation); default: $"
              + SECRET_ENV
              + ". Required unless"
              + " --listen is a loopback address")
  Path secretFile;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "serve HTTPS with this certificate (chain); needs --tls-key")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "PEM", description = "the certificate's private key")
  Path tlsKey;

  @Option(
      names = "--peer-trust",
      paramLabel = "PEM",
      description =
          "with --cluster: mutual TLS between the peers' Raft ports; a peer presents its"
              + " --tls-cert (which must name its raft host too) and accepts only peers whose"
              + " certificate chains to one in this file. Required unless this peer's raft"
              + " address is a loopback address")
  Path peerTrust;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "the deployment's anteroom.yaml: its admin.webhooks (URLs and secretFile) are posted"
              + " the rooms' state changes from here; nothing else of it is used")
  Path config;

  @Option(
      names = "--join",
      description =
          "with --cluster: this peer joins a running cluster (on an empty --data-dir it waits"
              + " for `anteroom cluster add` or `replace` instead of campaigning with the file's"
              + " peers); no effect once it has data")
  boolean join;

  /** For {@link java.util.ServiceLoader} and picocli. */
  public CoordinatorCommand() {}

  /** The webhooks of {@code --config} (checked like {@code anteroom check}), or none. */
  private WebhookTargets webhooks() {
    return config == null
        ? WebhookTargets.NONE
        : ObjectCoordination.webhooks(ConfigLoader.load(config));
  }

  /** The server's settings at {@code at}: the secrets, TLS and webhooks of the options. */
  private CoordinatorServer.Options server(HostPort at, List<SharedSecret> secrets) {
    return CoordinatorServer.Options.builder(at.host(), at.port())
        .secrets(secrets)
        .tls(tlsCert, tlsKey)
        .webhooks(webhooks())
        .build();
  }

  @Override
  public Integer call() {
    if (cluster != null) {
      return clustered();
    }
    if (id != null || statusListen != null || peerTrust != null || join) {
      throw new IllegalArgumentException(
          (id != null
                  ? "--id"
                  : statusListen != null
                      ? "--status-listen"
                      : peerTrust != null ? "--peer-trust" : "--join")
              + " needs --cluster FILE (a single coordinator has no peers)");
    }
    HostPort at = HostPorts.parse("--listen", listen != null ? listen : DEFAULT_LISTEN);
    List<SharedSecret> secrets = CoordinatorLink.secrets(secretFile, System.getenv(SECRET_ENV));
    LoopbackRule.require(
        !secrets.isEmpty(),
        at.host(),
        () ->
            "--listen "
                + listen
                + " is reachable from other hosts:"
                + " a coordinator there needs the deployment's shared secret (--secret-file FILE or $"
                + SECRET_ENV
                + "; create one with: echo \"k1:$(openssl rand -base64 32)\" > FILE),"
                + " or listen on 127.0.0.1");
    DataDirectory.claim(dataDir);
    var runtime = io.anteroom.objects.Runtime.builder().dataDir(dataDir).build();
    HttpObjectServer server;
    try {
      server = CoordinatorServer.serve(runtime, server(at, secrets));
    } catch (RuntimeException e) {
      runtime.close();
      throw e;
    }
    System.out.println(
        "anteroom coordinator on "
            + server.uri()
            + " (objects in "
            + dataDir.toAbsolutePath()
            + (secrets.isEmpty() ? "; unauthenticated, this host only" : "; calls authenticated")
            + ")");
    return new UntilShutdown().run(List.of(server, runtime));
  }

  /** {@code --cluster FILE --id ID}: one peer of the replicated coordinator. */
  private int clustered() {
    if (id == null) {
      throw new IllegalArgumentException(
          "--cluster needs --id ID (this peer's id in " + cluster + ")");
    }
    ClusterFile file = ClusterFile.load(cluster);
    ClusterConfig.Peer self = file.peer(id); // names the file's ids if it is not there
    URI advertised = file.http().get(id);
    HostPort at =
        listen != null
            ? HostPorts.parse("--listen", listen)
            : new HostPort(advertised.getHost(), advertised.getPort());
    HostPort status =
        statusListen != null ? HostPorts.parse("--status-listen", statusListen) : null;
    List<SharedSecret> secrets = CoordinatorLink.secrets(secretFile, System.getenv(SECRET_ENV));
    LoopbackRule.require(
        !secrets.isEmpty(),
        at.host(),
        () ->
            "peer "
                + id
                + " serves objects on "
                + at.host()
                + ":"
                + at.port()
                + ", reachable from other hosts:"
                + " it needs the deployment's shared secret (--secret-file FILE or $"
                + SECRET_ENV
                + "; create one with: echo \"k1:$(openssl rand -base64 32)\" > FILE)");
    PeerOptions.Builder options = PeerOptions.builder().join(join);
    if (peerTrust != null) {
      if (tlsCert == null || tlsKey == null) {
        throw new IllegalArgumentException(
            "--peer-trust needs --tls-cert and --tls-key: peer "
                + id
                + " presents that certificate to the other peers");
      }
      options.tls(PeerTls.load(tlsCert, tlsKey, peerTrust));
    }
    LoopbackRule.require(
        peerTrust != null, // the Raft port's authentication: mutual TLS
        self.host(),
        () ->
            "peer "
                + id
                + " speaks Raft on "
                + self.address()
                + ", reachable from other hosts: only authenticated peers may speak to it; give"
                + " --peer-trust PEM (the certificates, or the CA, of the cluster's peers) with"
                + " --tls-cert/--tls-key for mutual TLS (docs/cluster.md)");
    DataDirectory.claim(dataDir);
    var out = new PrintWriter(System.out, true);
    ClusterNode node =
        CoordinatorPeer.start(
            CoordinatorPeer.Options.builder(file, id, dataDir, server(at, secrets))
                .peerTrust(peerTrust != null ? List.of(peerTrust) : List.of())
                .peer(options.build())
                .events(line -> out.println("anteroom coordinator: " + line))
                .build());
    ClusterStatusServer statusServer = null;
    try {
      if (status != null) {
        statusServer = ClusterStatusServer.start(node, status.host(), status.port());
      }
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    out.println(
        "anteroom coordinator "
            + id
            + " of cluster "
            + file.config().name()
            + " on "
            + node.uri()
            + " (raft "
            + self.address()
            + (peerTrust != null ? " mutual TLS" : " plain text, this host only")
            + ", "
            + file.config().peers().size()
            + " peers, "
            + file.config().shards()
            + " shard(s); data in "
            + dataDir.toAbsolutePath()
            + (secrets.isEmpty() ? "; unauthenticated, this host only" : "; calls authenticated")
            + (statusServer != null
                ? "; status http://" + status.host() + ":" + statusServer.port() + "/health"
                : "")
            + ")");
    var started = new ArrayList<AutoCloseable>();
    started.add(statusServer); // null without --status-listen: skipped
    started.add(node);
    return new UntilShutdown().run(started);
  }
}
