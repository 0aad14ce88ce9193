package io.anteroom.gateway.edge;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The HTTP/1.1 client of one origin, written on Netty's codecs: keep-alive connections pooled per
 * event loop, opened on the loop that reads the client's request with Vert.x's own transport
 * (io_uring or NIO), so a forwarded request never leaves its thread. It writes straight into the
 * public listener's Vert.x response; what Vert.x's {@code HttpClient} added per request on top of
 * this (a pool shared through futures, its request and response objects, a header map per side) was
 * about a third of the admitted path's CPU in a profile (docs/benchmarks-http.md).
 *
 * <p>One {@link Exchange} per forwarded request: the request line and headers (already filtered by
 * {@link OriginProxy}), the body streamed with back-pressure both ways (the client's body paused
 * while the origin connection cannot take more; the origin connection not read while the client's
 * response cannot take more), and an idle timeout: no byte from the origin for {@code
 * timeoutMillis} ends the exchange with 504, a refused or broken connection with 502 (through
 * {@link OriginProxy#answerFailure}). A connection returns to its loop's pool only after a whole
 * request was written and a whole response read on it, both keep-alive; any other end closes it.
 * Each loop opens at most {@link #MAX_CONNECTIONS_PER_LOOP} connections (as Vert.x's client pool
 * did): a flood of requests waits for one to come back, and one that waits longer than the timeout
 * gets 504. A response that is not HTTP, or exceeds the codec's limits (initial line 8 KiB, headers
 * 64 KiB), gives 502.
 *
 * <p>Thread safety: each pool and each connection's handler are used from their own event loop
 * only; {@link #close} may run on any thread.
 */
final class OriginClient implements AutoCloseable {

  /**
   * Connections to the origin per event loop, open or opening (as Vert.x's client pool allowed);
   * requests beyond them wait for one to come back, at most {@code timeoutMillis} (then 504).
   */
  static final int MAX_CONNECTIONS_PER_LOOP = 256;

  private final Bootstrap bootstrap;
  private final InetSocketAddress address;
  private final String hostHeader;
  private final SslContext tls;
  private final long timeoutMillis;
  private final int maxPerLoop;
  private final Map<EventLoop, Loop> loops = new ConcurrentHashMap<>();
  private final ChannelGroup all = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final java.util.Set<Thread> loopThreads = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.LongAdder pausedReads =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder pausedUploads =
      new java.util.concurrent.atomic.LongAdder();
  private volatile boolean closed;

  OriginClient(Vertx vertx, URI origin, long timeoutMillis) {
    this(vertx, origin, timeoutMillis, MAX_CONNECTIONS_PER_LOOP);
  }

  /** With at most {@code maxPerLoop} origin connections per event loop (tests use fewer). */
  OriginClient(Vertx vertx, URI origin, long timeoutMillis, int maxPerLoop) {
    this.maxPerLoop = maxPerLoop;
    boolean https = "https".equals(origin.getScheme());
    int port = origin.getPort() > 0 ? origin.getPort() : https ? 443 : 80;
    this.address = InetSocketAddress.createUnresolved(origin.getHost(), port);
    this.hostHeader = origin.getPort() > 0 ? origin.getHost() + ":" + port : origin.getHost();
    this.timeoutMillis = timeoutMillis;
    try {
      this.tls = https ? SslContextBuilder.forClient().build() : null;
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS to the origin " + origin, e);
    }
    this.bootstrap =
        new Bootstrap()
            .channelFactory(((VertxInternal) vertx).transport().channelFactory(false))
            // Vert.x's asynchronous resolver: Netty's default would look a host name up with a
            // blocking call on the event loop
            .resolver(((VertxInternal) vertx).nameResolver().nettyAddressResolverGroup())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeoutMillis, 10_000));
  }

  /** The value of the {@code Host} header for a request that named no host of its own. */
  String hostHeader() {
    return hostHeader;
  }

  /**
   * Sends {@code head} (and the body of {@code request} when {@code withBody}) to the origin on a
   * connection of the calling event loop, then answers on {@code request.response()}: {@code
   * onResponse} edits the response headers before they are sent. {@code failed} answers a failure
   * before the response's head was written, unless this client is closed: then the request is cut
   * off instead (see {@link #close}).
   */
  void send(
      HttpServerRequest request,
      DefaultHttpRequest head,
      boolean withBody,
      Consumer<HttpServerResponse> onResponse,
      Consumer<Throwable> failed) {
    EventLoop loop = ((ContextInternal) ContextInternal.current()).nettyEventLoop();
    Exchange exchange = new Exchange(request, head, withBody, onResponse, failed);
    Loop l = loops.computeIfAbsent(loop, k -> new Loop());
    Channel pooled = l.poll();
    if (pooled != null) {
      exchange.start(pooled);
    } else if (closed) {
      exchange.failBeforeStart(new IllegalStateException("the origin client is closed"));
    } else if (l.open >= maxPerLoop) {
      exchange.await(l); // every connection busy: the next one given back serves it
    } else {
      connect(l, loop, exchange);
    }
  }

  private void connect(Loop l, EventLoop loop, Exchange exchange) {
    loopThreads.add(Thread.currentThread());
    ChannelFuture connecting =
        bootstrap
            .clone(loop)
            .handler(
                new ChannelInitializer<>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      SslHandler ssl =
                          tls.newHandler(ch.alloc(), address.getHostString(), address.getPort());
                      SSLEngine engine = ssl.engine();
                      SSLParameters parameters = engine.getSSLParameters();
                      parameters.setEndpointIdentificationAlgorithm("HTTPS"); // verify the host
                      engine.setSSLParameters(parameters);
                      ch.pipeline().addLast(ssl);
                    }
                    ch.pipeline().addLast(new HttpClientCodec(8192, 65_536, 8192));
                    ch.pipeline().addLast(new Connection());
                  }
                })
            .connect(address);
    Channel channel = connecting.channel();
    l.open++;
    all.add(channel);
    // counted until closed, however it ends (a failed connect closes the channel too); its place
    // goes to the next request waiting on this loop
    channel.closeFuture().addListener(f -> l.closed(loop, channel));
    connecting.addListener(
        done -> {
          if (done.isSuccess()) {
            exchange.start(channel);
          } else {
            exchange.failBeforeStart(done.cause());
          }
        });
  }

  /**
   * The origin connections of one event loop, used from that loop only: idle ones, how many are
   * open or opening, and the requests waiting for one.
   */
  private final class Loop {
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
    private int open;

    Channel poll() {
      Channel c;
      while ((c = idle.pollLast()) != null) {
        if (c.isActive()) {
          return c;
        }
      }
      return null;
    }

    /** A connection ended a whole exchange and may serve another. */
    void giveBack(Channel channel) {
      if (closed || !channel.isActive()) {
        channel.close();
        return;
      }
      Exchange next = waiting.poll();
      if (next != null) {
        next.start(channel);
      } else {
        idle.addLast(channel);
      }
    }

    void closed(EventLoop loop, Channel channel) {
      open--;
      idle.remove(channel);
      Exchange next = waiting.poll();
      if (next != null) {
        if (closed) {
          next.failBeforeStart(new IllegalStateException("the origin client is closed"));
        } else {
          connect(this, loop, next);
        }
      }
    }
  }

  /**
   * How often an origin connection stopped being read because the client's response could take no
   * more (for tests: back-pressure from a slow client reaches the origin).
   */
  long pausedReads() {
    return pausedReads.sum();
  }

  /**
   * How often a client's request body stopped being read because the origin connection could take
   * no more (for tests: back-pressure from a slow origin reaches the client).
   */
  long pausedUploads() {
    return pausedUploads.sum();
  }

  /** The event-loop threads that opened connections (for tests: each loop has its own). */
  java.util.Set<Thread> loopThreads() {
    return java.util.Set.copyOf(loopThreads);
  }

  /**
   * Closes every origin connection. The gateway closes its origins only as it stops, after its
   * drain: a request still waiting on its origin then (its client's connection not closed yet,
   * which Vert.x may do a moment after the drain's end) is cut off, its connection closed without a
   * response, never answered with a 502 that would blame the site for the gateway's own stop and
   * count as answered in the drain.
   */
  @Override
  public void close() {
    closed = true; // before the connections close: each exchange they end sees it
    all.close();
  }

  /**
   * The handler at the end of each origin connection: hands what it reads to the exchange in
   * progress; an idle pooled connection that closes or errs leaves its pool.
   */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private Exchange exchange;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Exchange e = exchange;
      if (e == null) {
        ReferenceCountUtil.release(msg); // nothing asked: an origin talking out of turn
        ctx.close();
        return;
      }
      e.read(msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      Exchange e = exchange;
      if (e != null) {
        e.writabilityChanged(ctx.channel().isWritable());
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      Exchange e = exchange;
      if (e != null) {
        e.fail(new java.io.IOException("the origin closed the connection"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Exchange e = exchange;
      if (e != null) {
        e.fail(cause);
      }
      ctx.close();
    }
  }

  /** One request and its response on one origin connection, on that connection's event loop. */
  private final class Exchange {
    private final HttpServerRequest request;
    private final DefaultHttpRequest head;
    private final boolean withBody;
    private final Consumer<HttpServerResponse> onResponse;
    private final Consumer<Throwable> failed;
    private Channel channel;
    private Connection connection;
    private Loop waitingOn;
    private ScheduledFuture<?> timer;
    private long lastRead;
    private boolean requestSent;
    private boolean responseStarted;
    private boolean informational;
    private boolean keepAlive;
    private boolean done;

    Exchange(
        HttpServerRequest request,
        DefaultHttpRequest head,
        boolean withBody,
        Consumer<HttpServerResponse> onResponse,
        Consumer<Throwable> failed) {
      this.request = request;
      this.head = head;
      this.withBody = withBody;
      this.onResponse = onResponse;
      this.failed = failed;
    }

    /** Waits on {@code l} for a connection, at most the origin timeout. */
    void await(Loop l) {
      waitingOn = l;
      l.waiting.add(this);
      request.response().closeHandler(v -> stopWaiting(null)); // the client went away
      timer =
          ((ContextInternal) ContextInternal.current())
              .nettyEventLoop()
              .schedule(
                  () ->
                      stopWaiting(
                          new TimeoutException(
                              "no connection to the origin came free within "
                                  + timeoutMillis
                                  + " ms")),
                  timeoutMillis,
                  TimeUnit.MILLISECONDS);
    }

    private void stopWaiting(Throwable cause) {
      if (done) {
        return;
      }
      done = true;
      waitingOn.waiting.remove(this);
      timer.cancel(false);
      if (cause != null) {
        answerFailure(cause);
      }
    }

    /** No connection could be opened for it: 502 (or 504 on a connect timeout). */
    void failBeforeStart(Throwable cause) {
      if (!done) {
        done = true;
        if (timer != null) {
          timer.cancel(false);
        }
        answerFailure(cause);
      }
    }

    void start(Channel channel) {
      if (done) { // the client went away, or its wait timed out: the connection serves another
        loops.get(channel.eventLoop()).giveBack(channel);
        return;
      }
      if (timer != null) {
        timer.cancel(false); // the wait is over
      }
      this.channel = channel;
      this.connection = channel.pipeline().get(Connection.class);
      connection.exchange = this;
      lastRead = System.nanoTime();
      timer = channel.eventLoop().schedule(this::checkIdle, timeoutMillis, TimeUnit.MILLISECONDS);
      HttpServerResponse response = request.response();
      response.closeHandler(v -> abandon()); // the client went away: nobody to answer
      if (!withBody) {
        channel.writeAndFlush(
            new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1,
                head.method(),
                head.uri(),
                Unpooled.EMPTY_BUFFER,
                head.headers(),
                DefaultHttpHeadersFactory.trailersFactory().newEmptyHeaders()));
        requestSent = true;
        request.resume(); // no body: let the request end
        return;
      }
      if (!HttpUtil.isContentLengthSet(head)) {
        HttpUtil.setTransferEncodingChunked(head, true);
      }
      channel.write(head);
      request.handler(
          chunk -> {
            if (done) {
              return;
            }
            channel.writeAndFlush(new DefaultHttpContent(((BufferInternal) chunk).getByteBuf()));
            if (!channel.isWritable()) {
              request.pause();
              pausedUploads.increment();
            }
          });
      request.endHandler(
          v -> {
            if (done) {
              return;
            }
            channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            requestSent = true;
          });
      request.exceptionHandler(this::fail);
      channel.flush();
      request.resume();
    }

    void writabilityChanged(boolean writable) {
      if (writable && withBody && !requestSent && !done) {
        request.resume();
      }
    }

    void read(Object msg) {
      lastRead = System.nanoTime();
      if (done) {
        ReferenceCountUtil.release(msg);
        return;
      }
      HttpServerResponse response = request.response();
      if (msg instanceof DecoderResultProvider p && p.decoderResult().isFailure()) {
        // not HTTP, or beyond the codec's limits (initial line 8 KiB, headers 64 KiB): 502
        ReferenceCountUtil.release(msg);
        fail(p.decoderResult().cause());
        return;
      }
      if (msg instanceof HttpResponse r) {
        int status = r.status().code();
        if (status >= 100 && status < 200) {
          informational = true; // 100 Continue and the like: not the answer, skipped
        } else {
          informational = false;
          keepAlive = HttpUtil.isKeepAlive(r);
          OriginProxy.copyResponseHead(request, r, response);
          onResponse.accept(response);
          responseStarted = true;
        }
      }
      if (msg instanceof HttpContent content) {
        if (informational) {
          content.release();
          return;
        }
        if (content.content().isReadable()) {
          response.write(BufferInternal.safeBuffer(content.content()));
          if (response.writeQueueFull()) {
            pausedReads.increment();
            channel.config().setAutoRead(false);
            response.drainHandler(
                v -> {
                  channel.config().setAutoRead(true);
                  channel.read();
                });
          }
        } else {
          content.release();
        }
        if (msg instanceof LastHttpContent) {
          // before end(): an HTTP/2 client's stream closes with its response, which is no reason to
          // drop the origin connection
          response.closeHandler(null);
          response.end();
          // an origin that answered before the whole body was sent: its connection is not reused
          keepAlive &= requestSent;
          finish();
        }
      }
    }

    /** The response ended: the connection goes back to its pool, or is closed. */
    private void finish() {
      end(keepAlive);
    }

    /** The client's connection closed first: the origin connection cannot be reused either. */
    private void abandon() {
      end(false);
    }

    /** The origin failed: the client gets 502/504, or its started response is cut short. */
    void fail(Throwable cause) {
      if (!end(false)) {
        return;
      }
      if (responseStarted) {
        request.response().reset(); // mid-body: nothing sensible can follow a started response
      } else {
        answerFailure(cause);
      }
    }

    /**
     * A failure before the response started: answered by {@code failed} (502/504), or, once the
     * client is closed (the gateway stopping), cut off: the connection closes without a response.
     */
    private void answerFailure(Throwable cause) {
      if (closed) {
        request.response().reset();
      } else {
        failed.accept(cause);
      }
    }

    /**
     * Ends the exchange once: the connection is given back ({@code reuse}) or closed. False when it
     * had ended already.
     */
    private boolean end(boolean reuse) {
      if (done) {
        return false;
      }
      done = true;
      timer.cancel(false);
      connection.exchange = null;
      if (reuse) {
        loops.get(channel.eventLoop()).giveBack(channel);
      } else {
        channel.close();
      }
      return true;
    }

    private void checkIdle() {
      if (done) {
        return;
      }
      long idleFor = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastRead);
      if (idleFor >= timeoutMillis) {
        fail(new TimeoutException("the origin sent nothing for " + timeoutMillis + " ms"));
      } else {
        timer =
            channel
                .eventLoop()
                .schedule(this::checkIdle, timeoutMillis - idleFor, TimeUnit.MILLISECONDS);
      }
    }
  }
}
