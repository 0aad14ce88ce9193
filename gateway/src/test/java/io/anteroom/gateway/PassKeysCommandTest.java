package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.pass.PassKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code anteroom pass-keys list|rotate|retire}: the pass keys for operators. */
class PassKeysCommandTest {

  @TempDir Path dir;

  record Outcome(int exit, String out, String err) {}

  static Outcome run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  @Test
  void rotateAddsASigningKeyTheOldStillVerifiesAndRetireRemovesIt() {
    Path data = dir.resolve("data");
    String first = PassKeys.openOrCreate(data).currentKeyId();
    Path file = data.resolve(PassKeys.FILE);

    Outcome list = run("pass-keys", "list", "--data-dir", data.toString());
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out()).contains("pass keys in " + file, first + "  signs");

    Outcome rotate = run("pass-keys", "rotate", "--data-dir", data.toString());
    assertThat(rotate.exit()).as(rotate.err()).isZero();
    PassKeys rotated = PassKeys.read(file);
    String second = rotated.currentKeyId();
    assertThat(rotated.keyIds()).containsExactly(second, first);
    assertThat(rotate.out())
        .contains("rotated: " + second + " signs passes", first + " still verify")
        .contains("anteroom pass-keys retire " + first)
        .contains(second + "  signs", first + "  verifies");

    Outcome retire = run("pass-keys", "retire", first, "--data-dir", data.toString());
    assertThat(retire.exit()).as(retire.err()).isZero();
    assertThat(retire.out()).contains("retired: " + first);
    assertThat(PassKeys.read(file).keyIds()).containsExactly(second);
  }

  @Test
  void theSigningKeyAndAnUnknownKeyCannotBeRetired() {
    Path data = dir.resolve("data");
    String signing = PassKeys.openOrCreate(data).currentKeyId();

    Outcome current = run("pass-keys", "retire", signing, "--data-dir", data.toString());
    assertThat(current.exit()).isEqualTo(2);
    assertThat(current.err())
        .contains("key " + signing)
        .contains("signs passes and cannot be retired; rotate first");

    Outcome unknown = run("pass-keys", "retire", "nope", "--data-dir", data.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("has no key nope to retire");
    assertThat(PassKeys.read(data.resolve(PassKeys.FILE)).keyIds()).containsExactly(signing);
  }

  @Test
  void theFileIsFoundThroughTheConfigsDataDirAndNeverCreated() throws Exception {
    Path data = dir.resolve("data");
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(config, "dataDir: " + data + "\n");

    Outcome missing = run("pass-keys", "rotate", "--config", config.toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err())
        .contains("no pass key file " + data.resolve(PassKeys.FILE))
        .contains("anteroom pass-keys create");
    assertThat(data.resolve(PassKeys.FILE)).doesNotExist();

    String first = PassKeys.openOrCreate(data).currentKeyId();
    Outcome list = run("pass-keys", "list", "--config", config.toString());
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out()).contains(first + "  signs");
  }

  @Test
  void withoutACommandItSaysWhichThereAre() {
    Outcome o = run("pass-keys");
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("create, list, rotate or retire KID");
  }

  @Test
  void createMakesTheFileOnceAndKeepsAnExistingOne() {
    Path data = dir.resolve("data");
    Path file = data.resolve(PassKeys.FILE);

    Outcome created = run("pass-keys", "create", "--data-dir", data.toString());
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.out()).contains("created " + file);
    String kid = PassKeys.read(file).currentKeyId();

    Outcome again = run("pass-keys", "create", "--data-dir", data.toString());
    assertThat(again.exit()).isZero();
    assertThat(again.out()).contains(file + " exists: kept as it is", kid + "  signs");
    assertThat(PassKeys.read(file).currentKeyId()).isEqualTo(kid);
  }
}
