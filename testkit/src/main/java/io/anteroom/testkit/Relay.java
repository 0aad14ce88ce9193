package io.anteroom.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Forwards every connection accepted at one address to another, each a TCP address or a Unix-domain
 * socket. Two relays joined by a socket file carry TCP across network namespaces, since a socket
 * file is reached through the file system, whatever the namespace: a test in the machine's
 * namespace talks to a server on a namespace's loopback, and the other way round ({@link
 * NetworkLab#expose}, {@link NetworkLab#reach}).
 *
 * <p>In a child process ({@link #main}), it reads commands on standard input, {@code forward LISTEN
 * TARGET} with {@code tcp:HOST:PORT} or {@code unix:PATH} for each, answers {@code forwarding
 * LISTEN TARGET} with the bound address, and exits when its input ends.
 */
public final class Relay implements AutoCloseable {
  private final ServerSocketChannel server;
  private final SocketAddress address;
  private final SocketAddress target;
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();

  private Relay(ServerSocketChannel server, SocketAddress target) throws IOException {
    this.server = server;
    this.address = server.getLocalAddress();
    this.target = target;
    Thread.ofVirtual().name("relay-accept-" + describe(target)).start(this::accept);
  }

  /** Accepts at {@code listen} (TCP port 0: any free port) and forwards to {@code target}. */
  public static Relay start(SocketAddress listen, SocketAddress target) {
    try {
      ServerSocketChannel server =
          listen instanceof UnixDomainSocketAddress
              ? ServerSocketChannel.open(StandardProtocolFamily.UNIX)
              : ServerSocketChannel.open();
      if (listen instanceof UnixDomainSocketAddress unix) Files.deleteIfExists(unix.getPath());
      server.bind(listen);
      return new Relay(server, target);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + describe(listen) + ": " + e, e);
    }
  }

  /** The address it accepts at (the TCP port chosen when 0 was asked). */
  public SocketAddress address() {
    return address;
  }

  /** The TCP port it accepts at. */
  public int port() {
    return ((InetSocketAddress) address()).getPort();
  }

  private void accept() {
    while (server.isOpen()) {
      SocketChannel in;
      try {
        in = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Thread.ofVirtual().start(() -> connect(in));
    }
  }

  private void connect(SocketChannel in) {
    open.add(in);
    SocketChannel out = null;
    try {
      out =
          target instanceof UnixDomainSocketAddress
              ? SocketChannel.open(StandardProtocolFamily.UNIX)
              : SocketChannel.open();
      open.add(out);
      out.connect(target);
    } catch (IOException e) {
      // the target does not accept: the caller sees its connection closed, as with no relay
      closeBoth(in, out);
      return;
    }
    SocketChannel to = out;
    AtomicInteger directions = new AtomicInteger(2);
    Thread.ofVirtual().start(() -> copy(to, in, directions));
    copy(in, to, directions);
  }

  /**
   * Copies until {@code from} ends, then ends {@code to}'s output; the second direction to end
   * closes both, and an error in either closes both (which ends the other direction too).
   */
  private void copy(SocketChannel from, SocketChannel to, AtomicInteger directions) {
    ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
    try {
      while (from.read(buffer) >= 0) {
        buffer.flip();
        while (buffer.hasRemaining()) to.write(buffer);
        buffer.clear();
      }
      to.shutdownOutput();
      if (directions.decrementAndGet() == 0) closeBoth(from, to);
    } catch (IOException e) {
      closeBoth(from, to);
    }
  }

  private void closeBoth(SocketChannel a, SocketChannel b) {
    for (SocketChannel c : new SocketChannel[] {a, b}) {
      if (c == null) continue;
      open.remove(c);
      try {
        c.close();
      } catch (IOException e) {
        // already gone
      }
    }
  }

  /** Stops accepting and closes every connection it carries. */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    for (SocketChannel c : List.copyOf(open)) closeBoth(c, null);
    if (address instanceof UnixDomainSocketAddress unix) {
      try {
        Files.deleteIfExists(unix.getPath());
      } catch (IOException e) {
        // left in a temporary directory
      }
    }
  }

  /** {@code tcp:HOST:PORT} or {@code unix:PATH}. */
  public static SocketAddress parse(String address) {
    if (address.startsWith("unix:")) return UnixDomainSocketAddress.of(address.substring(5));
    if (address.startsWith("tcp:")) {
      String hostPort = address.substring(4);
      int colon = hostPort.lastIndexOf(':');
      return new InetSocketAddress(
          hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
    throw new IllegalArgumentException("not tcp:HOST:PORT or unix:PATH: " + address);
  }

  /** The form {@link #parse} reads. */
  public static String describe(SocketAddress address) {
    if (address instanceof UnixDomainSocketAddress unix) return "unix:" + unix.getPath();
    InetSocketAddress tcp = (InetSocketAddress) address;
    return "tcp:" + tcp.getHostString() + ":" + tcp.getPort();
  }

  /** A Unix-domain socket address. */
  public static SocketAddress unix(Path path) {
    return UnixDomainSocketAddress.of(path);
  }

  /**
   * The relay process: {@code forward LISTEN TARGET} commands on standard input, one line each
   * answered {@code forwarding LISTEN TARGET} (or {@code relay: ...} on an error); exits when its
   * input ends.
   */
  public static void main(String[] args) throws IOException {
    List<Relay> relays = new ArrayList<>();
    ChildProcess.printLine("relay ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split("\\s+");
      if (words.length != 3 || !words[0].equals("forward")) {
        ChildProcess.printLine("relay: not a command: " + line);
        continue;
      }
      try {
        Relay r = start(parse(words[1]), parse(words[2]));
        relays.add(r);
        ChildProcess.printLine("forwarding " + describe(r.address()) + " " + words[2]);
      } catch (RuntimeException e) {
        ChildProcess.printLine("relay: " + words[1] + ": " + e.getMessage());
      }
    }
    relays.forEach(Relay::close);
    System.exit(0);
  }
}
