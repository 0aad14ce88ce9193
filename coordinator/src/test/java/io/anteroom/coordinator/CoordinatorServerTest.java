package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.HttpObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The coordinator's server: its options and what it serves. */
class CoordinatorServerTest {

  @Test
  void halfATlsPairIsRefusedWhenTheOptionsAreMade() {
    assertThatThrownBy(
            () ->
                CoordinatorServer.Options.builder("127.0.0.1", 0)
                    .tls(Path.of("cert.pem"), null)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("coordinator TLS needs both a PEM certificate and its PEM private key");
    assertThatThrownBy(
            () ->
                CoordinatorServer.Options.builder("127.0.0.1", 0)
                    .tls(null, Path.of("key.pem"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theOptionsDefaultToUnauthenticatedPlainHttpWithoutWebhooks() {
    var options = CoordinatorServer.Options.builder("127.0.0.1", 7070).build();
    assertThat(options.secrets()).isEmpty();
    assertThat(options.tls()).isFalse();
    assertThat(options.webhooks()).isEqualTo(WebhookTargets.NONE);
  }

  @Test
  void withoutASecretItRefusesAnAddressOtherHostsReach() {
    try (Runtime runtime = Runtime.builder().storage(new InMemoryStorageEngine()).build()) {
      assertThatThrownBy(
              () ->
                  CoordinatorServer.serve(
                      runtime, CoordinatorServer.Options.builder("0.0.0.0", 0).build()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("refusing to serve objects on 0.0.0.0 without a shared secret");
    }
  }

  @Test
  void itServesWhatGatewaysCallSignedAndNotTheGlobalObjects() {
    SharedSecret secret = SharedSecret.generate("k1");
    try (Runtime runtime = Runtime.builder().storage(new InMemoryStorageEngine()).build();
        HttpObjectServer server =
            CoordinatorServer.serve(
                runtime,
                CoordinatorServer.Options.builder("127.0.0.1", 0)
                    .secrets(List.of(secret))
                    .build());
        var transport = HttpObjectTransport.builder(server.uri()).secret(secret).build()) {
      assertThat(server.authenticated()).isTrue();
      var global =
          transport.call(
              RoomObjects.GLOBAL_NAMESPACE,
              ObjectId.fromName(RoomObjects.GLOBAL_NAMESPACE, "shop"),
              "report",
              new byte[0]);
      assertThatThrownBy(global::join).hasMessageContaining("HTTP 404");
    }
  }
}
