package io.anteroom.gateway.edge;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.impl.transports.NioTransport;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.transport.Transport;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * A Vert.x transport that hands every connection a guarded listener accepts to its {@link
 * ListenerGuard} at accept, before Vert.x reads a byte of it: Vert.x itself tells a listener of a
 * connection only once it speaks HTTP (after the TLS handshake and the PROXY header, and with h2c
 * after the first complete request head), too late to count it or to start its head deadline.
 *
 * <p>Vert.x offers no public hook at accept; its transport SPI configures each listener's Netty
 * {@link ServerBootstrap} after setting the child handler, so this transport adds a handler to the
 * server channel, which gives each accepted channel to the guard on the acceptor thread (a refused
 * one is closed there, before any event loop or Vert.x sees it), and wraps the child handler to
 * start the admitted channel's deadline on its event loop. A listener is found by the host and port
 * of its server options ({@link #register}). The NIO transport is extended rather than wrapped, as
 * Vert.x tells NIO from native transports by class.
 *
 * <p>Thread-safe: listeners register before they listen; the map is read at each bind.
 */
public final class GuardedTransport {

  private final Map<String, ListenerGuard> guards = new ConcurrentHashMap<>();

  /** {@code base} with the guards registered here at accept. */
  public Transport wrap(Transport base) {
    io.vertx.core.spi.transport.Transport impl = base.implementation();
    io.vertx.core.spi.transport.Transport hooked =
        impl instanceof NioTransport ? new Nio() : new Delegating(impl);
    return new Transport() {
      @Override
      public String name() {
        return base.name();
      }

      @Override
      public boolean available() {
        return base.available();
      }

      @Override
      public Throwable unavailabilityCause() {
        return base.unavailabilityCause();
      }

      @Override
      public io.vertx.core.spi.transport.Transport implementation() {
        return hooked;
      }
    };
  }

  /** The listener on {@code host}:{@code port} (as in its server options) is guarded by guard. */
  void register(String host, int port, ListenerGuard guard) {
    if (guards.putIfAbsent(key(host, port), guard) != null) {
      throw new IllegalStateException("a listener on " + key(host, port) + " is guarded already");
    }
  }

  private static String key(String host, int port) {
    return host + " " + port;
  }

  private void hook(NetServerOptions options, ServerBootstrap bootstrap) {
    ListenerGuard guard = guards.get(key(options.getHost(), options.getPort()));
    ChannelHandler vertx = bootstrap.config().childHandler();
    if (guard == null || vertx == null) {
      return;
    }
    if (bootstrap.config().handler() != null) {
      throw new IllegalStateException("the listener's server channel has a handler already");
    }
    // on the server channel, before Netty hands the accepted channel to an event loop
    bootstrap.handler(new Acceptor(guard));
    bootstrap.childHandler(
        new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            guard.registered(ch);
            ch.pipeline().addLast(vertx);
          }
        });
  }

  /** Sees each accepted channel first: refused ones are closed and go no further. */
  @ChannelHandler.Sharable
  private static final class Acceptor extends ChannelInboundHandlerAdapter {
    private final ListenerGuard guard;

    Acceptor(ListenerGuard guard) {
      this.guard = guard;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Channel child && !guard.admit(child)) {
        child.unsafe().closeForcibly(); // not registered yet: nothing else to undo
        return;
      }
      ctx.fireChannelRead(msg);
    }
  }

  private final class Nio extends NioTransport {
    @Override
    public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap b) {
      super.configure(options, domainSocket, b);
      hook(options, b);
    }
  }

  private final class Delegating implements io.vertx.core.spi.transport.Transport {
    private final io.vertx.core.spi.transport.Transport d;

    Delegating(io.vertx.core.spi.transport.Transport d) {
      this.d = d;
    }

    @Override
    public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap b) {
      d.configure(options, domainSocket, b);
      hook(options, b);
    }

    @Override
    public boolean supportsDomainSockets() {
      return d.supportsDomainSockets();
    }

    @Override
    public boolean supportFileRegion() {
      return d.supportFileRegion();
    }

    @Override
    public boolean isAvailable() {
      return d.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
      return d.unavailabilityCause();
    }

    @Override
    public java.net.SocketAddress convert(SocketAddress address) {
      return d.convert(address);
    }

    @Override
    public SocketAddress convert(java.net.SocketAddress address) {
      return d.convert(address);
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return d.ioHandlerFactory();
    }

    @Override
    public EventLoopGroup eventLoopGroup(
        int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
      return d.eventLoopGroup(type, nThreads, threadFactory, ioRatio);
    }

    @Override
    public DatagramChannel datagramChannel() {
      return d.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
      return d.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
      return d.channelFactory(domainSocket);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
      return d.serverChannelFactory(domainSocket);
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
      d.configure(channel, options);
    }

    @Override
    public void configure(
        ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
      d.configure(options, connectTimeout, domainSocket, bootstrap);
    }
  }
}
