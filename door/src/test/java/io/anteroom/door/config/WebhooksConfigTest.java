package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code admin.webhooks}: URLs and a signing secret file, every problem named at once. */
class WebhooksConfigTest {

  @TempDir Path dir;

  @Test
  void urlsAndTheSecretFilesContentAreRead() throws Exception {
    Path secret = dir.resolve("webhook-secret");
    Files.writeString(secret, "0123456789abcdef0123456789abcdef\n");
    GatewayConfig c =
        ConfigLoader.parse(
            """
            admin:
              webhooks: { urls: [ "https://hooks.example.com/a", "http://127.0.0.1:9000/b" ], secretFile: %s }
            """
                .formatted(secret),
            "x");
    assertThat(c.admin().webhooks().urls())
        .containsExactly(
            URI.create("https://hooks.example.com/a"), URI.create("http://127.0.0.1:9000/b"));
    assertThat(c.admin().webhooks().secret()).isEqualTo("0123456789abcdef0123456789abcdef");
    assertThat(c.admin().webhooks().toString()).doesNotContain("0123456789abcdef");
    assertThat(ConfigLoader.parse("listen: 127.0.0.1:1", "x").admin().webhooks().urls()).isEmpty();
  }

  @Test
  void otherListenAddressesKeepTheWebhooksAndTheRestOfTheAdminSettings() throws Exception {
    Path secret = dir.resolve("webhook-secret");
    Files.writeString(secret, "0123456789abcdef0123456789abcdef\n");
    GatewayConfig c =
        ConfigLoader.parse(
            """
            admin:
              webhooks: { urls: [ "https://hooks.example.com/a" ], secretFile: %s }
            """
                .formatted(secret),
            "x");
    var listen = new GatewayConfig.HostPort("127.0.0.1", 18080);
    var adminListen = new GatewayConfig.HostPort("127.0.0.1", 19090);

    GatewayConfig moved = c.withListen(listen, adminListen); // run --listen/--admin-listen

    assertThat(moved.listen()).isEqualTo(listen);
    assertThat(moved.admin().listen()).isEqualTo(adminListen);
    assertThat(moved.admin().webhooks()).isEqualTo(c.admin().webhooks());
    assertThat(moved.admin().webhooks().urls()).hasSize(1);
    assertThat(moved.admin().withListen(c.admin().listen())).isEqualTo(c.admin());
  }

  @Test
  void everyProblemOfTheWebhooksIsNamedAtOnce() throws Exception {
    Path shortSecret = dir.resolve("short");
    Files.writeString(shortSecret, "too-short");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
                    admin:
                      webhooks:
                        urls: [ "ftp://x", "https://u:p@hooks.example.com/", "https://a.example/", "https://a.example/" ]
                        secretFile: %s
                        retries: 3
                    """
                        .formatted(shortSecret),
                    "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "admin.webhooks.urls[0]: \"ftp://x\" is not an http:// or https:// URL")
        .hasMessageContaining(
            "admin.webhooks.urls[1]: \"https://u:p@hooks.example.com/\" carries user information")
        .hasMessageContaining("admin.webhooks.urls[3]: \"https://a.example/\" is listed twice")
        .hasMessageContaining(
            "admin.webhooks.secretFile: " + shortSecret + " holds 9 characters; at least 32")
        .hasMessageContaining("admin.webhooks.retries");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("admin: { webhooks: { urls: [ 'https://a.example/' ] } }", "x"))
        .hasMessageContaining("admin.webhooks.secretFile: missing");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "admin: { webhooks: { secretFile: " + dir.resolve("none") + " } }", "x"))
        .hasMessageContaining("cannot read " + dir.resolve("none") + " (no such file)")
        .hasMessageContaining("admin.webhooks.urls: missing");
  }
}
