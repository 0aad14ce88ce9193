package io.anteroom.gateway.edge;

import io.anteroom.gateway.match.RequestTarget;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.OriginRequestProvider;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyOptions;
import io.vertx.httpproxy.ProxyRequest;
import io.vertx.httpproxy.ProxyResponse;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Forwards requests to one origin over a pooled keep-alive client: method, path, query, headers and
 * streamed bodies, {@code X-Forwarded-For/-Proto/-Host} set (a client's own are kept and appended
 * to only when it is a trusted proxy, see {@link ClientAddress}), hop-by-hop headers dropped,
 * WebSocket upgrades passed through (Vert.x http-proxy). An origin that refuses the connection
 * answers 502, one that stays silent longer than the timeout 504, each with a plain page: the
 * client never hangs.
 *
 * <p>Ordinary requests go straight through the Vert.x {@link HttpClient} rather than http-proxy's
 * {@code ProxyRequest}/{@code ProxyResponse}: those parse the origin's {@code Date} and cache
 * headers on every response, work a reverse proxy without a cache does not need (about a quarter of
 * the admitted path's CPU in a profile).
 *
 * <p>Each event-loop thread forwards through its own {@link HttpClient}, created the first time it
 * forwards: a Vert.x client opens its connections on the event loop that asks for one but hands any
 * idle connection to any caller, so with one shared client a request read on one loop was often
 * written and answered on another: two thread hand-offs per request (measured: 60–110 µs more p50
 * latency at 4 connections, docs/benchmarks-http.md).
 *
 * <p>Thread safety: the clients map is concurrent; each client is used from its own thread only
 * (WebSocket upgrades use one shared client through http-proxy, which Vert.x allows).
 */
public final class OriginProxy implements AutoCloseable {

  public static final String REVOKE_HEADER = "Anteroom-Command";

  /** RFC 9110 §7.6.1 connection-specific headers, lower case; never forwarded either way. */
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private final Vertx vertx;
  private final HttpClientOptions options;
  private final HttpClient shared;
  private final Map<Thread, HttpClient> perThread = new java.util.concurrent.ConcurrentHashMap<>();
  private final HttpProxy webSockets;
  private final SocketAddress address;
  private final long timeoutMillis;
  private volatile boolean closed;

  private final ClientAddress clients;

  OriginProxy(Vertx vertx, URI origin, int timeoutSeconds, ClientAddress clients) {
    this.clients = clients;
    boolean tls = "https".equals(origin.getScheme());
    int port = origin.getPort() > 0 ? origin.getPort() : tls ? 443 : 80;
    this.address = SocketAddress.inetSocketAddress(port, origin.getHost());
    this.timeoutMillis = timeoutSeconds * 1000L;
    var options =
        new HttpClientOptions()
            .setKeepAlive(true)
            .setSsl(tls)
            .setConnectTimeout((int) Math.min(timeoutMillis, 10_000))
            .setMaxInitialLineLength(8192)
            .setMaxHeaderSize(65_536);
    if (tls) {
      options.setVerifyHost(true);
    }
    this.vertx = vertx;
    this.options = options;
    this.shared = vertx.createHttpClient(options, pool());
    this.webSockets =
        HttpProxy.reverseProxy(new ProxyOptions().setSupportWebSocket(true), shared)
            .origin(OriginRequestProvider.fixedAddress(address))
            .addInterceptor(
                new ProxyInterceptor() {
                  @Override
                  public Future<ProxyResponse> handleProxyRequest(ProxyContext context) {
                    // the upgrade is forwarded with the target the room judged, like any other
                    // request
                    ProxyRequest upgrade = context.request();
                    if (Gatekeeper.target(upgrade.proxiedRequest()) instanceof RequestTarget t) {
                      upgrade.setURI(t.pathAndQuery());
                      HostAndPort authority = authority(upgrade.proxiedRequest(), t);
                      if (authority != null) {
                        upgrade.setAuthority(authority);
                      }
                    }
                    return context.sendRequest();
                  }
                },
                true);
  }

  private static PoolOptions pool() {
    return new PoolOptions().setHttp1MaxSize(256);
  }

  /** The threads that have their own client (for tests: one per event loop that forwarded). */
  Set<Thread> clientThreads() {
    return Set.copyOf(perThread.keySet());
  }

  /** The calling thread's own client (its connections live on this event loop). */
  private HttpClient client() {
    HttpClient client = perThread.get(Thread.currentThread());
    if (client == null) {
      if (closed) {
        return shared; // closed as well: the request fails with 502 instead of leaking a client
      }
      client =
          perThread.computeIfAbsent(
              Thread.currentThread(),
              t -> vertx.createHttpClient(new HttpClientOptions(options), pool()));
    }
    return client;
  }

  /**
   * Forwards {@code request} (paused or not yet read) to the origin, with the normalised {@code
   * target}'s path, query and host: the origin sees what the room and its bypass rules judged,
   * never the raw request-target. {@code onResponse} may edit the response headers (cookies,
   * revocation) after the origin's status and headers are copied onto it and before they are sent.
   */
  void forward(
      HttpServerRequest request, RequestTarget target, Consumer<HttpServerResponse> onResponse) {
    if (request.canUpgradeToWebSocket()) {
      webSockets.handle(request);
      return;
    }
    request.pause(); // no body byte may be lost while a pooled connection is found
    client()
        .request(new RequestOptions().setServer(address).setIdleTimeout(timeoutMillis))
        .compose(originRequest -> send(request, target, originRequest))
        .compose(
            originResponse -> {
              HttpServerResponse response = request.response();
              response.setStatusCode(originResponse.statusCode());
              String message = originResponse.statusMessage();
              if (message != null) {
                response.setStatusMessage(message);
              }
              copyHeaders(originResponse.headers(), response.headers());
              int status = originResponse.statusCode();
              if (!response.headers().contains("content-length")
                  && request.method() != HttpMethod.HEAD
                  && status >= 200
                  && status != 204
                  && status != 304
                  && request.version() != HttpVersion.HTTP_1_0) {
                response.setChunked(true); // a body of unknown length
              }
              onResponse.accept(response);
              return originResponse.pipe().endOnFailure(false).to(response);
            })
        .onFailure(failure -> answerFailure(request, failure));
  }

  private io.vertx.core.Future<HttpClientResponse> send(
      HttpServerRequest request, RequestTarget target, HttpClientRequest originRequest) {
    originRequest.setMethod(request.method()).setURI(target.pathAndQuery());
    HostAndPort authority = authority(request, target);
    if (authority != null) {
      originRequest.authority(authority);
    }
    MultiMap in = request.headers();
    MultiMap out = originRequest.headers();
    copyHeaders(in, out);
    out.remove("host");
    // a client names its own address, scheme and host only through a trusted proxy: anything
    // else it sent in these headers is replaced, never appended to
    String peer = ClientAddress.peer(request);
    boolean viaProxy = clients.trusted(peer);
    String prior =
        viaProxy && out.contains("X-Forwarded-For")
            ? String.join(", ", out.getAll("X-Forwarded-For"))
            : null;
    if (!viaProxy) {
      out.remove("Forwarded");
      out.remove("X-Forwarded-Proto");
      out.remove("X-Forwarded-Host");
    }
    out.remove("X-Forwarded-For");
    if (peer != null) {
      out.set("X-Forwarded-For", prior == null ? peer : prior + ", " + peer);
    }
    if (!out.contains("X-Forwarded-Proto")) {
      out.set("X-Forwarded-Proto", request.isSSL() ? "https" : "http");
    }
    if (authority != null && !out.contains("X-Forwarded-Host")) {
      out.set("X-Forwarded-Host", authority.toString());
    }
    String length = in.get("content-length");
    String encoding = in.get("transfer-encoding");
    if (length == null && encoding == null) {
      request.resume(); // no body: let the request end
      return originRequest.send();
    }
    if (length == null) {
      originRequest.setChunked(true);
    }
    return originRequest.send(request);
  }

  /**
   * The authority to forward: the target's normalised host (the one the request was routed on) with
   * the port the client named, if any; null when the request named no host.
   */
  static HostAndPort authority(HttpServerRequest request, RequestTarget target) {
    if (target.host() == null) {
      return null;
    }
    String uri = request.uri();
    String named;
    if (uri.regionMatches(true, 0, "http://", 0, 7)
        || uri.regionMatches(true, 0, "https://", 0, 8)) {
      int start = uri.indexOf("//") + 2;
      int end = start;
      while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
        end++;
      }
      named = uri.substring(start, end);
    } else if (request.version() == HttpVersion.HTTP_2 && request.authority() != null) {
      return HostAndPort.create(target.host(), request.authority().port());
    } else {
      named = request.getHeader("Host");
    }
    int port = -1;
    if (named != null) {
      int colon = named.lastIndexOf(':');
      if (colon > named.lastIndexOf(']') && colon + 1 < named.length()) {
        port = Integer.parseInt(named.substring(colon + 1).strip()); // RequestTarget checked it
      }
    }
    return HostAndPort.create(target.host(), port);
  }

  /**
   * Copies every header but the hop-by-hop ones and those the {@code Connection} header names.
   * Vert.x header maps are iterated as the {@link CharSequence}s they hold: the request decoder's
   * values are {@code AsciiString}s, which the encoder writes as one block, where the {@code
   * String} view would be re-encoded character by character (measured: several µs per proxied
   * request on the headers of a browser).
   */
  private static void copyHeaders(MultiMap from, MultiMap to) {
    Set<String> named = connectionOptions(from.get("connection"));
    if (from instanceof io.netty.handler.codec.http.HttpHeaders netty) {
      var headers = netty.iteratorCharSequence();
      while (headers.hasNext()) {
        Map.Entry<CharSequence, CharSequence> header = headers.next();
        if (forwarded(header.getKey(), named)) {
          to.add(header.getKey(), header.getValue());
        }
      }
      return;
    }
    for (Map.Entry<String, String> header : from) {
      if (forwarded(header.getKey(), named)) {
        to.add(header.getKey(), header.getValue());
      }
    }
  }

  private static boolean forwarded(CharSequence name, Set<String> named) {
    return !isHopByHop(name)
        && (named == null || !named.contains(name.toString().toLowerCase(java.util.Locale.ROOT)));
  }

  /**
   * The header names a {@code Connection} header lists (RFC 9110 §7.6.1: connection-specific, so
   * never forwarded), lower case; null when it names none besides {@code close}/{@code keep-alive}.
   */
  static Set<String> connectionOptions(String connection) {
    if (connection == null) {
      return null;
    }
    Set<String> names = null;
    for (String token : connection.split(",")) {
      String name = token.trim().toLowerCase(java.util.Locale.ROOT);
      if (!name.isEmpty() && !name.equals("close") && !name.equals("keep-alive")) {
        if (names == null) {
          names = new java.util.HashSet<>();
        }
        names.add(name);
      }
    }
    return names;
  }

  private static boolean isHopByHop(CharSequence name) {
    return switch (name.length()) {
      case 2, 7, 10, 17, 16, 18, 19 -> {
        for (String hop : HOP_BY_HOP) {
          if (io.netty.util.AsciiString.contentEqualsIgnoreCase(name, hop)) {
            yield true;
          }
        }
        yield false;
      }
      default -> false;
    };
  }

  private void answerFailure(HttpServerRequest request, Throwable failure) {
    var response = request.response();
    if (response.headWritten()) {
      // the origin failed mid-body: nothing sensible can follow a started response
      response.reset();
      return;
    }
    request.resume(); // drain whatever body the origin did not take
    boolean timedOut =
        failure instanceof TimeoutException
            || failure.getCause() instanceof TimeoutException
            || failure.getClass().getSimpleName().contains("Timeout");
    int status = timedOut ? 504 : 502;
    String text =
        timedOut
            ? "504 Gateway Timeout: the site did not answer in time. Please try again shortly.\n"
            : "502 Bad Gateway: the site cannot be reached right now. Please try again shortly.\n";
    response.headers().clear();
    response
        .setStatusCode(status)
        .setStatusMessage(timedOut ? "Gateway Timeout" : "Bad Gateway")
        .putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("Cache-Control", "no-store")
        .end(text);
  }

  @Override
  public void close() {
    closed = true;
    perThread.values().forEach(HttpClient::close);
    perThread.clear();
    shared.close();
  }
}
