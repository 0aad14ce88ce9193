package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Mutual exclusion and hand-offs of the input gate under many callers and outgoing waits. */
class InputGateTest {

    interface Busy {
        int work(boolean wait);
    }

    /** Detects any overlap of object code: {@code inside} must be 0 whenever an event enters. */
    static final class BusyObject implements Busy {
        static final AtomicInteger overlaps = new AtomicInteger();
        private final ObjectContext ctx;
        private int inside;
        private int done;

        BusyObject(ObjectContext ctx) {
            this.ctx = ctx;
        }

        private void section() {
            if (inside != 0) overlaps.incrementAndGet();
            inside++;
            long v = ctx.storage().get("v", Long.class).orElse(0L);
            ctx.storage().put("v", v + 1);
            Thread.yield(); // invite another carrier to run this object's code if the gate leaked
            inside--;
        }

        @Override
        public int work(boolean wait) {
            section();
            if (wait) {
                // the gate opens here; another event may run, but never at the same time as this one
                ctx.await(CompletableFuture.supplyAsync(() -> 1, CompletableFuture.delayedExecutor(0, java.util.concurrent.TimeUnit.MILLISECONDS)));
                section();
            }
            return ++done;
        }
    }

    @Test
    void eventsNeverOverlapEvenAcrossOutgoingWaits() throws Exception {
        BusyObject.overlaps.set(0);
        try (Fixture f = new Fixture()) {
            Busy busy = f.runtime.namespace("busy", Busy.class, BusyObject::new).get("b");
            List<CompletableFuture<Void>> callers = new ArrayList<>();
            for (int c = 0; c < 48; c++) {
                boolean wait = c % 2 == 0;
                callers.add(f.async(() -> {
                    for (int i = 0; i < 40; i++) busy.work(wait);
                    return null;
                }));
            }
            for (CompletableFuture<Void> c : callers) c.get();
            assertThat(BusyObject.overlaps).hasValue(0);
            assertThat(busy.work(false)).isEqualTo(48 * 40 + 1);
        }
    }
}
