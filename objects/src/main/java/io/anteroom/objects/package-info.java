/**
 * Durable Objects runtime for Java: single-threaded stateful objects with private durable storage,
 * one live instance per id, reached through typed stubs, locally or over HTTP.
 *
 * <p>Entry points: {@link io.anteroom.objects.Runtime} (builder, namespaces, transport, metrics),
 * {@link io.anteroom.objects.Namespace} (ids and stubs), {@link io.anteroom.objects.ObjectContext}
 * and {@link io.anteroom.objects.Storage} (what an object sees), {@link
 * io.anteroom.objects.storage.StorageEngine} (SQLite by default, in memory for tests), {@link
 * io.anteroom.objects.Stubs} and {@link io.anteroom.objects.Codec} (stubs over any {@link
 * io.anteroom.objects.ObjectTransport}).
 *
 * <pre>{@code
 * try (Runtime runtime = Runtime.builder().dataDir(Path.of("data")).build()) {
 *     Namespace<Counter> counters = runtime.namespace("counter", Counter.class, CounterObject::new);
 *     long n = counters.get("orders").next();   // unique, and durable before it is returned
 * }
 * }</pre>
 *
 * <p>The semantics (input gate, output gate, cache, coalescing, group commit) are those of {@code
 * shared/design/durable-objects.md}; each concurrency-bearing class states its invariants in its
 * header comment, one rule per type: {@code InputGate} (which event runs), {@code OutputGate} (what
 * is held until durable), {@code ObjectCache} (entries and the memory budget), {@code
 * ObjectStorage} (batches and flushes, composing the cache and the output gate), {@code ObjectHost}
 * (one live instance: its gate, event loop and lifecycle), {@code Alarms}, and {@code
 * storage.internal.GroupCommitter} (the single writer).
 */
package io.anteroom.objects;
