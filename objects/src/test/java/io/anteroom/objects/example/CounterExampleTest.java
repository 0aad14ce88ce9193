package io.anteroom.objects.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.Runtime;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README example compiles from another package and counts across restarts. */
class CounterExampleTest {
  @Test
  void readmeCounterCountsAcrossRestarts(@TempDir Path dir) {
    for (long expected = 0; expected < 3; expected++) {
      try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
        var counters =
            runtime.namespace(
                "counter",
                CounterExample.Counter.class,
                ctx -> new CounterExample.CounterObject(ctx));
        assertThat(counters.get("orders").next()).isEqualTo(expected);
      }
    }
  }
}
