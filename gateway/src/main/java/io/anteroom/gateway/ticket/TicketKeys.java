package io.anteroom.gateway.ticket;

import io.anteroom.gateway.config.GatewayConfig.TicketKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Where ticket keys come from: the config's {@code ticketKeys} when set, otherwise the file {@code
 * dataDir/ticket-keys} (one {@code id base64key} per line, first line seals), generated with one
 * random 256-bit key and 0600 permissions on first start. Several gateways of one deployment must
 * share the same keys (configure them, or copy the file).
 */
public final class TicketKeys {

  static final String FILE = "ticket-keys";

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

  /** Creates the secret file with owner-only permissions from the start (no window at 0644). */
  static void generate(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    String line = "1 " + Base64.getEncoder().encodeToString(key) + "\n";
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      return; // another process created it first: use theirs
    } catch (UnsupportedOperationException e) {
      Files.createFile(file); // non-POSIX file system: best effort
    }
    Files.writeString(file, line, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
  }

  static List<TicketKey> read(Path file) throws IOException {
    var keys = new ArrayList<TicketKey>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      n++;
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      try {
        int id = Integer.parseInt(parts[0]);
        byte[] secret = Base64.getDecoder().decode(parts[1]);
        if (id < 0
            || id > 255
            || !(secret.length == 16 || secret.length == 24 || secret.length == 32)) {
          throw new IllegalArgumentException("bad id or key length");
        }
        keys.add(new TicketKey(id, secret));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            file
                + " line "
                + n
                + ": expected \"<id 0..255>"
                + " <base64 AES key of 16, 24 or 32 bytes>\"",
            e);
      }
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(file + ": no keys; delete the file to generate one");
    }
    return keys;
  }
}
