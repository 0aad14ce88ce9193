package io.anteroom.objects;

/**
 * Per-call storage options (the reference's explicit bypasses). The defaults are correct and fast;
 * each flag trades a guarantee away on purpose.
 *
 * <ul>
 *   <li>{@code allowConcurrency} (reads): other events may run while this read waits on disk.
 *   <li>{@code allowUnconfirmed} (writes): outgoing messages do not wait for this write to be
 *       durable; a failure of the write still resets the object. Ignored on a replicated engine
 *       ({@link io.anteroom.objects.storage.StorageEngine#allowsUnconfirmedOutputs}): there the
 *       reply always waits for the commit.
 *   <li>{@code noCache}: drop the entry from the cache once it is clean. Never changes results.
 * </ul>
 *
 * <pre>{@code
 * storage.get("foo", String.class, StorageOptions.DEFAULT.withAllowConcurrency().withNoCache());
 * storage.put("foo", "bar", StorageOptions.DEFAULT.withAllowUnconfirmed());
 * }</pre>
 */
public record StorageOptions(boolean allowConcurrency, boolean allowUnconfirmed, boolean noCache) {
  /** No bypass. */
  public static final StorageOptions DEFAULT = new StorageOptions(false, false, false);

  public StorageOptions withAllowConcurrency() {
    return new StorageOptions(true, allowUnconfirmed, noCache);
  }

  public StorageOptions withAllowUnconfirmed() {
    return new StorageOptions(allowConcurrency, true, noCache);
  }

  public StorageOptions withNoCache() {
    return new StorageOptions(allowConcurrency, allowUnconfirmed, true);
  }
}
