package io.anteroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LoadRunTest {

  @Test
  void aRunStopsAtItsCountBoundAndCountsNoDuplicatesForUniqueTokens() throws Exception {
    AtomicLong counter = new AtomicLong();

    LoadRun.Measurement m =
        LoadRun.run("unique", 8, Duration.ofMinutes(1), 1_000, caller -> counter.getAndIncrement());

    assertThat(m.ops()).isEqualTo(1_000);
    assertThat(m.duplicates()).isZero();
    assertThat(m.p99Micros()).isGreaterThanOrEqualTo(m.p50Micros());
  }

  @Test
  void everyRepeatedTokenCountsAsADuplicate() throws Exception {
    AtomicLong counter = new AtomicLong();

    // each number is handed out twice
    LoadRun.Measurement m =
        LoadRun.run(
            "racy", 4, Duration.ofMinutes(1), 1_000, caller -> counter.getAndIncrement() / 2);

    assertThat(m.duplicates()).isEqualTo(500);
  }

  @Test
  void aFailingCallFailsTheRunWithItsCause() {
    assertThatThrownBy(
            () ->
                LoadRun.run(
                    "broken",
                    2,
                    Duration.ofMinutes(1),
                    100,
                    caller -> {
                      throw new IllegalStateException("disk gone");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broken with 2 callers failed")
        .hasRootCauseMessage("disk gone");
  }

  @Test
  void durationsAcceptShortFormsAndSayWhatIsAllowed() {
    ObjectsBenchmark.DurationConverter converter = new ObjectsBenchmark.DurationConverter();

    assertThat(converter.convert("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(converter.convert("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(converter.convert("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    assertThatThrownBy(() -> converter.convert("ten seconds"))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining("use e.g. 10s, 500ms, 2m or PT10S");
  }
}
