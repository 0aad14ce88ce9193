package io.anteroom.objects;

import java.util.concurrent.CompletableFuture;

/** Test objects shared by the runtime tests. */
final class Counters {
    private Counters() {}

    interface Counter {
        long next();

        long current();

        CompletableFuture<Long> nextAsync();
    }

    /** The naive counter of the spec. */
    static final class CounterObject implements Counter {
        private final Storage storage;

        CounterObject(ObjectContext ctx) {
            this.storage = ctx.storage();
        }

        @Override
        public long next() {
            long v = storage.get("counter", Long.class).orElse(0L);
            storage.put("counter", v + 1);
            return v;
        }

        @Override
        public long current() {
            return storage.get("counter", Long.class).orElse(0L);
        }

        @Override
        public CompletableFuture<Long> nextAsync() {
            return CompletableFuture.completedFuture(next());
        }
    }
}
