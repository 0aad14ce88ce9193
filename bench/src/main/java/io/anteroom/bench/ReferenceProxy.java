package io.anteroom.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Reference points for the gateway's HTTP benchmark ({@code bench/http/run.sh}): two reverse
 * proxies with no waiting room at all, to show what a JVM proxy costs on the benchmark machine
 * before any room logic. Neither is part of Anteroom; both listen on 127.0.0.1 only.
 *
 * <ul>
 *   <li>{@code vertx}: the same Vert.x 5 HTTP server and client the gateway uses, one server and
 *       one client per event loop, forwarding method, URI and headers (plus {@code
 *       X-Forwarded-For}) and piping the response back, as the gateway's forwarding does.
 *   <li>{@code netty}: plain Netty 4.2 HTTP codecs on the native epoll transport (NIO when epoll is
 *       not available), one origin connection per client connection, the decoded request and
 *       response objects passed through unchanged apart from {@code X-Forwarded-For}: about the
 *       least a Java HTTP/1.1 proxy can do per request.
 *   <li>{@code netty-uring}: the same handlers on Netty's io_uring transport, the one the gateway's
 *       event loops use where the kernel allows it (fails to start where io_uring is not
 *       available).
 * </ul>
 *
 * <p>Usage: {@code ReferenceProxy --kind vertx|netty|netty-uring --port 8090 --origin-port 8081};
 * runs until the process is stopped.
 */
@Command(
    name = "reference-proxy",
    mixinStandardHelpOptions = true,
    description = "A waiting-room-free reverse proxy on 127.0.0.1, for comparison only.")
public final class ReferenceProxy implements Runnable {

  @Option(names = "--kind", required = true, description = "vertx, netty or netty-uring")
  String kind;

  @Option(names = "--port", required = true, description = "port to listen on (127.0.0.1)")
  int port;

  @Option(names = "--origin-port", required = true, description = "origin port on 127.0.0.1")
  int originPort;

  @Option(names = "--event-loops", description = "event loops (default: one per CPU)")
  int eventLoops = Runtime.getRuntime().availableProcessors();

  public static void main(String[] args) {
    int code = new CommandLine(new ReferenceProxy()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public void run() {
    switch (kind) {
      case "vertx" -> vertx();
      case "netty" -> netty(false);
      case "netty-uring" -> netty(true);
      default ->
          throw new CommandLine.ParameterException(
              new CommandLine(this),
              "--kind: \"" + kind + "\" is not allowed; allowed: vertx, netty, netty-uring");
    }
    System.out.println(
        "reference proxy (" + kind + ") on 127.0.0.1:" + port + " -> 127.0.0.1:" + originPort);
    try {
      new CountDownLatch(1).await(); // until the process is stopped
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void vertx() {
    Vertx vertx = Vertx.vertx();
    vertx
        .deployVerticle(
            () ->
                new VerticleBase() {
                  private HttpClient client;

                  @Override
                  public Future<?> start() {
                    client =
                        vertx.createHttpClient(
                            new HttpClientOptions().setKeepAlive(true),
                            new PoolOptions().setHttp1MaxSize(256));
                    return vertx
                        .createHttpServer()
                        .requestHandler(this::forward)
                        .listen(port, "127.0.0.1");
                  }

                  private void forward(HttpServerRequest request) {
                    request.pause();
                    client
                        .request(
                            new RequestOptions()
                                .setHost("127.0.0.1")
                                .setPort(originPort)
                                .setMethod(request.method())
                                .setURI(request.uri()))
                        .compose(
                            out -> {
                              out.headers()
                                  .setAll(request.headers())
                                  .remove("host")
                                  .set("X-Forwarded-For", request.remoteAddress().hostAddress());
                              request.resume();
                              return out.send();
                            })
                        .compose(
                            in -> {
                              var response = request.response().setStatusCode(in.statusCode());
                              response.headers().setAll(in.headers()).remove("connection");
                              return in.pipe().to(response);
                            })
                        .onFailure(
                            e -> {
                              if (!request.response().headWritten()) {
                                request.response().setStatusCode(502).end();
                              }
                            });
                  }
                },
            new DeploymentOptions().setInstances(eventLoops))
        .await();
  }

  private void netty(boolean uring) {
    if (uring && !IoUring.isAvailable()) {
      throw new IllegalStateException(
          "io_uring is not available here", IoUring.unavailabilityCause());
    }
    boolean epoll = !uring && Epoll.isAvailable();
    IoHandlerFactory io =
        uring
            ? IoUringIoHandler.newFactory()
            : epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> serverType =
        uring
            ? IoUringServerSocketChannel.class
            : epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    Class<? extends Channel> clientType =
        uring
            ? IoUringSocketChannel.class
            : epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(eventLoops, io);
    var origin = new InetSocketAddress("127.0.0.1", originPort);
    new ServerBootstrap()
        .group(group)
        .channel(serverType)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new HttpServerCodec(), new Front(clientType, origin));
              }
            })
        .bind("127.0.0.1", port)
        .syncUninterruptibly();
    System.out.println("netty transport: " + (uring ? "io_uring" : epoll ? "native epoll" : "nio"));
  }

  /** Client side: opens its own origin connection, then passes each HTTP object through. */
  private static final class Front extends ChannelInboundHandlerAdapter {
    private final Class<? extends Channel> clientType;
    private final InetSocketAddress origin;
    private Channel upstream;

    Front(Class<? extends Channel> clientType, InetSocketAddress origin) {
      this.clientType = clientType;
      this.origin = origin;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel front = ctx.channel();
      front.config().setAutoRead(false); // nothing is read until the origin connection is up
      ChannelFuture connected =
          new Bootstrap()
              .group(front.eventLoop())
              .channel(clientType)
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(
                  new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline().addLast(new HttpClientCodec(), new Back(front));
                    }
                  })
              .connect(origin);
      upstream = connected.channel();
      connected.addListener(
          done -> {
            if (done.isSuccess()) {
              front.config().setAutoRead(true);
            } else {
              front.close();
            }
          });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!upstream.isActive()) {
        ReferenceCountUtil.release(msg);
        ctx.close();
        return;
      }
      if (msg instanceof HttpRequest request) {
        request
            .headers()
            .set(
                "X-Forwarded-For",
                ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress().getHostAddress());
      }
      if (msg instanceof LastHttpContent) {
        upstream.writeAndFlush(msg);
      } else {
        upstream.write(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (upstream != null) {
        upstream.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Origin side: passes the response objects back to the client connection. */
  private static final class Back extends ChannelInboundHandlerAdapter {
    private final Channel front;

    Back(Channel front) {
      this.front = front;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof LastHttpContent) {
        front.writeAndFlush(msg);
      } else {
        front.write(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      front.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
