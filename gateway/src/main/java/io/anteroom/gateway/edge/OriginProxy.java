package io.anteroom.gateway.edge;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.route.ClientAddress;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AsciiString;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards requests to one origin over a pooled keep-alive client: method, path, query, headers and
 * streamed bodies, {@code X-Forwarded-For/-Proto/-Host} set (a client's own are kept and appended
 * to only when it is a trusted proxy, see {@link ClientAddress}), hop-by-hop headers dropped,
 * WebSocket upgrades passed through (Vert.x http-proxy). An origin that refuses the connection
 * answers 502, one that stays silent longer than the timeout 504, each with a plain page: the
 * client never hangs.
 *
 * <p>Ordinary requests go through {@link OriginClient}, written on Netty's HTTP codecs: each event
 * loop keeps its own keep-alive connections to the origin, so a request read on one loop is written
 * and answered on the same loop (no thread hand-off), and no Vert.x client request or response
 * object is built per request. WebSocket upgrades go through Vert.x http-proxy.
 *
 * <p>Thread safety: each event loop uses only its own origin connections; WebSocket upgrades use
 * one shared Vert.x client through http-proxy, which Vert.x allows.
 */
public final class OriginProxy implements AutoCloseable {

  public static final String REVOKE_HEADER = Door.COMMAND_HEADER;

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

  /**
   * Request header maps for the origin, without Netty's per-header validation: every name and value
   * in them was parsed from the client's request line by line by the listener's decoder (so holds
   * no line break), or is set here from the peer's address and the normalised target.
   */
  private static final DefaultHttpHeadersFactory HEADERS =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
  private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("X-Forwarded-Proto");
  private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("X-Forwarded-Host");
  private static final AsciiString HTTPS = AsciiString.cached("https");
  private static final AsciiString HTTP = AsciiString.cached("http");

  private final HttpClient shared;
  private final HttpProxy webSockets;
  private static final Logger LOG = LoggerFactory.getLogger(OriginProxy.class);

  private final OriginClient origin;
  private final ClientAddress clients;

  OriginProxy(Vertx vertx, URI origin, int timeoutSeconds, ClientAddress clients) {
    this.clients = clients;
    boolean tls = "https".equals(origin.getScheme());
    int port = origin.getPort() > 0 ? origin.getPort() : tls ? 443 : 80;
    SocketAddress address = SocketAddress.inetSocketAddress(port, origin.getHost());
    long timeoutMillis = timeoutSeconds * 1000L;
    this.origin = new OriginClient(vertx, origin, timeoutMillis);
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
    this.shared = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(256));
    this.webSockets =
        HttpProxy.reverseProxy(new ProxyOptions().setSupportWebSocket(true), shared)
            .origin(webSocketOrigin(OriginRequestProvider.fixedAddress(address)))
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

  /**
   * The origin side of a WebSocket tunnel is a client request whose connection was upgraded: when
   * either end closes the tunnel, Vert.x reports "Connection was closed" to that request and, with
   * no handler, logs it as an ERROR with a stack trace, for every WebSocket a browser closes. The
   * tunnel's end is ordinary; it is logged at DEBUG. A refused or failed upgrade still fails the
   * request's future, which http-proxy answers with 502.
   */
  private static OriginRequestProvider webSocketOrigin(OriginRequestProvider origin) {
    return context ->
        origin
            .create(context)
            .map(
                request ->
                    request.exceptionHandler(
                        e -> LOG.debug("WebSocket tunnel to the origin ended: {}", e.toString())));
  }

  /** The origin client (for tests). */
  OriginClient originClient() {
    return origin;
  }

  /** The event-loop threads that opened origin connections (for tests). */
  Set<Thread> clientThreads() {
    return origin.loopThreads();
  }

