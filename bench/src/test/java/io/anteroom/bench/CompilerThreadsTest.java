package io.anteroom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class CompilerThreadsTest {

  @Test
  @EnabledOnOs(OS.LINUX)
  void theCompilersOfAJvmThatHasRunCodeHaveUsedCpu() {
    // this JVM has compiled the test framework's hot methods by the time a test runs
    OptionalLong nanos = CompilerThreads.cpuNanos(ProcessHandle.current().pid());
    assertThat(nanos).isPresent();
    assertThat(nanos.getAsLong()).isPositive();
  }

  @Test
  void aProcessThatDoesNotExistHasNoCompilers() {
    assertThat(CompilerThreads.cpuNanos(Long.MAX_VALUE)).isEmpty();
  }
}
