package io.anteroom.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local stand-in for a human-check provider (Turnstile, hCaptcha, reCAPTCHA), on 127.0.0.1: its
 * siteverify endpoint ({@code POST /siteverify}: a token {@code good-...} holds once, with the
 * right secret; anything else is refused with the providers' error codes; {@link #down} answers
 * 503) and a stand-in widget script ({@code GET /api.js}) that, like the real ones, finds the
 * widget element by its class and calls its {@code data-callback} with a fresh good token. Never
 * the real CDN.
 */
public final class SiteVerifyStandIn implements AutoCloseable {
  private static final String WIDGET =
      """
      (function () {
        function go() {
          document.querySelectorAll(".cf-turnstile, .h-captcha, .g-recaptcha").forEach(function (el) {
            var done = window[el.getAttribute("data-callback")];
            var token = "good-" + el.getAttribute("data-sitekey") + "-" + Math.random().toString(36).slice(2);
            el.textContent = "stand-in widget: done";
            setTimeout(function () { done(token); }, 20);
          });
        }
        if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", go); } else { go(); }
      })();
      """;

  private final HttpServer server;
  private final String secret;
  private final Set<String> used = ConcurrentHashMap.newKeySet();

  /** The forms the endpoint received, in order (secret, response, remoteip). */
  public final List<Map<String, String>> calls = new CopyOnWriteArrayList<>();

  /** While true, siteverify answers 503. */
  public volatile boolean down;

  public SiteVerifyStandIn(String secret) throws IOException {
    this.secret = secret;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/siteverify", this::verify);
    server.createContext("/api.js", e -> send(e, 200, "application/javascript", WIDGET));
    server.start();
  }

  public String verifyUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/siteverify";
  }

  public String scriptUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/api.js";
  }

  private void verify(HttpExchange e) throws IOException {
    if (down) {
      send(e, 503, "text/plain", "down");
      return;
    }
    var form = new HashMap<String, String>();
    String body = new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        form.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    calls.add(form);
    String token = form.getOrDefault("response", "");
    String answer;
    if (!secret.equals(form.get("secret"))) {
      answer = "{\"success\": false, \"error-codes\": [\"invalid-input-secret\"]}";
    } else if (!token.startsWith("good-")) {
      answer = "{\"success\": false, \"error-codes\": [\"invalid-input-response\"]}";
    } else if (!used.add(token)) {
      answer = "{\"success\": false, \"error-codes\": [\"timeout-or-duplicate\"]}";
    } else {
      answer = "{\"success\": true, \"hostname\": \"localhost\"}";
    }
    send(e, 200, "application/json", answer);
  }

  private static void send(HttpExchange e, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    e.getResponseHeaders().set("Content-Type", type);
    e.sendResponseHeaders(status, bytes.length);
    try (var out = e.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
