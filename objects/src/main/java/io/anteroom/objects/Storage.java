package io.anteroom.objects;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The private durable storage of one object, with the semantics of the reference runtime:
 *
 * <ul>
 *   <li>Reads see every earlier write of this object (program order). A cached read returns at
 *       once; a miss keeps the input gate closed until the value is loaded (unless {@code
 *       allowConcurrency}).
 *   <li>Writes apply to the cache at once and return; they are coalesced with the other writes of
 *       the current event into one atomic batch, flushed when the event yields. Every outgoing
 *       message (the call's result included) is held until the writes issued before it are durable
 *       (unless {@code allowUnconfirmed}).
 *   <li>If a flush fails the object is reset: held results become {@link ObjectResetException}.
 * </ul>
 *
 * <p>Values are encoded by the {@link Codec}. Limits ({@link IllegalArgumentException} when
 * exceeded): key at most 2 KiB of UTF-8, encoded value at most 128 KiB (configurable), at most 128
 * keys per multi-key call.
 *
 * <p>Use a storage only from its object's own events (the threads the runtime runs them on).
 *
 * <pre>{@code
 * long v = storage.get("counter", Long.class).orElse(0L);
 * storage.put("counter", v + 1);
 * return v;                         // reaches the caller only once v + 1 is durable
 * }</pre>
 */
public interface Storage {
  /** Maximum UTF-8 length of a key. */
  int MAX_KEY_BYTES = 2048;

  /** Default maximum encoded length of a value. */
  int DEFAULT_MAX_VALUE_BYTES = 128 * 1024;

  /** Maximum number of keys in one multi-key call. */
  int MAX_KEYS_PER_CALL = 128;

  <T> Optional<T> get(String key, Class<T> type, StorageOptions options);

  default <T> Optional<T> get(String key, Class<T> type) {
    return get(key, type, StorageOptions.DEFAULT);
  }

  /** The value decoded to natural JSON types (Integer/Long, String, List, Map...). */
  default Optional<Object> get(String key) {
    return get(key, Object.class, StorageOptions.DEFAULT);
  }

  /** The values of the keys that exist, in key order. */
  <T> Map<String, T> get(Collection<String> keys, Class<T> type, StorageOptions options);

  default <T> Map<String, T> get(Collection<String> keys, Class<T> type) {
    return get(keys, type, StorageOptions.DEFAULT);
  }

  void put(String key, Object value, StorageOptions options);

  default void put(String key, Object value) {
    put(key, value, StorageOptions.DEFAULT);
  }

  /** Puts every entry; all of them in the same atomic batch. */
  void put(Map<String, ?> entries, StorageOptions options);

  default void put(Map<String, ?> entries) {
    put(entries, StorageOptions.DEFAULT);
  }

  /** Deletes a key; whether it existed. */
  boolean delete(String key, StorageOptions options);

  default boolean delete(String key) {
    return delete(key, StorageOptions.DEFAULT);
  }

  /** Deletes keys; how many of them existed. */
  int delete(Collection<String> keys, StorageOptions options);

  default int delete(Collection<String> keys) {
    return delete(keys, StorageOptions.DEFAULT);
  }

  /** Entries selected by {@code options}, in key order (or reverse), as an ordered map. */
  <T> Map<String, T> list(ListOptions options, Class<T> type, StorageOptions storageOptions);

  default <T> Map<String, T> list(ListOptions options, Class<T> type) {
    return list(options, type, StorageOptions.DEFAULT);
  }

  /** Deletes every key of this object: ordered after earlier writes and before later ones. */
  void deleteAll(StorageOptions options);

  default void deleteAll() {
    deleteAll(StorageOptions.DEFAULT);
  }

  /**
   * Runs {@code fn} atomically: its writes join one batch; if it throws, every change it made to
   * this storage is rolled back and the exception propagates (the object is not reset). The input
   * gate stays closed for the whole function; outgoing calls are not allowed inside it.
   */
  <R> R transaction(Function<Storage, R> fn);

  /** Waits until every earlier write of this object is durable. */
  void sync();

  /** The time of this object's alarm; empty inside the alarm handler unless it set a new one. */
  Optional<Instant> getAlarm();

  /** Sets (replaces) this object's alarm; a time in the past fires at once. */
  void setAlarm(Instant at);

  void deleteAlarm();
}
