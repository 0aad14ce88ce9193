package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

  static final byte[] SECRET = "s3cret-of-32-bytes-or-so........".getBytes(StandardCharsets.UTF_8);

  @Test
  void aSignedBodyVerifiesAndAnyChangeToItOrTheSecretOrTheTimeDoesNot() {
    String body = "{\"id\":\"shop/1\"}";
    String h = WebhookSignature.header(SECRET, body, 1_700_000_000L);
    assertThat(h).startsWith("t=1700000000,v1=");
    assertThat(WebhookSignature.verify(SECRET, body, h, 1_700_000_010L, 300)).isTrue();
    assertThat(WebhookSignature.verify(SECRET, body + " ", h, 1_700_000_010L, 300)).isFalse();
    assertThat(
            WebhookSignature.verify(
                "other".getBytes(StandardCharsets.UTF_8), body, h, 1_700_000_010L, 300))
        .isFalse();
    assertThat(
            WebhookSignature.verify(
                SECRET, body, h.replace("t=1700000000", "t=1700000001"), 1_700_000_010L, 300))
        .isFalse();
    assertThat(WebhookSignature.verify(SECRET, body, h, 1_700_000_400L, 300))
        .as("too old")
        .isFalse();
    assertThat(WebhookSignature.verify(SECRET, body, null, 1_700_000_010L, 300)).isFalse();
  }

  @Test
  void theSignatureIsHmacSha256OfTheTimeADotAndTheBody() throws Exception {
    // the recipe of docs/reports.md, with the JDK
    var mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(SECRET, "HmacSHA256"));
    String expected =
        java.util.HexFormat.of().formatHex(mac.doFinal("42.{}".getBytes(StandardCharsets.UTF_8)));
    assertThat(WebhookSignature.header(SECRET, "{}", 42)).isEqualTo("t=42,v1=" + expected);
  }
}
