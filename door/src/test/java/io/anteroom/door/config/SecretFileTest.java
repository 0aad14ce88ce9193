package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretFileTest {
  @TempDir Path dir;

  @Test
  void aCreatedSecretIsWholeOwnerOnlyAndLeavesNoTemporaryFile() throws Exception {
    Path file = dir.resolve("data/ticket-keys");

    assertThat(SecretFile.createIfAbsent(file, "1 secret\n")).isTrue();

    assertThat(file).hasContent("1 secret");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    try (Stream<Path> files = Files.list(file.getParent())) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void aSecretThatExistsIsNeverReplaced() throws Exception {
    Path file = dir.resolve("admin-token");
    Files.writeString(file, "theirs\n");

    assertThat(SecretFile.createIfAbsent(file, "ours\n")).isFalse();

    assertThat(file).hasContent("theirs");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void aSecretOthersMayReadIsNamedWithItsModeAndTheFix() throws Exception {
    Path file = dir.resolve("ticket-keys");
    SecretFile.createIfAbsent(file, "1 secret\n");
    assertThat(SecretFile.exposure(file)).isEmpty();

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    assertThat(SecretFile.exposure(file))
        .hasValueSatisfying(
            m -> assertThat(m).contains(file.toString(), "rw-r--r--", "chmod 600 " + file));
  }
}
