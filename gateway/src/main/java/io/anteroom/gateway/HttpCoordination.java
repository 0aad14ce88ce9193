package io.anteroom.gateway;

import static io.anteroom.gateway.CoordinatorProtocol.JSON;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomState;
import io.anteroom.room.WorkerReport;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * A {@link Coordination} on a remote coordinator ({@code anteroom gateway --coordinator URL}),
 * speaking {@link CoordinatorProtocol}. Never retries: a failed call completes exceptionally
 * (with the URL in the message) and the room's {@code failMode} decides; every call ends within
 * the timeout.
 */
final class HttpCoordination implements Coordination {

  private final URI base;
  private final Duration timeout;
  private final HttpClient client;

  HttpCoordination(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(timeout).build();
  }

  @Override
  public CompletionStage<Void> configure(RoomConfig config) {
    return send("PUT", config.roomId(), "", config).thenApply(r -> null);
  }

  @Override
  public CompletionStage<RoomState> report(String roomId, WorkerReport report) {
    return send("POST", roomId, "/reports", report).thenApply(b -> read(b, RoomState.class));
  }

  @Override
  public CompletionStage<Grant> take(CounterKey key, long limit) {
    return send("POST", key.roomId(), "/take", new CoordinatorProtocol.Take(key, limit))
        .thenApply(b -> read(b, Grant.class));
  }

  @Override
  public CompletionStage<Void> remove(String roomId) {
    return send("DELETE", roomId, "", null).thenApply(r -> null);
  }

  private CompletableFuture<byte[]> send(String method, String roomId, String action,
      Object body) {
    URI uri = base.resolve("/rooms/" + URLEncoder.encode(roomId, StandardCharsets.UTF_8)
        + action);
    HttpRequest request;
    try {
      request = HttpRequest.newBuilder(uri).timeout(timeout)
          .header("Content-Type", "application/json")
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
          .build();
    } catch (JsonProcessingException e) {
      return CompletableFuture.failedFuture(e);
    }
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(r -> {
          if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("coordinator " + uri + " answered " + r.statusCode()
                + ": " + new String(r.body(), StandardCharsets.UTF_8).strip());
          }
          return r.body();
        });
  }

  private static <T> T read(byte[] body, Class<T> type) {
    try {
      return JSON.readValue(body, type);
    } catch (IOException e) {
      throw new UncheckedIOException("coordinator reply is not a " + type.getSimpleName(), e);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
