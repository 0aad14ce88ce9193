package io.anteroom.bench;

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
 * <p>Usage: {@code ClusterPeerMain <cluster.yaml> <id> <data-dir>}
 */
public final class ClusterPeerMain {
  private ClusterPeerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ClusterPeerMain <cluster.yaml> <id> <data-dir>");
      System.exit(2);
    }
    ClusterNode node =
        ClusterNode.builder(ClusterFile.load(Path.of(args[0])), args[1], Path.of(args[2]))
            .objects(r -> r.namespace("counter", Counter.class, NaiveCounter::new))
            .server(s -> s.namespaces(ns -> ns.equals("counter")))
            .events(ChildProcess::printLine)
            .start();
    ChildProcess.awaitParentGone();
    node.close();
  }
}
