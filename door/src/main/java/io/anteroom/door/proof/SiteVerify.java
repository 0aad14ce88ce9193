package io.anteroom.door.proof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The siteverify protocol of Cloudflare Turnstile, hCaptcha and reCAPTCHA: a form {@code POST} of
 * {@code secret}, {@code response} (the widget's token) and {@code remoteip} to the provider's
 * endpoint, answered with JSON whose {@code success} says whether the token holds ({@code
 * error-codes} why not). A token is single use at the provider, so a replayed one fails there.
 * Anything but a 200 with a JSON {@code success} boolean within the timeout is {@link
 * HumanVerifier.Outcome#UNAVAILABLE}. Thread-safe.
 */
public final class SiteVerify implements HumanVerifier {

  /** Longer tokens are refused without a call (the providers' are at most 2,048 characters). */
  public static final int MAX_TOKEN_CHARS = 4096;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI url;
  private final String secret;
  private final Duration timeout;
  private final HttpClient client;

  public SiteVerify(URI url, String secret, Duration timeout) {
    this.url = url;
    this.secret = secret;
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public CompletionStage<Result> verify(String token, String remoteIp) {
    if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_CHARS) {
      return CompletableFuture.completedFuture(new Result(Outcome.FAILED, "malformed"));
    }
    String form =
        "secret="
            + enc(secret)
            + "&response="
            + enc(token)
            + (remoteIp == null ? "" : "&remoteip=" + enc(remoteIp));
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(timeout)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    try {
      return client
          .sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .handle(
              (response, failure) -> {
                if (failure != null) {
                  Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                  return new Result(Outcome.UNAVAILABLE, cause.getClass().getSimpleName());
                }
                return read(response);
              });
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          new Result(Outcome.UNAVAILABLE, e.getClass().getSimpleName()));
    }
  }

  private static Result read(HttpResponse<String> response) {
    if (response.statusCode() != 200) {
      return new Result(Outcome.UNAVAILABLE, "HTTP " + response.statusCode());
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (java.io.IOException e) {
      return new Result(Outcome.UNAVAILABLE, "not JSON");
    }
    JsonNode success = body == null ? null : body.get("success");
    if (success == null || !success.isBoolean()) {
      return new Result(Outcome.UNAVAILABLE, "no success field");
    }
    if (success.asBoolean()) {
      return new Result(Outcome.PASSED, "");
    }
    var codes = new StringBuilder();
    body.path("error-codes")
        .forEach(c -> codes.append(codes.isEmpty() ? "" : ",").append(c.asText()));
    return new Result(Outcome.FAILED, codes.isEmpty() ? "refused" : codes.toString());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
