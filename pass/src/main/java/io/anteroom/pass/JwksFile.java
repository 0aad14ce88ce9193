package io.anteroom.pass;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.text.ParseException;
import java.time.Clock;
import java.util.List;
import java.util.function.Predicate;

/**
 * The keys of a JWKS file, read again when it changes: when a pass names a key the keys read last
 * lack (at most every {@link #RECHECK_MILLIS}, so a flood of passes with made-up key ids costs one
 * look at the file's time per interval, not a read per pass) and, for a retired key, at least every
 * {@link #REFRESH_MILLIS}. A file that cannot be read or holds no usable key leaves the keys read
 * last in use, so copying a rotated JWKS over the file never refuses a pass midway.
 *
 * <p>Thread-safe: readers see one immutable key set; a re-read happens under the source's lock.
 */
final class JwksFile implements JWKSource<SecurityContext> {
  /** Least time between two looks at the file when a pass names an unknown key. */
  static final long RECHECK_MILLIS = 30_000;

  /** Most time a retired key stays known after the file dropped it. */
  static final long REFRESH_MILLIS = 300_000;

  private final Path file;
  private final Clock clock;
  private final Predicate<JWK> usable;
  private volatile JWKSet keys;
  private FileTime modified;
  private long checkedAt;

  JwksFile(Path file, JWKSet keys, FileTime modified, Clock clock, Predicate<JWK> usable) {
    this.file = file;
    this.keys = keys;
    this.modified = modified;
    this.clock = clock;
    this.usable = usable;
    this.checkedAt = clock.millis();
  }

  @Override
  public List<JWK> get(JWKSelector selector, SecurityContext context) {
    long now = clock.millis();
    List<JWK> found = selector.select(keys);
    synchronized (this) {
      long since = now - checkedAt;
      if ((found.isEmpty() && since >= RECHECK_MILLIS) || since >= REFRESH_MILLIS) {
        checkedAt = now;
        if (reread()) {
          found = selector.select(keys);
        }
      }
    }
    return found;
  }

  /** Reads the file again if its modification time moved; true when the keys changed. */
  private boolean reread() {
    try {
      FileTime now = Files.getLastModifiedTime(file);
      if (now.equals(modified)) {
        return false;
      }
      JWKSet set = JWKSet.parse(Files.readString(file, StandardCharsets.UTF_8));
      if (set.getKeys().stream().noneMatch(usable)) {
        return false; // half-written or the wrong file: keep the keys read last, look again later
      }
      modified = now;
      keys = set.toPublicJWKSet();
      return true;
    } catch (IOException | ParseException e) {
      return false; // the same: a pass signed by a key read last keeps verifying
    }
  }
}
