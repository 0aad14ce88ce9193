package io.anteroom.testkit;

/**
 * The {@code peers:} list of a cluster file whose peers all run on this machine, each on two
 * loopback ports of {@link FreePorts} (Raft and HTTP): the part every in-process cluster test
 * writes alike.
 *
 * <pre>{@code
 * ClusterFile file = ClusterFile.parse("shards: 3\n" + LocalPeers.yaml("c", 1, 3), "test");
 * // peers c1, c2, c3
 * }</pre>
 */
public final class LocalPeers {
  private LocalPeers() {}

  /**
   * {@code peers:} and {@code count} peers named {@code prefix} followed by {@code first}, {@code
   * first + 1}, ..., each with {@code raft: 127.0.0.1:PORT} and {@code http:
   * http://127.0.0.1:PORT}.
   */
  public static String yaml(String prefix, int first, int count) {
    StringBuilder yaml = new StringBuilder("peers:\n");
    for (int i = first; i < first + count; i++) {
      yaml.append("  - id: ")
          .append(prefix)
          .append(i)
          .append("\n    raft: 127.0.0.1:")
          .append(FreePorts.take())
          .append("\n    http: http://127.0.0.1:")
          .append(FreePorts.take())
          .append('\n');
    }
    return yaml.toString();
  }
}
