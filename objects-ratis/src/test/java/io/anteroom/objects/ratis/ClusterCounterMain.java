package io.anteroom.objects.ratis;

import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.Counter;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.CounterObject;
import io.anteroom.testkit.ChildProcess;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A child process of {@link ClusterFailoverTest}: one peer of the cluster in a cluster file,
 * assembled by {@link ClusterNode} (the assembly {@code anteroom coordinator --cluster} uses),
 * serving the naive counter in namespace {@value #NAMESPACE} to callers holding the secret in
 * {@value #SECRET_VARIABLE}, with its status endpoint on a free loopback port.
 *
 * <p>Prints {@value #READY}{@code <status port>} once it serves, then the node's event lines
 * ({@link ClusterNode#LEADS}, {@link ClusterNode#NO_LONGER_LEADS}); exits when its standard input
 * closes (it never outlives the test JVM), unless it is killed first.
 *
 * <p>Usage: {@code ClusterCounterMain <cluster.yaml> <id> <data-dir>}
 */
public final class ClusterCounterMain {
  static final String READY = "ANTEROOM_STATUS_PORT=";
  static final String NAMESPACE = "counter";
  static final String SECRET_VARIABLE = "ANTEROOM_TEST_SECRET";

  private ClusterCounterMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "usage: ClusterCounterMain <cluster.yaml> <id> <data-dir>");
    }
    SharedSecret secret = SharedSecret.parse(System.getenv(SECRET_VARIABLE));
    ClusterNode node =
        ClusterNode.builder(ClusterFile.load(Path.of(args[0])), args[1], Path.of(args[2]))
            .objects(runtime -> runtime.namespace(NAMESPACE, Counter.class, CounterObject::new))
            .server(server -> server.export(NAMESPACE).secret(secret))
            .events(ChildProcess::printLine)
            .start();
    ClusterStatusServer status = ClusterStatusServer.start(node, "127.0.0.1", 0);
    ChildProcess.printLine(READY + status.port());
    ChildProcess.awaitParentGone();
    status.close();
    node.close();
  }
}
