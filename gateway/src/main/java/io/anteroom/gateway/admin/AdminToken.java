package io.anteroom.gateway.admin;

import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.config.SecretFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's bearer tokens ({@link #all}): {@code admin.tokens}, each named and scoped, and
 * the token named {@code admin} (scope admin): {@code admin.token} when configured, otherwise the
 * content of {@code dataDir/admin-token}, generated (32 random bytes, hex, mode 0600, written whole
 * or not at all) on first start; a warning at start when others than its owner may read it. Either
 * way at least {@value #MIN_LENGTH} characters.
 */
public final class AdminToken {

  public static final String FILE = GatewayConfig.AdminSettings.TOKEN_FILE;

  private static final Logger LOG = LoggerFactory.getLogger(AdminToken.class);

  /** Shorter tokens can be guessed over the network; generated ones have 64 hex digits. */
  public static final int MIN_LENGTH = GatewayConfig.AdminSettings.MIN_TOKEN_LENGTH;

  private AdminToken() {}

  /**
   * The admin tokens: those of {@code admin.token} and {@code admin.tokens} when either is
   * configured, otherwise the generated one (named {@code admin}, scope admin).
   */
  public static java.util.List<GatewayConfig.NamedToken> all(GatewayConfig config) {
    if (!config.admin().tokens().isEmpty()) {
      return config.admin().tokens();
    }
    return java.util.List.of(
        new GatewayConfig.NamedToken(
            GatewayConfig.AdminSettings.DEFAULT_TOKEN_NAME,
            io.anteroom.door.config.AdminScope.ADMIN,
            resolve(config)));
  }

  public static String resolve(GatewayConfig config) {
    if (!config.admin().token().isEmpty()) {
      return config.admin().token();
    }
    Path file = config.dataDir().resolve(FILE);
    try {
      Files.createDirectories(config.dataDir());
      if (!Files.exists(file)) {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        SecretFile.createIfAbsent(file, HexFormat.of().formatHex(random) + "\n");
      }
      SecretFile.exposure(file).ifPresent(LOG::warn);
      String token = Files.readString(file, StandardCharsets.US_ASCII).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException(file + " is empty; delete it to generate a new token");
      }
      if (token.length() < MIN_LENGTH) {
        throw new IllegalArgumentException(
            file
                + ": the admin token is "
                + token.length()
                + " characters; at least "
                + MIN_LENGTH
                + " are required (delete the file to generate"
                + " one)");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the admin token file " + file, e);
    }
  }
}
