package io.anteroom.bench;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.coordinator.server.CoordinatorPeer;
import io.anteroom.objects.ratis.ClusterFile;
import io.anteroom.objects.ratis.ClusterNode;
import io.anteroom.testkit.ChildProcess;
import java.nio.file.Path;

/**
 * A child process of {@link ObjectsBenchmark}'s {@code cluster-processes} and {@code
 * cluster-pinned} scenarios: one peer of a replicated coordinator, assembled by {@link ClusterNode}
 * as {@code anteroom coordinator --cluster} assembles it, serving the naive counter in namespace
 * {@code counter} on loopback. Prints the node's event lines ({@link ClusterNode#LEADS}, ...) on
 * standard output; exits when its standard input closes, so it never outlives the benchmark.
 *
 * <p>With a fourth argument {@code rooms} (the {@code rooms-*-capped} scenarios) the peer serves
 * the rooms' coordinating objects instead, as {@code anteroom coordinator --cluster} does ({@link
 * CoordinatorPeer#start}), and prints its status endpoint's port ({@link #STATUS}: {@code /metrics}
 * with every shard's commit index).
 *
 * <p>Usage: {@code ClusterPeerMain <cluster.yaml> <id> <data-dir> [rooms]}
 */
public final class ClusterPeerMain {
  /** The line a {@code rooms} peer prints with its status endpoint's port. */
  static final String STATUS = "status port ";

  private ClusterPeerMain() {}

  public static void main(String[] args) throws Exception {
    boolean rooms = args.length == 4 && args[3].equals("rooms");
    if (args.length != 3 && !rooms) {
      System.err.println("usage: ClusterPeerMain <cluster.yaml> <id> <data-dir> [rooms]");
      System.exit(2);
    }
    ClusterFile file = ClusterFile.load(Path.of(args[0]));
    ClusterNode node;
    if (rooms) {
      java.net.URI http = file.http().get(args[1]);
      node =
          CoordinatorPeer.start(
              CoordinatorPeer.Options.builder(
                      file,
                      args[1],
                      Path.of(args[2]),
                      CoordinatorServer.Options.builder(http.getHost(), http.getPort()).build())
                  .peer(io.anteroom.objects.ratis.PeerOptions.defaults())
                  .events(ChildProcess::printLine)
                  .build());
    } else {
      node =
          ClusterNode.builder(file, args[1], Path.of(args[2]))
              .objects(r -> r.namespace("counter", Counter.class, NaiveCounter::new))
              .server(s -> s.namespaces(ns -> ns.equals("counter")))
              .events(ChildProcess::printLine)
              .start();
    }
    // rooms: the status endpoint on a free port, for the shards' commit indexes (draws per entry)
    io.anteroom.objects.ratis.ClusterStatusServer status =
        rooms ? io.anteroom.objects.ratis.ClusterStatusServer.start(node, "127.0.0.1", 0) : null;
    if (status != null) ChildProcess.printLine(STATUS + status.port());
    ChildProcess.awaitParentGone();
    if (status != null) status.close();
    node.close();
  }
}
