package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.room.ConfigAgreement.Fingerprint;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ConfigAgreementTest {

  private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
  private static final Duration WINDOW = Duration.ofSeconds(60);

  private static Fingerprint fp(String gateway, String hash, long generation) {
    return new Fingerprint(gateway, "dc-" + gateway, hash, generation);
  }

  @Test
  void gatewaysWithTheSameFingerprintAgree() {
    var a = new ConfigAgreement(WINDOW);
    a.see(fp("a", "h1", 0), T0);
    a.see(fp("b", "h1", 0), T0);
    var v = a.verdict(T0);
    assertThat(v.conflict()).isFalse();
    assertThat(v.authoritative().hash()).isEqualTo("h1");
    assertThat(v.disagrees("h1")).isFalse();
  }

  @Test
  void beforeAnyReportNothingIsKnownAndNothingDisagrees() {
    var v = new ConfigAgreement(WINDOW).verdict(T0);
    assertThat(v.authoritative()).isNull();
    assertThat(v.conflict()).isFalse();
    assertThat(v.disagrees("anything")).isFalse();
  }

  @Test
  void theFirstSeenFingerprintIsAuthoritativeAndALaterDifferentOneIsReported() {
    var a = new ConfigAgreement(WINDOW);
    a.see(fp("b", "h2", 0), T0);
    a.see(fp("a", "h1", 0), T0.plusSeconds(1));
    var v = a.verdict(T0.plusSeconds(1));
    assertThat(v.authoritative().gateway()).isEqualTo("b");
    assertThat(v.conflict()).isTrue();
    assertThat(v.disagreeing()).extracting(Fingerprint::gateway).containsExactly("a");
    assertThat(v.disagrees("h1")).isTrue();
  }

  @Test
  void theAuthoritativeFingerprintIsStickyAsLongAsAGatewayReportsIt() {
    var a = new ConfigAgreement(WINDOW);
    a.see(fp("a", "h1", 0), T0);
    a.see(fp("b", "h2", 0), T0.plusSeconds(1));
    assertThat(a.verdict(T0.plusSeconds(1)).authoritative().hash()).isEqualTo("h1");
    // a restarts with h2 too, then another gateway comes with h1: h1 stays while reported
    a.see(fp("c", "h1", 0), T0.plusSeconds(30));
    a.see(fp("a", "h2", 0), T0.plusSeconds(31));
    var v = a.verdict(T0.plusSeconds(31));
    assertThat(v.authoritative().hash()).isEqualTo("h1");
    assertThat(v.disagreeing()).extracting(Fingerprint::gateway).containsExactly("a", "b");
  }

  @Test
  void aNewerGenerationWinsAtOnce() {
    var a = new ConfigAgreement(WINDOW);
    a.see(fp("a", "h1", 0), T0);
    a.see(fp("b", "h2", 7), T0.plusSeconds(1));
    var v = a.verdict(T0.plusSeconds(1));
    assertThat(v.authoritative().hash()).isEqualTo("h2");
    assertThat(v.disagreeing()).extracting(Fingerprint::gateway).containsExactly("a");
  }

  @Test
  void gatewaysNotHeardFromWithinTheWindowNoLongerCountSoARollingUpdateEnds() {
    var a = new ConfigAgreement(WINDOW);
    a.see(fp("old", "h1", 0), T0);
    a.see(fp("new", "h2", 0), T0.plusSeconds(1));
    assertThat(a.verdict(T0.plusSeconds(1)).conflict()).isTrue();
    a.see(fp("new", "h2", 0), T0.plusSeconds(70));
    var v = a.verdict(T0.plusSeconds(70));
    assertThat(v.conflict()).isFalse();
    assertThat(v.authoritative().hash()).isEqualTo("h2");
  }

  @Test
  void theVerdictIsTheSameWhateverTheOrderOfGatewaysWithinOneInstant() {
    var x = new ConfigAgreement(WINDOW);
    x.see(fp("a", "h1", 0), T0);
    x.see(fp("b", "h2", 0), T0);
    var y = new ConfigAgreement(WINDOW);
    y.see(fp("b", "h2", 0), T0);
    y.see(fp("a", "h1", 0), T0);
    assertThat(x.verdict(T0)).isEqualTo(y.verdict(T0));
    assertThat(x.verdict(T0).authoritative().gateway()).isEqualTo("a"); // ties: by gateway id
  }
}
