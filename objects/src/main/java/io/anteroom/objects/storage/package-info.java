/**
 * Where objects' data lives: the {@link io.anteroom.objects.storage.StorageEngine} seam (point
 * reads, ordered scans over a {@link io.anteroom.objects.storage.KeyRange}, atomic durable
 * multi-object commits) and the default engine, {@link
 * io.anteroom.objects.storage.SqliteStorageEngine}. The in-memory engine for tests is {@code
 * io.anteroom.objects.storage.InMemoryStorageEngine}. The runtime drives every engine from one
 * group-commit writer ({@code storage.internal.GroupCommitter}).
 *
 * <pre>{@code
 * StorageEngine engine = SqliteStorageEngine.open(Path.of("data"));
 * Runtime runtime = Runtime.builder().storage(engine).build();
 * }</pre>
 */
package io.anteroom.objects.storage;
