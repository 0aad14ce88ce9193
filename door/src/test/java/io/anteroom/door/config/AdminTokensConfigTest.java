package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.NamedToken;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code admin.tokens}: named, scoped tokens beside {@code admin.token}, checked one line each. */
class AdminTokensConfigTest {

  @TempDir Path dir;

  @Test
  void tokensAreNamedAndScopedAndReadFromFiles() throws Exception {
    Path file = dir.resolve("desk-token");
    Files.writeString(file, "desk-token-0123456789\n");
    GatewayConfig c =
        ConfigLoader.parse(
            """
            admin:
              token: admin-token-0123456789
              tokens:
                - { name: desk, scope: read, tokenFile: %s }
                - { name: ops, scope: operate, token: ops-token-0123456789 }
            """
                .formatted(file),
            "x");
    assertThat(c.admin().tokens())
        .containsExactly(
            new NamedToken("admin", AdminScope.ADMIN, "admin-token-0123456789"),
            new NamedToken("desk", AdminScope.READ, "desk-token-0123456789"),
            new NamedToken("ops", AdminScope.OPERATE, "ops-token-0123456789"));
    assertThat(c.admin().tokens().get(1).toString())
        .as("a token's secret is never printed")
        .doesNotContain("desk-token-0123456789");
  }

  @Test
  void theSingleTokenStaysTheTokenNamedAdminWithEveryScope() {
    GatewayConfig c = ConfigLoader.parse("admin: { token: admin-token-0123456789 }", "x");
    assertThat(c.admin().tokens())
        .containsExactly(new NamedToken("admin", AdminScope.ADMIN, "admin-token-0123456789"));
    assertThat(ConfigLoader.parse("listen: 127.0.0.1:1", "x").admin().tokens())
        .as("none configured: the generated token, resolved at start")
        .isEmpty();
  }

  @Test
  void everyProblemIsOneLine() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
                    admin:
                      token: admin-token-0123456789
                      tokens:
                        - { name: admin, scope: read, token: other-token-0123456789 }
                        - { name: desk, scope: reader, token: desk-token-0123456789 }
                        - { name: ops, scope: operate, tokenFile: %s }
                        - { name: short, scope: read, token: abc }
                        - { name: twin, scope: read, token: admin-token-0123456789 }
                        - { scope: read, token: nameless-token-0123456789 }
                        - { name: both, scope: read, token: both-token-0123456789, tokenFile: x }
                    """
                        .formatted(dir.resolve("missing")),
                    "anteroom.yaml"))
        .hasMessageContaining(
            "admin.tokens[0].name: duplicate token name \"admin\" (admin.token is the token named"
                + " \"admin\"); every token needs its own name")
        .hasMessageContaining(
            "admin.tokens[1].scope: unknown scope \"reader\"; one of read, operate, admin")
        .hasMessageContaining(
            "admin.tokens[2].tokenFile: cannot read " + dir.resolve("missing") + " (no such file)")
        .hasMessageContaining(
            "admin.tokens[3].token: the token is 3 characters; at least 16 are required")
        .hasMessageContaining("admin.tokens[4].token: the same secret as another token")
        .hasMessageContaining("admin.tokens[5].name: missing")
        .hasMessageContaining("admin.tokens[6].token: give token or tokenFile, not both");
  }
}
