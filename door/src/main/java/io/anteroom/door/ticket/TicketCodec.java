package io.anteroom.door.ticket;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens ticket cookies with AES-GCM under hourly subkeys. Wire format (then base64url
 * without padding), format 2:
 *
 * <pre>
 * 0x02 | keyId (1) | hour (4, big-endian, unsigned: epoch millis / 3,600,000) | nonce (12 random)
 *      | ciphertext + 16-byte tag
 * </pre>
 *
 * The AES key is not the configured secret but its subkey for that hour: {@code HKDF-SHA256(ikm =
 * secret, salt = "anteroom ticket subkeys", info = "anteroom ticket v2" | keyId | hour)} ({@link
 * Hkdf}), of the secret's length. The associated data is the 6-byte header, then the room's
 * generation (8 bytes, big-endian), then the room id (UTF-8): the only variable-length part is
 * last, so the encoding is unambiguous. A cookie of another room, or of another generation of the
 * same room, fails to open like a tampered one.
 *
 * <p>Why subkeys: with random 96-bit nonces one AES-GCM key may seal about 2^32 messages (NIST SP
 * 800-38D); every request re-seals its cookie, so one key would exhaust that in weeks at a few
 * thousand requests per second. An hourly subkey gets 2^32 seals per hour, about 1.19 million per
 * second for the whole deployment.
 *
 * <p>Opening accepts hours from {@link #MAX_AGE_HOURS} before the current hour up to {@link
 * #FUTURE_HOURS} after it, so a client cannot make the gateway derive keys for arbitrary hours;
 * derived subkeys are cached in a ring per key that holds exactly that window. A ticket lives at
 * most 24 hours after its last seal (session duration and queue timeout are each at most 24 hours,
 * {@code RoomConfig}), so the window is twice that, leaving room for gateways' clocks that differ.
 *
 * <p>Upgrade: cookies of format 1 ({@code keyId | nonce | ciphertext + tag} under the secret
 * itself, the room id alone as associated data) still open, for rooms of generation 0 only (a room
 * given a generation is a new room for old cookies); new cookies are always sealed in format 2. A
 * format-1 cookie whose key id is 2 is first read as format 2, which fails on its header (its hour
 * is random nonce bytes), then as format 1.
 *
 * <p>Thread safety: safe for concurrent use; a {@link Cipher} is not thread-safe, so each call
 * takes one from a thread-local. Sealing always uses the first key; opening accepts any configured
 * key id, which is what lets an operator rotate keys (add the new key first, keep the old one until
 * sessions end).
 *
 * <pre>{@code
 * var codec = new TicketCodec(List.of(new TicketKey(1, secret)), clock);
 * TicketCodec.Scope shop = codec.scope("shop", 0);       // room id and generation
 * String cookie = codec.seal(shop, payload);
 * Optional<byte[]> back = codec.open(shop, cookie);      // empty when tampered, other room, too old
 * }</pre>
 */
public final class TicketCodec {

  /** The format byte of cookies sealed under hourly subkeys. */
  static final byte FORMAT_2 = 2;

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final int HEADER_2 = 1 + 1 + Integer.BYTES;
  private static final int MIN_SEALED_1 = 1 + NONCE_BYTES + TAG_BITS / 8;
  private static final int MIN_SEALED_2 = HEADER_2 + NONCE_BYTES + TAG_BITS / 8;
  static final long HOUR_MILLIS = 3_600_000L;

  /**
   * How many hours before the current one a cookie's hour may be: twice the longest ticket life.
   */
  static final int MAX_AGE_HOURS = 48;

  /** How many hours after the current one a cookie's hour may be: another gateway's clock ahead. */
  static final int FUTURE_HOURS = 1;

  /** Subkeys cached per key: one per hour of the window. */
  private static final int WINDOW_HOURS = MAX_AGE_HOURS + 1 + FUTURE_HOURS;

  private static final byte[] SALT = "anteroom ticket subkeys".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INFO = "anteroom ticket v2".getBytes(StandardCharsets.US_ASCII);

  /** Longer cookie values are refused without decoding: bounds the work an attacker can cause. */
  static final int MAX_COOKIE_CHARS = 512;

  private static final ThreadLocal<Cipher> CIPHER =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Cipher.getInstance("AES/GCM/NoPadding");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("this JDK lacks AES/GCM/NoPadding", e);
            }
          });

  /**
   * Nonces come from a DRBG instance per thread: the default {@code NativePRNG} reads /dev/urandom
   * under one process-wide lock on every call, which the admitted hot path (a fresh nonce per
   * request) cannot afford.
   */
  private static final ThreadLocal<Nonces> NONCES = ThreadLocal.withInitial(Nonces::new);

  /**
   * One thread's nonces, drawn from its DRBG {@value #NONCES_PER_DRAW} at a time: a DRBG call costs
   * several SHA-256 blocks whatever its length, so one call per nonce spent more on the call than
   * on the bytes. The nonces are the DRBG's output as before, each handed out once (they are no
   * secret: every cookie carries its own).
   */
  private static final class Nonces {
    private final SecureRandom random;
    private final byte[] pool = new byte[NONCE_BYTES * NONCES_PER_DRAW];
    private int next = pool.length;

    Nonces() {
      SecureRandom r;
      try {
        r = SecureRandom.getInstance("DRBG");
      } catch (java.security.NoSuchAlgorithmException e) {
        r = new SecureRandom();
      }
      this.random = r;
    }

    byte[] next() {
      if (next == pool.length) {
        random.nextBytes(pool);
        next = 0;
      }
      byte[] nonce = java.util.Arrays.copyOfRange(pool, next, next + NONCE_BYTES);
      java.util.Arrays.fill(pool, next, next + NONCE_BYTES, (byte) 0);
      next += NONCE_BYTES;
      return nonce;
    }
  }

  private static final int NONCES_PER_DRAW = 64;

  private final Key[] byId = new Key[256];

  /** Subkeys derived so far (a cache miss each): bounded by the window, whatever clients send. */
  private final LongAdder derivations = new LongAdder();

  private final Key sealing;
  private final Clock clock;

  /**
   * The last opened cookies, shared by every thread: a browser sends the same cookie with every
   * request of a page until its renewal minute changes, and re-opening it costs an AES-GCM
   * decryption per request. Shared, so a browser's next request hits whichever of the server's
   * threads takes it (a Servlet container's pool has hundreds; a cache per thread missed on most of
   * them and cost a thread-local look-up on every request). Per codec, so a codec with other keys
   * never sees this one's results.
   */
  private final Opened opened = new Opened();

  /** Decryptions run by {@link #open(Scope, String)} (cache misses; for tests). */
  private final LongAdder decryptions = new LongAdder();

  /** Sealing and opening on the system clock. */
  public TicketCodec(List<TicketKey> keys) {
    this(keys, Clock.systemUTC());
  }

  /**
   * @param keys at least one key, each id once; the first one seals new cookies
   * @param clock decides the hour a cookie is sealed in and which hours open (unless a caller of
   *     {@link #open(Scope, String, int, int, Decoder, long)} gives its own reading)
   */
  public TicketCodec(List<TicketKey> keys, Clock clock) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("ticketKeys: at least one key is needed");
    }
    for (TicketKey k : keys) {
      if (byId[k.id()] != null) {
        throw new IllegalArgumentException(
            "ticketKeys: duplicate key id " + k.id() + "; every ticket key needs its own id");
      }
      byId[k.id()] = new Key(k.id(), k.secret(), derivations);
    }
    this.sealing = byId[keys.get(0).id()];
    this.clock = clock;
  }

  /**
   * What a cookie is bound to: a room id and the room's generation (its associated data, encoded
   * once here so that sealing and opening allocate nothing for it).
   */
  public static final class Scope {
    private final long generation;
    private final byte[] roomId;

    /** generation (8, big-endian) | room id (UTF-8): the associated data after the header. */
    private final byte[] data;

    private Scope(String roomId, long generation) {
      this.generation = generation;
      this.roomId = roomId.getBytes(StandardCharsets.UTF_8);
      this.data =
          ByteBuffer.allocate(Long.BYTES + this.roomId.length)
              .putLong(generation)
              .put(this.roomId)
              .array();
    }

    public long generation() {
      return generation;
    }
  }

  /** The scope of cookies of room {@code roomId} in generation {@code generation}. */
  public Scope scope(String roomId, long generation) {
    return new Scope(roomId, generation);
  }

  /** {@link #seal(Scope, String)} for a room of generation 0. */
  public String seal(String roomId, byte[] payload) {
    return seal(scope(roomId, 0), payload);
  }

  /** {@link #open(Scope, String)} for a room of generation 0. */
  public Optional<byte[]> open(String roomId, String cookie) {
    return open(scope(roomId, 0), cookie);
  }

  /**
   * Encrypts {@code payload} for {@code scope} in format 2 under the current hour's subkey of the
   * first key; a fresh random nonce every call.
   */
  public String seal(Scope scope, byte[] payload) {
    long hour = Math.floorDiv(clock.millis(), HOUR_MILLIS);
    byte[] nonce = NONCES.get().next();
    Cipher c = CIPHER.get();
    try {
      c.init(Cipher.ENCRYPT_MODE, sealing.subkey(hour), new GCMParameterSpec(TAG_BITS, nonce));
      byte[] out = new byte[HEADER_2 + NONCE_BYTES + c.getOutputSize(payload.length)];
      out[0] = FORMAT_2;
      out[1] = (byte) sealing.id;
      putInt(out, 2, (int) hour);
      System.arraycopy(nonce, 0, out, HEADER_2, NONCE_BYTES);
      c.updateAAD(out, 0, HEADER_2);
      c.updateAAD(scope.data);
      c.doFinal(payload, 0, payload.length, out, HEADER_2 + NONCE_BYTES);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM sealing failed", e);
    }
  }

  /**
   * Decrypts a cookie value of {@code scope}. Empty when the value is absent, not base64url,
   * truncated, sealed with an unknown key or in an hour outside the window, tampered with, or
   * sealed for another room or generation: the caller then treats the user as new. Never throws for
   * bad input.
   */
  public Optional<byte[]> open(Scope scope, String cookie) {
    if (cookie == null || cookie.length() > MAX_COOKIE_CHARS) {
      return Optional.empty();
    }
    long nowHour = nowHour();
    Opened.Entry hit = opened.find(scope, cookie, 0, cookie.length(), nowHour);
    if (hit != null) {
      return Optional.of(hit.payload.clone());
    }
    return Optional.ofNullable(decrypt(scope, cookie, nowHour));
  }

  /**
   * Turns an opened cookie's payload into the caller's value (e.g. a ticket). The value must be
   * immutable: {@link #open(Scope, String, int, int, Decoder)} hands the same one to every request
   * that sends the same cookie, on any thread. Compared by identity: keep one per kind of value.
   */
  public interface Decoder<T> {
    /** The value of {@code payload} (not to be kept or changed), or null when it is none. */
    T decode(byte[] payload);
  }

  /**
   * {@link #open(Scope, String)} for the cookie value {@code header[from, to)}, decoded by {@code
   * decoder}; null when the value does not open or decodes to null. The cache keeps the decoded
   * value with the payload, so a browser's repeated cookie costs neither a decryption nor a
   * decoding nor a copy of the value: same checks (the same characters, the same scope, the hour
   * inside the window now), no allocation on a hit.
   */
  public <T> T open(Scope scope, String header, int from, int to, Decoder<T> decoder) {
    return open(scope, header, from, to, decoder, clock.millis());
  }

  /**
   * {@link #open(Scope, String, int, int, Decoder)} at {@code nowMillis} (epoch milliseconds), on a
   * cache hit and on a miss alike, instead of a reading of the codec's clock: for a caller that has
   * read the clock for its request already (one reading per request, not one per step).
   */
  @SuppressWarnings("unchecked")
  public <T> T open(
      Scope scope, String header, int from, int to, Decoder<T> decoder, long nowMillis) {
    if (to - from > MAX_COOKIE_CHARS) {
      return null;
    }
    long nowHour = Math.floorDiv(nowMillis, HOUR_MILLIS);
    Opened.Entry hit = opened.find(scope, header, from, to, nowHour);
    if (hit != null) {
      if (hit.decoder == decoder && hit.decoded != null) {
        return (T) hit.decoded;
      }
      T value = decoder.decode(hit.payload.clone());
      opened.keep(hit, decoder, value);
      return value;
    }
    String cookie = from == 0 && to == header.length() ? header : header.substring(from, to);
    byte[] payload = decrypt(scope, cookie, nowHour);
    if (payload == null) {
      return null;
    }
    T value = decoder.decode(payload);
    Opened.Entry put = opened.at(Opened.slot(cookie, 0, cookie.length()));
    if (put != null && put.cookie == cookie) { // the entry decrypt put: keep the value with it
      opened.keep(put, decoder, value);
    }
    return value;
  }

  private long nowHour() {
    return Math.floorDiv(clock.millis(), HOUR_MILLIS);
  }

  /**
   * Decrypts {@code cookie} (a cache miss) at hour {@code nowHour} (its key's hour must be inside
   * the window around it) and, when it opens, remembers a copy of its payload in the cache; null
   * when it does not open.
   */
  private byte[] decrypt(Scope scope, String cookie, long nowHour) {
    decryptions.increment();
    byte[] in;
    try {
      in = Base64.getUrlDecoder().decode(cookie);
    } catch (IllegalArgumentException e) {
      return null; // not ours: a garbled or foreign cookie is a new user, by design
    }
    if (in.length >= MIN_SEALED_2 && in[0] == FORMAT_2) {
      byte[] payload = open2(scope, in, nowHour);
      if (payload != null) {
        opened.put(scope, cookie, Integer.toUnsignedLong(getInt(in, 2)), payload);
        return payload;
      }
    }
    if (scope.generation == 0 && in.length >= MIN_SEALED_1) {
      byte[] payload = open1(scope, in);
      if (payload != null) {
        opened.put(scope, cookie, Opened.ANY_HOUR, payload);
      }
      return payload;
    }
    return null;
  }

  /** Decryptions so far: opens the cache did not answer. */
  long decryptions() {
    return decryptions.sum();
  }

  /**
   * The recently opened cookies, direct-mapped by a hash of the cookie's nonce characters: bounded
   * whatever clients send ({@value #SLOTS} slots of at most {@link #MAX_COOKIE_CHARS} characters),
   * and only cookies that authenticated are stored, so a client can evict entries but never plant
   * one. A hit needs the same characters and the same {@link Scope} object, and a format-2 cookie's
   * hour must still be inside the window now, exactly as {@link #open2} would check it. Payloads
   * are handed out as copies; a decoded value ({@link Decoder}) is kept with its payload.
   *
   * <p>Thread safety: every thread reads and writes the slots without a lock, each slot written
   * with release and read with acquire semantics, so a thread that reads an entry sees everything
   * written before it was stored, the payload's bytes included (also for an entry that {@code keep}
   * builds on another thread's payload). An {@link Entry} never changes (its payload is a copy no
   * caller sees, the decoded value immutable by {@link Decoder}'s contract); two threads that race
   * on a slot may each replace the other's entry, which costs only a later decryption.
   */
  private static final class Opened {
    static final int SLOT_BITS = 13;
    static final int SLOTS = 1 << SLOT_BITS;
    static final long ANY_HOUR = -1;

    /** Characters hashed for the slot: the nonce's (random in every sealed cookie). */
    private static final int HASHED_FROM = 8;

    private static final int HASHED_CHARS = 7;

    /** One opened cookie; its decoded value is kept by replacing the entry. */
    record Entry(
        String cookie,
        Scope scope,
        long hour,
        byte[] payload,
        Decoder<?> decoder,
        Object decoded) {}

    private final AtomicReferenceArray<Entry> entries = new AtomicReferenceArray<>(SLOTS);

    /** The entry in slot {@code i} (an acquiring read: see the thread safety above). */
    Entry at(int i) {
      return entries.getAcquire(i);
    }

    /**
     * The slot of cookie {@code s[from, to)}: a mix of its length and of {@value #HASHED_CHARS}
     * characters from {@value #HASHED_FROM} on (a sealed cookie's nonce, random in every seal), so
     * the whole value is not hashed on every request; a hit is then checked on every character.
     */
    static int slot(String s, int from, int to) {
      int start = to - from >= HASHED_FROM + HASHED_CHARS ? from + HASHED_FROM : from;
      int end = Math.min(to, start + HASHED_CHARS);
      long x = to - from;
      for (int i = start; i < end; i++) {
        x = x << 8 | s.charAt(i) & 0xFF;
      }
      return (int) ((x * 0x9E3779B97F4A7C15L) >>> (64 - SLOT_BITS));
    }

    /** The entry of cookie {@code s[from, to)} of {@code scope}, valid now; null when none. */
    Entry find(Scope scope, String s, int from, int to, long nowHour) {
      Entry e = entries.getAcquire(slot(s, from, to));
      if (e == null
          || e.scope != scope
          || e.cookie.length() != to - from
          || !(from == 0 && to == s.length()
              ? e.cookie.equals(s) // the header holds this cookie alone: compared at once
              : s.regionMatches(from, e.cookie, 0, to - from))) {
        return null;
      }
      long hour = e.hour;
      if (hour != ANY_HOUR && (hour < nowHour - MAX_AGE_HOURS || hour > nowHour + FUTURE_HOURS)) {
        return null;
      }
      return e;
    }

    void put(Scope scope, String cookie, long hour, byte[] payload) {
      entries.setRelease(
          slot(cookie, 0, cookie.length()),
          new Entry(cookie, scope, hour, payload.clone(), null, null));
    }

    /** Keeps {@code decoded}, {@code decoder}'s value of {@code e}'s payload, with it. */
    void keep(Entry e, Decoder<?> decoder, Object decoded) {
      int i = slot(e.cookie, 0, e.cookie.length());
      if (entries.getAcquire(i) == e) {
        entries.setRelease(i, new Entry(e.cookie, e.scope, e.hour, e.payload, decoder, decoded));
      }
    }
  }

  private byte[] open2(Scope scope, byte[] in, long now) {
    Key key = byId[in[1] & 0xFF];
    if (key == null) {
      return null;
    }
    long hour = Integer.toUnsignedLong(getInt(in, 2));
    if (hour < now - MAX_AGE_HOURS || hour > now + FUTURE_HOURS) {
      return null; // checked before any key is derived for it
    }
    Cipher c = CIPHER.get();
    try {
      c.init(
          Cipher.DECRYPT_MODE,
          key.subkey(hour),
          new GCMParameterSpec(TAG_BITS, in, HEADER_2, NONCE_BYTES));
      c.updateAAD(in, 0, HEADER_2);
      c.updateAAD(scope.data);
      return c.doFinal(in, HEADER_2 + NONCE_BYTES, in.length - HEADER_2 - NONCE_BYTES);
    } catch (GeneralSecurityException | IllegalStateException e) {
      return null; // authentication failed: tampered, other room or generation, i.e. a new user
    }
  }

  /** Format 1, sealed before subkeys: the configured secret itself, the room id alone as AAD. */
  private byte[] open1(Scope scope, byte[] in) {
    Key key = byId[in[0] & 0xFF];
    if (key == null) {
      return null;
    }
    Cipher c = CIPHER.get();
    try {
      c.init(Cipher.DECRYPT_MODE, key.secret, new GCMParameterSpec(TAG_BITS, in, 1, NONCE_BYTES));
      c.updateAAD(scope.roomId);
      return c.doFinal(in, 1 + NONCE_BYTES, in.length - 1 - NONCE_BYTES);
    } catch (GeneralSecurityException | IllegalStateException e) {
      return null;
    }
  }

  /** The key id that seals new cookies (written in every cookie's header). */
  int sealingKeyId() {
    return sealing.id;
  }

  /** How many hourly subkeys this codec has derived (cache misses). */
  long derivedSubkeys() {
    return derivations.sum();
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24
        | (b[at + 1] & 0xFF) << 16
        | (b[at + 2] & 0xFF) << 8
        | b[at + 3] & 0xFF;
  }

  /**
   * One configured key: the secret (format 1), its HKDF pseudorandom key, and a ring of derived
   * hourly subkeys indexed by hour modulo the window (an entry of another hour is replaced).
   */
  private static final class Key {
    private final int id;
    private final SecretKeySpec secret;
    private final int length;
    private final byte[] prk;
    private final AtomicReferenceArray<Subkey> ring = new AtomicReferenceArray<>(WINDOW_HOURS);
    private final LongAdder derivations;

    Key(int id, byte[] secret, LongAdder derivations) {
      this.id = id;
      this.derivations = derivations;
      this.secret = new SecretKeySpec(secret, "AES");
      this.length = secret.length;
      this.prk = Hkdf.extract(SALT, secret);
    }

    SecretKeySpec subkey(long hour) {
      int slot = (int) Math.floorMod(hour, (long) WINDOW_HOURS);
      Subkey s = ring.get(slot);
      if (s != null && s.hour == hour) {
        return s.key;
      }
      byte[] info = new byte[INFO.length + 1 + Integer.BYTES];
      System.arraycopy(INFO, 0, info, 0, INFO.length);
      info[INFO.length] = (byte) id;
      putInt(info, INFO.length + 1, (int) hour);
      derivations.increment();
      var derived = new Subkey(hour, new SecretKeySpec(Hkdf.expand(prk, info, length), "AES"));
      ring.set(slot, derived); // a race derives the same key twice: harmless
      return derived.key;
    }
  }

  private record Subkey(long hour, SecretKeySpec key) {}
}
