package io.anteroom.gateway;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.OriginRequestProvider;
import io.vertx.httpproxy.ProxyOptions;
import io.vertx.httpproxy.ProxyRequest;
import io.vertx.httpproxy.ProxyResponse;
import java.net.URI;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Forwards requests to one origin over a pooled keep-alive client: method, path, query, headers
 * and streamed bodies (Vert.x http-proxy), {@code X-Forwarded-For/-Proto/-Host} added, hop-by-hop
 * headers dropped (by http-proxy), WebSocket upgrades passed through. An origin that refuses the
 * connection answers 502, one that stays silent longer than the timeout 504, each with a plain
 * page: the client never hangs.
 *
 * <p>Thread safety: the Vert.x client and proxy are safe to share between event loops; this class
 * holds no other state.
 */
final class OriginProxy implements AutoCloseable {

  static final String REVOKE_HEADER = "Anteroom-Command";

  private final HttpClient client;
  private final HttpProxy webSockets;
  private final SocketAddress address;
  private final String originHost;
  private final long timeoutMillis;

  OriginProxy(Vertx vertx, URI origin, int timeoutSeconds) {
    boolean tls = "https".equals(origin.getScheme());
    int port = origin.getPort() > 0 ? origin.getPort() : tls ? 443 : 80;
    this.address = SocketAddress.inetSocketAddress(port, origin.getHost());
    this.originHost = origin.getHost();
    this.timeoutMillis = timeoutSeconds * 1000L;
    var options = new HttpClientOptions().setKeepAlive(true).setSsl(tls)
        .setConnectTimeout((int) Math.min(timeoutMillis, 10_000)).setMaxInitialLineLength(8192)
        .setMaxHeaderSize(65_536);
    if (tls) {
      options.setVerifyHost(true);
    }
    this.client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(256));
    this.webSockets = HttpProxy.reverseProxy(new ProxyOptions().setSupportWebSocket(true), client)
        .origin(OriginRequestProvider.fixedAddress(address));
  }

  /**
   * Forwards {@code request} (paused or not yet read) to the origin. {@code onResponse} may edit
   * the origin's response headers (cookies, revocation) before they are sent.
   */
  void forward(HttpServerRequest request, Consumer<ProxyResponse> onResponse) {
    if (request.canUpgradeToWebSocket()) {
      webSockets.handle(request);
      return;
    }
    ProxyRequest proxyRequest = ProxyRequest.reverseProxy(request);
    addForwardedHeaders(request, proxyRequest);
    client.request(new RequestOptions().setServer(address).setIdleTimeout(timeoutMillis))
        .compose(proxyRequest::send)
        .compose(response -> {
          onResponse.accept(response);
          return response.send();
        })
        .onFailure(failure -> answerFailure(request, proxyRequest, failure));
  }

  private static void addForwardedHeaders(HttpServerRequest request, ProxyRequest proxyRequest) {
    var headers = proxyRequest.headers();
    String clientIp = request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
    if (clientIp != null) {
      String prior = headers.get("X-Forwarded-For");
      headers.set("X-Forwarded-For", prior == null ? clientIp : prior + ", " + clientIp);
    }
    headers.set("X-Forwarded-Proto", request.isSSL() ? "https" : "http");
    if (request.authority() != null) {
      headers.set("X-Forwarded-Host", request.authority().toString());
    }
  }

  private void answerFailure(HttpServerRequest request, ProxyRequest proxyRequest,
      Throwable failure) {
    var response = request.response();
    if (response.headWritten()) {
      // the origin failed mid-body: nothing sensible can follow a started response
      response.reset();
      return;
    }
    proxyRequest.release();
    boolean timedOut = failure instanceof TimeoutException
        || failure.getCause() instanceof TimeoutException
        || failure.getClass().getSimpleName().contains("Timeout");
    int status = timedOut ? 504 : 502;
    String text = timedOut
        ? "504 Gateway Timeout: the site did not answer in time. Please try again shortly.\n"
        : "502 Bad Gateway: the site cannot be reached right now. Please try again shortly.\n";
    response.setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("Cache-Control", "no-store").end(text);
  }

  String originHost() {
    return originHost;
  }

  @Override
  public void close() {
    client.close();
  }

  static Future<Void> closeAll(Iterable<OriginProxy> proxies) {
    proxies.forEach(OriginProxy::close);
    return Future.succeededFuture();
  }
}
