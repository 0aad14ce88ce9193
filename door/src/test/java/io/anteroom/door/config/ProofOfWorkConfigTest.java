package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import org.junit.jupiter.api.Test;

/** The room key {@code proofOfWork}: defaults, reading, errors, and the admin API's round trip. */
class ProofOfWorkConfigTest {

  @Test
  void offByDefaultWithTheDocumentedDefaults() {
    var room = ConfigLoader.parse("rooms: [ { id: shop } ]", "test").rooms().getFirst();
    assertThat(room.protection().proofOfWork())
        .isEqualTo(
            new ProofOfWork(false, ProofOfWork.DEFAULT_DIFFICULTY, 120, OnRepeatedFailure.NONE));
  }

  @Test
  void everyProofOfWorkKeyIsReadAndRoundTripsThroughTheAdminJson() {
    var room =
        ConfigLoader.parse(
                """
        rooms:
          - id: shop
            proofOfWork: { enabled: true, difficulty: 20, challengeTtlSeconds: 300,
                           onRepeatedFailure: endlessQueue }
        """,
                "test")
            .rooms()
            .getFirst();
    assertThat(room.protection().proofOfWork())
        .isEqualTo(new ProofOfWork(true, 20, 300, OnRepeatedFailure.ENDLESS_QUEUE));
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(room).toString())).isEqualTo(room);
  }

  @Test
  void badValuesAreErrorsNamingTheKey() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: shop
            proofOfWork: { enabled: yes please, difficulty: 33, challengeTtlSeconds: 5,
                           onRepeatedFailure: endless, dificulty: 3 }
        """,
                    "anteroom.yaml"))
        .hasMessageContaining("rooms[0].proofOfWork.enabled")
        .hasMessageContaining("rooms[0].proofOfWork.difficulty")
        .hasMessageContaining("allowed: 1 to 32")
        .hasMessageContaining("rooms[0].proofOfWork.challengeTtlSeconds")
        .hasMessageContaining(
            "rooms[0].proofOfWork.onRepeatedFailure: \"endless\" is not allowed; allowed: none,"
                + " endlessQueue")
        .hasMessageContaining("rooms[0].proofOfWork.dificulty: unknown key");
  }
}
