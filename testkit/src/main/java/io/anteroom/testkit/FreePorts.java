package io.anteroom.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loopback ports for servers a test starts later, on an address it must know in advance (a cluster
 * file, a child process's command line).
 *
 * <p>A port the kernel hands out for {@code bind(0)} comes from its ephemeral range, the same range
 * it takes the local ports of outgoing connections from: between the test's look and its bind, any
 * connection (a Raft peer dialling another, an HTTP client) may take that port, and the server then
 * fails with "Address already in use". These ports lie below that range ({@code
 * /proc/sys/net/ipv4/ip_local_port_range}, 32768 by default), where no outgoing connection is given
 * a port, and each is handed out once per JVM; each is checked free when handed out.
 *
 * <pre>{@code
 * int[] raft = FreePorts.take(3);   // three distinct ports, free now
 * }</pre>
 */
public final class FreePorts {
  private static final int LOWEST = 10_000;
  private static final int BELOW = ephemeralStart();
  private static final AtomicInteger NEXT =
      new AtomicInteger(LOWEST + ThreadLocalRandom.current().nextInt(BELOW - LOWEST));

  private FreePorts() {}

  /** One free loopback port. */
  public static int take() {
    return take(1)[0];
  }

  /** {@code n} distinct loopback ports, each free now and never handed out before in this JVM. */
  public static int[] take(int n) {
    int[] ports = new int[n];
    int span = BELOW - LOWEST;
    for (int i = 0; i < n; i++) {
      int tries = 0;
      while (true) {
        int port = LOWEST + Math.floorMod(NEXT.getAndIncrement() - LOWEST, span);
        if (free(port)) {
          ports[i] = port;
          break;
        }
        if (++tries > span)
          throw new IllegalStateException("no free port in " + LOWEST + "-" + BELOW);
      }
    }
    return ports;
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
  private static int ephemeralStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int start = Integer.parseInt(range.split("\\s+")[0]);
      return start > LOWEST + 1_000 ? start : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
