package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The start-up cache's training run exercises what a start and a sale exercise: the origin behind
 * an admitted user, the queue past the room's limit, the bypassed assets and the admin API, for
 * each long-running command's topology; then it stops what it started.
 */
class StartupTrainingTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"run", "gateway"})
  void theTrainingSendsAdmittedQueuedBypassedAndAdminRequests(String command) throws Exception {
    List<String> got = StartupTraining.train(command, dir.resolve(command));

    assertThat(got).contains("/ 200 origin", "/static/app.css 200 origin");
    assertThat(got).as("visitors past T = 2 queue").anyMatch(g -> g.endsWith(" room"));
    assertThat(got)
        .contains(
            "admin /health 200", "admin /metrics 200", "admin /api/status 200", "admin / 200");
  }
}