  /**
   * Forwards {@code request} (paused or not yet read) to the origin, with the normalised {@code
   * target}'s path, query and host: the origin sees what the room and its bypass rules judged,
   * never the raw request-target. {@code onResponse} may edit the response headers (cookies,
   * revocation) after the origin's status and headers are copied onto it and before they are sent.
   */
  void forward(
      HttpServerRequest request,
      RequestTarget target,
      List<Answer.Header> originHeaders,
      Consumer<HttpServerResponse> onResponse) {
    if (request.canUpgradeToWebSocket()) {
      webSockets.handle(request);
      return;
    }
    request.pause(); // no body byte may be lost while a pooled connection is found
    HttpHeaders out = HEADERS.newHeaders();
    copyHeaders(request.headers(), (name, value) -> out.add(ascii(name), ascii(value)));
    HostAndPort authority = authority(request, target);
    out.set(
        HttpHeaderNames.HOST,
        ascii(authority != null ? authority.toString() : origin.hostHeader()));
    // a client names its own address, scheme and host only through a trusted proxy: anything
    // else it sent in these headers is replaced, never appended to
    String peer = Gatekeeper.peer(request);
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
      out.set(X_FORWARDED_FOR, ascii(prior == null ? peer : prior + ", " + peer));
    }
    if (!out.contains("X-Forwarded-Proto")) {
      out.set(X_FORWARDED_PROTO, request.isSSL() ? HTTPS : HTTP);
    }
    if (authority != null && !out.contains("X-Forwarded-Host")) {
      out.set(X_FORWARDED_HOST, ascii(authority.toString()));
    }
    for (int i = 0; i < originHeaders.size(); i++) { // the door's word to the origin
      Answer.Header h = originHeaders.get(i);
      out.set(ascii(h.name()), ascii(h.value()));
    }
    MultiMap in = request.headers();
    boolean withBody = in.contains("content-length") || in.contains("transfer-encoding");
    DefaultHttpRequest head =
        new DefaultHttpRequest(
            io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
            io.netty.handler.codec.http.HttpMethod.valueOf(request.method().name()),
            target.pathAndQuery(),
            out);
    origin.send(request, head, withBody, onResponse, failure -> answerFailure(request, failure));
  }

  /**
   * Puts the origin's status and headers (hop-by-hop ones dropped) on {@code response}; a body of
   * unknown length is sent chunked to an HTTP/1.1 client.
   */
  static void copyResponseHead(
      HttpServerRequest request, HttpResponse originResponse, HttpServerResponse response) {
    int status = originResponse.status().code();
    response.setStatusCode(status);
    String message = originResponse.status().reasonPhrase();
    if (message != null) {
      response.setStatusMessage(message);
    }
    MultiMap headers = response.headers();
    copyHeaders(originResponse.headers(), (name, value) -> headers.add(ascii(name), ascii(value)));
    if (!headers.contains("content-length")
        && request.method() != HttpMethod.HEAD
        && status >= 200
        && status != 204
        && status != 304
        && request.version() != HttpVersion.HTTP_1_0) {
      response.setChunked(true); // a body of unknown length
    }
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
  private static void copyHeaders(
      Iterable<Map.Entry<String, String>> from, BiConsumer<CharSequence, CharSequence> to) {
    if (from instanceof io.netty.handler.codec.http.HttpHeaders netty) {
      Set<String> named = connectionOptions(netty.get("connection"));
      var headers = netty.iteratorCharSequence();
      while (headers.hasNext()) {
        Map.Entry<CharSequence, CharSequence> header = headers.next();
        if (forwarded(header.getKey(), named)) {
          to.accept(header.getKey(), header.getValue());
        }
      }
      return;
    }
    Set<String> named = connectionOptions(((MultiMap) from).get("connection"));
    for (Map.Entry<String, String> header : from) {
      if (forwarded(header.getKey(), named)) {
        to.accept(header.getKey(), header.getValue());
      }
    }
  }

  /**
   * {@code s} as an {@link AsciiString}: Netty's and Vert.x's header encoders copy those into the
   * outgoing buffer in one block, and write any other {@link CharSequence} one byte at a time (on
   * Java 25, where Netty runs without {@code sun.misc.Unsafe}, each byte through a bounds-checked
   * {@code ByteBuffer.put}: about a tenth of the admitted path's CPU in a profile). Header values
   * here are ASCII (or Latin-1 as the decoder read them), which AsciiString keeps byte for byte. A
   * {@code String} is copied with {@code getBytes(ISO_8859_1)}, one array copy for a Latin-1
   * string, where {@link AsciiString#of} reads it a bounds-checked {@code charAt} at a time; both
   * turn a character beyond Latin-1 into {@code ?}.
   */
  static AsciiString ascii(CharSequence s) {
    return s instanceof String string
        ? new AsciiString(string.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), false)
        : AsciiString.of(s);
  }

  private static boolean forwarded(CharSequence name, Set<String> named) {
    return !isHopByHop(name)
        && !reserved(name)
        && (named == null || !named.contains(name.toString().toLowerCase(java.util.Locale.ROOT)));
  }

  /**
   * Whether a client-sent header is one the door reserves for its own word to the origin ({@link
   * Door#RESERVED_REQUEST_HEADERS}): never forwarded as the client sent it.
   */
  static boolean reserved(CharSequence name) {
    return name.length() == RESERVED_LENGTH
        && Door.RESERVED_REQUEST_HEADERS.contains(
            name.toString().toLowerCase(java.util.Locale.ROOT));
  }

  private static final int RESERVED_LENGTH = "anteroom-pass".length();

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

  private static void answerFailure(HttpServerRequest request, Throwable failure) {
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
    origin.close();
    shared.close();
  }
}
