package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The one line a start logs about the AOT cache, from what the launcher says and the JVM did. */
class StartupCacheTest {

  @Test
  void aCacheTheJvmMappedIsReportedLoadedAndKept() {
    var line = StartupCache.line("use:/c/anteroom-1-run-java25.aot", true).orElseThrow();
    assertThat(line.text()).isEqualTo("start-up cache: loaded /c/anteroom-1-run-java25.aot");
    assertThat(line.remove()).isNull();
  }

  @Test
  void aCacheTheJvmCouldNotMapIsReportedAndRemovedSoThatANewOneIsTrained() {
    var line = StartupCache.line("use:/c/x.aot", false).orElseThrow();
    assertThat(line.text())
        .isEqualTo(
            "start-up cache: /c/x.aot does not fit this JVM (another JDK build, or other JVM"
                + " options): removed; the next start trains a new one");
    assertThat(line.remove()).isEqualTo(Path.of("/c/x.aot"));
  }

  @Test
  void trainingWaitingForAnotherProcessAndAFailedTrainingEachSayWhatHappensNext() {
    assertThat(StartupCache.line("train:/c/x.aot", true).orElseThrow().text())
        .isEqualTo(
            "start-up cache: none yet; a short run of this command on loopback ports trains it in"
                + " the background (niced, about a minute) and writes /c/x.aot; the next start"
                + " loads it");
    assertThat(StartupCache.line("busy:/c/x.aot", true).orElseThrow().text())
        .isEqualTo("start-up cache: none yet; another process of this install trains /c/x.aot");
    assertThat(StartupCache.line("failed:/c/x.log", true).orElseThrow().text())
        .startsWith(
            "start-up cache: none; training it failed (see /c/x.log), and it is not tried again"
                + " for this version");
    assertThat(StartupCache.line("nonsense", true)).isEmpty();
  }
}
