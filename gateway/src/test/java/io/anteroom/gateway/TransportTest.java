package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.transport.Transport;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway's event loops run on the configured transport and serve the room on it. */
class TransportTest {

  private static final String ROOM = "rooms: [ { id: shop, totalActiveUsers: 5 } ]";

  @TempDir Path dataDir;

  @Test
  void withTransportNioTheEventLoopsAreNotNative() throws Exception {
    try (var h = new Harness(dataDir, "transport: nio\n" + ROOM)) {
      assertThat(h.gateway.vertx().isNativeTransportEnabled()).isFalse();
      assertThat(admittedPage(h)).isEqualTo(200);
    }
  }

  @Test
  void byDefaultTheEventLoopsRunOnIoUringExactlyWhereItIsAvailable() throws Exception {
    try (var h = new Harness(dataDir, ROOM)) {
      assertThat(h.gateway.vertx().isNativeTransportEnabled())
          .as("io_uring available here: %s", Transport.IO_URING.available())
          .isEqualTo(Transport.IO_URING.available());
      assertThat(admittedPage(h)).isEqualTo(200);
    }
  }

  private static int admittedPage(Harness h) throws Exception {
    HttpResponse<String> r =
        h.client.send(
            HttpRequest.newBuilder(URI.create(h.url() + "/")).build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }
}
