package io.anteroom.gateway;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.anteroom.room.CounterKey;

/**
 * The coordinator's HTTP protocol (JSON over HTTP/1.1, room records as Jackson writes them):
 * <ul>
 *   <li>{@code PUT /rooms/{roomId}} with a {@code RoomConfig}: announce or change a room (204)</li>
 *   <li>{@code POST /rooms/{roomId}/reports} with a {@code WorkerReport}: answers the
 *       {@code RoomState} of the report's data center</li>
 *   <li>{@code POST /rooms/{roomId}/take} with a {@link Take}: answers a {@code Grant}</li>
 *   <li>{@code DELETE /rooms/{roomId}}: forget a room (204)</li>
 *   <li>{@code GET /health}: 200 {@code ok}</li>
 * </ul>
 * Each request is one delivery: clients never retry a {@code take} (it could be applied twice);
 * a report carries its sequence number, so the data center applies a resent report once.
 */
final class CoordinatorProtocol {

  static final ObjectMapper JSON = new ObjectMapper()
      .registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** Body of a counter call. */
  record Take(CounterKey key, long limit) {}

  private CoordinatorProtocol() {}
}
