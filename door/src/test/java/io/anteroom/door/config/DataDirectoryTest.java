package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.testkit.ChildProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {

  @TempDir Path dir;

  /** The other process: claims the directory given, says so, and holds it until stdin closes. */
  public static void main(String[] args) throws Exception {
    DataDirectory.claim(Path.of(args[0]));
    ChildProcess.printLine("claimed");
    ChildProcess.awaitParentGone(); // holds the claim until then
  }

  @Test
  void aSecondProcessOnTheSameDataDirectoryIsRefusedWithTheOwnersPid() throws Exception {
    Path shared = dir.resolve("data");
    Process other =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    DataDirectoryTest.class.getName(),
                    shared.toString()))
            .redirectErrorStream(true)
            .start();
    try {
      var out = new BufferedReader(new InputStreamReader(other.getInputStream()));
      assertThat(out.readLine()).isEqualTo("claimed");

      assertThatThrownBy(() -> DataDirectory.claim(shared))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is in use by another Anteroom process (pid " + other.pid() + ")")
          .hasMessageContaining("--data-dir");

      other.getOutputStream().close(); // the other process ends, and with it its lock
      other.waitFor();
      assertThat(DataDirectory.claim(shared)).isEqualTo(shared);
      assertThat(Files.readString(shared.resolve(DataDirectory.LOCK_FILE)).strip())
          .isEqualTo(Long.toString(ProcessHandle.current().pid()));
    } finally {
      other.destroyForcibly();
    }
  }

  @Test
  void aMissingDirectoryIsCreatedAndClaimingItAgainInOneProcessIsFine() {
    Path fresh = dir.resolve("a/b");

    DataDirectory.claim(fresh);
    DataDirectory.claim(fresh);

    assertThat(fresh.resolve(DataDirectory.LOCK_FILE)).exists();
  }
}
