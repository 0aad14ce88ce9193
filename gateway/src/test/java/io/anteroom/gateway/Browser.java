package io.anteroom.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One user with its own cookie jar, over an HTTP client it is given (the jar is ours, so a hundred
 * users share one client; the client belongs to the test, e.g. {@link Harness#client}).
 */
public final class Browser {
  /** A new HTTP/1.1 client for tests; the caller closes it. */
  public static HttpClient newClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private final HttpClient client;

  public final Map<String, String> cookies;
  private final String base;

  public Browser(HttpClient client, String base) {
    this(client, base, new LinkedHashMap<>());
  }

  /** A browser on {@code base} sharing {@code cookies} with others (one user, several hosts). */
  public Browser(HttpClient client, String base, Map<String, String> cookies) {
    this.client = client;
    this.base = base;
    this.cookies = cookies;
  }

  public CompletableFuture<HttpResponse<String>> getAsync(String path, String... headers) {
    return sendAsync("GET", path, headers);
  }

  /** A request with {@code method} (and an empty body). */
  public HttpResponse<String> send(String method, String path, String... headers) {
    return sendAsync(method, path, headers).join();
  }

  private CompletableFuture<HttpResponse<String>> sendAsync(
      String method, String path, String... headers) {
    var b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (!method.equals("GET")) { // a GET exactly as before: no body, no Content-Length
      b.method(method, HttpRequest.BodyPublishers.ofString(""));
    }
    if (headers.length > 0) {
      b.headers(headers);
    }
    String cookie = cookieHeader();
    if (!cookie.isEmpty()) {
      b.header("Cookie", cookie);
    }
    return client
        .sendAsync(b.build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(
            r -> {
              for (String set : r.headers().allValues("set-cookie")) {
                String pair = set.split(";", 2)[0];
                int eq = pair.indexOf('=');
                String name = pair.substring(0, eq).trim();
                String value = pair.substring(eq + 1).trim();
                synchronized (cookies) {
                  if (value.isEmpty() || set.toLowerCase().contains("max-age=0")) {
                    cookies.remove(name);
                  } else {
                    cookies.put(name, value);
                  }
                }
              }
              return r;
            });
  }

  /** The {@code Cookie} header this browser sends now (empty when it holds no cookie). */
  public String cookieHeader() {
    synchronized (cookies) {
      var sb = new StringBuilder();
      cookies.forEach(
          (k, v) -> sb.append(sb.isEmpty() ? "" : "; ").append(k).append('=').append(v));
      return sb.toString();
    }
  }

  public HttpResponse<String> get(String path, String... headers) {
    return getAsync(path, headers).join();
  }

  public static boolean reachedOrigin(HttpResponse<String> r) {
    return r.body().startsWith("origin:");
  }
}
