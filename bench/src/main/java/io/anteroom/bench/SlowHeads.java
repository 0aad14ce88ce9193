package io.anteroom.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A bounded slowloris driver for one listener on this host: opens {@code connections} connections
 * to {@code host:port} and writes one byte of a request head that never ends on each open one every
 * second, for {@code seconds}. Every 250 ms (another thread) it prints how many of its connections
 * the server still held at the last second, how many file descriptors the server process has open
 * ({@code /proc/<pid>/fd}) and how many TCP connections to the port are established (the server
 * side of those the kernel counts, accepted or still in the backlog, {@code /proc/net/tcp}).
 *
 * <p>With {@code --reconnect}, each connection the server closed is opened again the next second
 * (the attack at its most persistent: the cap must hold whatever the churn).
 *
 * <pre>
 * java bench/src/main/java/io/anteroom/bench/SlowHeads.java 127.0.0.1 8080 1000 30 PID [--reconnect]
 * </pre>
 *
 * <p>JDK only (runs as a single source file); never more than {@code connections} sockets open.
 */
public final class SlowHeads {

  private static final byte[] HEAD =
      ("GET / HTTP/1.1\r\nHost: shop\r\nX-Slow: " + "a".repeat(4000))
          .getBytes(StandardCharsets.US_ASCII);

  private SlowHeads() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: SlowHeads host port connections seconds server-pid [--reconnect]");
      System.exit(2);
    }
    var target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int n = Integer.parseInt(args[2]);
    int seconds = Integer.parseInt(args[3]);
    long pid = Long.parseLong(args[4]);
    boolean reconnect = args.length > 5 && args[5].equals("--reconnect");
    System.out.printf(
        "before: server fds %d, established to port %d%n", fds(pid), established(target.getPort()));
    int[] sent = new int[n];
    SocketChannel[] slots = new SocketChannel[n];
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      slots[i] = connect(target);
    }
    System.out.printf("connected %d in %d ms%n", n, (System.nanoTime() - start) / 1_000_000);
    var held = new AtomicInteger(n);
    var opened = new AtomicInteger(n);
    var done = new AtomicBoolean();
    // t_s: seconds since the first connect, when the sample was taken
    System.out.println("t_s held_by_server server_fds established opened_total");
    Thread sampler =
        Thread.ofPlatform().start(() -> sample(pid, target.getPort(), start, held, opened, done));
    // each open connection gets one byte a second; closes are noticed (and, with --reconnect,
    // replaced) at the next second
    for (int t = 0; t <= seconds; t++) {
      long due = start + t * 1_000_000_000L;
      while (System.nanoTime() < due) {
        Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
      }
      int open = 0;
      for (int i = 0; i < n; i++) {
        if (slots[i] != null && closedByServer(slots[i])) {
          slots[i].close();
          slots[i] = null;
        }
        if (slots[i] != null) {
          open++; // still held by the server a second after the last look
        } else if (reconnect && t > 0) {
          slots[i] = connect(target);
          sent[i] = 0;
          opened.incrementAndGet();
        }
        if (slots[i] != null) {
          try {
            slots[i].write(ByteBuffer.wrap(HEAD, sent[i]++ % HEAD.length, 1));
          } catch (IOException e) {
            slots[i].close();
            slots[i] = null;
          }
        }
      }
      held.set(open);
    }
    done.set(true);
    sampler.join();
    for (SocketChannel c : slots) {
      if (c != null) {
        c.close();
      }
    }
  }

  /** Every 250 ms until {@code done}: one line of figures; then their maxima. */
  private static void sample(
      long pid,
      int port,
      long start,
      AtomicInteger held,
      AtomicInteger opened,
      AtomicBoolean done) {
    int maxHeld = 0;
    int maxFds = 0;
    int maxEstablished = 0;
    try {
      for (int tick = 0; !done.get(); tick++) {
        long due = start + tick * 250_000_000L;
        while (System.nanoTime() < due) {
          Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
        }
        int fds = fds(pid);
        int established = established(port);
        maxHeld = Math.max(maxHeld, held.get());
        maxFds = Math.max(maxFds, fds);
        maxEstablished = Math.max(maxEstablished, established);
        System.out.printf(
            "%.2f %d %d %d %d%n",
            (System.nanoTime() - start) / 1e9, held.get(), fds, established, opened.get());
      }
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
    System.out.printf(
        "max held %d, max server fds %d, max established %d, connections opened %d%n",
        maxHeld, maxFds, maxEstablished, opened.get());
  }

  private static SocketChannel connect(InetSocketAddress target) throws IOException {
    SocketChannel c = SocketChannel.open(target);
    c.configureBlocking(false);
    return c;
  }

  /** Whether the server closed {@code c}: end of stream or reset (it never answers a head). */
  private static boolean closedByServer(SocketChannel c) {
    try {
      return c.read(ByteBuffer.allocate(512)) < 0;
    } catch (IOException e) {
      return true;
    }
  }

  private static int fds(long pid) throws IOException {
    try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return (int) s.count();
    }
  }

  /** Established TCP connections whose local or remote port is {@code port} (IPv4 and IPv6). */
  private static int established(int port) throws IOException {
    String hex = String.format(":%04X ", port);
    int count = 0;
    for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path p = Path.of(file);
      if (!Files.exists(p)) {
        continue;
      }
      for (String line : Files.readAllLines(p)) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[3].equals("01") && (f[1] + " ").contains(hex)) {
          count++; // the server's side of each connection (local port = the listener's)
        }
      }
    }
    return count;
  }
}
