package io.anteroom.coordinator.server;

import io.anteroom.cli.AnteroomSubcommand;
import io.anteroom.objects.http.LoopbackRule;
import io.anteroom.objects.ratis.ClusterAdmin;
import io.anteroom.objects.ratis.ClusterConfig;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.PeerTls;
import io.anteroom.objects.ratis.ShardBackup;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code anteroom cluster}: the membership of a running replicated coordinator, shown and changed
 * online (Raft configuration changes, {@link ClusterAdmin}). It speaks to the peers' Raft ports
 * with a certificate they trust (docs/cluster.md, "Operating a cluster").
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
      "Show or change the membership of a running replicated coordinator (docs/cluster.md);"
          + " back up a peer's copies and restore them into a new cluster.",
      "Speaks to the peers' Raft ports; with mutual TLS it needs a certificate they trust."
    },
    subcommands = {
      ClusterCommand.Members.class,
      ClusterCommand.Add.class,
      ClusterCommand.Remove.class,
      ClusterCommand.Replace.class,
      ClusterCommand.Backup.class,
      ClusterCommand.Restore.class
    })
public final class ClusterCommand implements Runnable, AnteroomSubcommand {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /** For {@link java.util.ServiceLoader} and picocli. */
  public ClusterCommand() {}

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(
        spec.commandLine(), "name a subcommand: members, add, remove, replace, backup or restore");
  }

  /** The options every subcommand takes: the cluster file and the TLS to speak to the peers. */
  static final class Connection {
    @Option(
        names = "--cluster",
        required = true,
        paramLabel = "FILE",
        description =
            "the cluster file: whom to ask (any listed peer that is still a member will do) and,"
                + " for add and replace, the new peer's raft and http addresses")
    Path cluster;

    @Option(
        names = "--tls-cert",
        paramLabel = "PEM",
        description = "the certificate to present to the peers (one they trust: --peer-trust)")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "its private key (PKCS#8)")
    Path tlsKey;

    @Option(
        names = "--peer-trust",
        paramLabel = "PEM",
        description =
            "the peers' certificates or their CA (as their own --peer-trust): mutual TLS to the"
                + " Raft ports. Required unless every peer's raft address is a loopback address")
    Path peerTrust;

    ClusterFile file() {
      return ClusterFile.load(cluster);
    }

    ClusterAdmin admin(ClusterFile file) {
      PeerTls tls = null;
      if (peerTrust != null) {
        if (tlsCert == null || tlsKey == null) {
          throw new IllegalArgumentException(
              "--peer-trust needs --tls-cert and --tls-key: a certificate the peers trust");
        }
        tls = PeerTls.load(tlsCert, tlsKey, peerTrust);
      }
      for (ClusterConfig.Peer p : file.config().peers()) {
        LoopbackRule.require(
            tls != null, // the Raft ports' authentication: mutual TLS
            p.host(),
            () ->
                "peer "
                    + p.id()
                    + " speaks Raft on "
                    + p.address()
                    + ": the peers accept only mutual TLS there; give --peer-trust PEM with"
                    + " --tls-cert/--tls-key (a certificate the peers trust)");
      }
      return ClusterAdmin.connect(file.config(), tls);
    }
  }

  private static void print(
      picocli.CommandLine.Model.CommandSpec spec,
      String head,
      List<ClusterAdmin.ShardMembers> shards) {
    PrintWriter out = spec.commandLine().getOut();
    if (head != null) out.println("anteroom cluster: " + head);
    for (ClusterAdmin.ShardMembers s : shards) out.println(s);
    out.flush();
  }

  @Command(
      name = "members",
      mixinStandardHelpOptions = true,
      description = "Each shard's leader and members, as the leader reports them.")
  static final class Members implements Callable<Integer> {
    @Mixin Connection connection;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      ClusterFile file = connection.file();
      try (ClusterAdmin admin = connection.admin(file)) {
        print(spec, null, admin.members());
      }
      return 0;
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Add peer ID (listed in the --cluster file with its raft and http addresses) to every"
            + " shard.",
        "Start it first (anteroom coordinator --cluster FILE --id ID on an empty --data-dir): the"
            + " leader sends it a snapshot and the log, then the change takes effect."
      })
  static final class Add implements Callable<Integer> {
    @Mixin Connection connection;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "the new peer's id in the file")
    String id;

    @Override
    public Integer call() {
      ClusterFile file = connection.file();
      ClusterConfig.Peer peer = file.peer(id);
      try (ClusterAdmin admin = connection.admin(file)) {
        print(spec, id + " added", admin.add(peer));
      }
      return 0;
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "Remove member ID from every shard (it may be down); stop it afterwards.",
        "3 members survive the loss of 1, 5 of 2: remove a peer only while the rest keep a"
            + " majority."
      })
  static final class Remove implements Callable<Integer> {
    @Mixin Connection connection;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "the member to remove")
    String id;

    @Override
    public Integer call() {
      ClusterFile file = connection.file();
      try (ClusterAdmin admin = connection.admin(file)) {
        print(spec, id + " removed", admin.remove(id));
      }
      return 0;
    }
  }

  @Command(
      name = "replace",
      mixinStandardHelpOptions = true,
      description = {
        "Replace member OLD (a dead peer, or one to move) by NEW (listed in the --cluster file),"
            + " in one change per shard.",
        "Start NEW first on an empty --data-dir: it catches up by snapshot and log before the"
            + " change takes effect."
      })
  static final class Replace implements Callable<Integer> {
    @Mixin Connection connection;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OLD", description = "the member to replace")
    String old;

    @Parameters(index = "1", paramLabel = "NEW", description = "the new peer's id in the file")
    String id;

    @Override
    public Integer call() {
      ClusterFile file = connection.file();
      ClusterConfig.Peer peer = file.peer(id);
      try (ClusterAdmin admin = connection.admin(file)) {
        print(spec, old + " replaced by " + id, admin.replace(old, peer));
      }
      return 0;
    }
  }

  @Command(
      name = "backup",
      mixinStandardHelpOptions = true,
      description = {
        "Copy a peer's copy of every shard (its --data-dir, running or not) into DIR, as"
            + " shard-<n>.db: consistent while the peer writes (SQLite VACUUM INTO).",
        "Run it on the peer's host, on a peer that is up to date (the leader, or a follower"
            + " whose /health shows appliedIndex close to commitIndex)."
      })
  static final class Backup implements Callable<Integer> {
    @Option(
        names = "--data-dir",
        required = true,
        paramLabel = "DIR",
        description = "the peer's data directory")
    Path dataDir;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "where the backup goes (created; an existing backup is never overwritten)")
    Path out;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter w = spec.commandLine().getOut();
      for (ShardBackup.Copy c : ShardBackup.backup(dataDir, out)) {
        w.println(
            "anteroom cluster: shard "
                + c.shard()
                + " backed up to "
                + c.file()
                + " (log index "
                + c.appliedIndex()
                + ", "
                + c.bytes()
                + " bytes)");
      }
      w.flush();
      return 0;
    }
  }

  @Command(
      name = "restore",
      mixinStandardHelpOptions = true,
      description = {
        "Put a backup (anteroom cluster backup) into the empty --data-dir of a peer of a new"
            + " cluster, before its first start. Restore the same backup for every peer, with the"
            + " same shards: as the cluster it came from.",
        "Refuses a directory that holds a Raft log or a copy already."
      })
  static final class Restore implements Callable<Integer> {
    @Option(
        names = "--from",
        required = true,
        paramLabel = "DIR",
        description = "the backup (shard-<n>.db files)")
    Path from;

    @Option(
        names = "--data-dir",
        required = true,
        paramLabel = "DIR",
        description = "the new peer's data directory (empty, or without raft/ and shards/)")
    Path dataDir;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter w = spec.commandLine().getOut();
      for (ShardBackup.Copy c : ShardBackup.restore(from, dataDir)) {
        w.println(
            "anteroom cluster: shard "
                + c.shard()
                + " restored into "
                + c.file()
                + " (backed up at log index "
                + c.appliedIndex()
                + "; the new cluster's log starts afresh)");
      }
      w.flush();
      return 0;
    }
  }
}
