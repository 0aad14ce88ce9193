package io.anteroom.door.ticket;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.config.SecretFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where ticket keys come from: the config's {@code ticketKeys} when set, otherwise the file {@code
 * dataDir/ticket-keys} (one {@code id base64key} per line, first line seals, each id once),
 * generated with one random 256-bit key and 0600 permissions on first start (whole or not at all; a
 * warning at start when others than its owner may read it). Several gateways of one deployment must
 * share the same keys (configure them, or copy the file).
 */
public final class TicketKeys {

  public static final String FILE = "ticket-keys";
  private static final Logger LOG = LoggerFactory.getLogger(TicketKeys.class);

  private TicketKeys() {}

  public static List<TicketKey> resolve(List<TicketKey> configured, Path dataDir) {
    if (!configured.isEmpty()) {
      return configured;
    }
    Path file = dataDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        generate(file);
      }
      SecretFile.exposure(file).ifPresent(LOG::warn);
      return read(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the ticket key file " + file, e);
    }
  }

  /**
   * For a gateway of a multi-gateway deployment: the keys must be shared, so they are taken from
   * the config or an existing {@code dataDir/ticket-keys} file and never generated here (a gateway
   * with keys of its own would turn every user that another gateway admitted into a new user).
   *
   * @throws IllegalArgumentException saying how to share them
   */
  public static void requireShared(List<TicketKey> configured, Path dataDir) {
    if (configured.isEmpty() && !Files.exists(dataDir.resolve(FILE))) {
      throw new IllegalArgumentException(
          "no ticket keys: every gateway of a deployment must use"
              + " the same keys; set ticketKeys in the config, or copy the "
              + FILE
              + " file of"
              + " another gateway (or of anteroom run) to "
              + dataDir.resolve(FILE));
    }
  }

  /**
   * The keys of an existing key file, read as at a start ({@code anteroom check}).
   *
   * @throws IllegalArgumentException naming the file and what is wrong in it
   */
  public static List<TicketKey> check(Path file) {
    try {
      return read(file);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new IllegalArgumentException(
          "the ticket key file " + file + " is not readable by this user (permission denied)", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the ticket key file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Creates the key file, whole or not at all, with owner-only permissions (a file another process
   * created first is kept).
   */
  static void generate(Path file) throws IOException {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    SecretFile.createIfAbsent(file, "1 " + Base64.getEncoder().encodeToString(key) + "\n");
  }

  static List<TicketKey> read(Path file) throws IOException {
    var keys = new ArrayList<TicketKey>();
    var ids = new java.util.HashSet<Integer>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      n++;
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      TicketKey key;
      try {
        int id = Integer.parseInt(parts[0]);
        byte[] secret = Base64.getDecoder().decode(parts[1]);
        if (id < 0
            || id > 255
            || !(secret.length == 16 || secret.length == 24 || secret.length == 32)) {
          throw new IllegalArgumentException("bad id or key length");
        }
        key = new TicketKey(id, secret);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            file
                + " line "
                + n
                + ": expected \"<id 0..255>"
                + " <base64 AES key of 16, 24 or 32 bytes>\"",
            e);
      }
      if (!ids.add(key.id())) {
        throw new IllegalArgumentException(
            file
                + " line "
                + n
                + ": duplicate key id "
                + key.id()
                + "; every ticket key needs its own id");
      }
      keys.add(key);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(file + ": no keys; delete the file to generate one");
    }
    return keys;
  }
}
