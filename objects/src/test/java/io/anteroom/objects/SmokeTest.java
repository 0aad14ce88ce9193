package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
    @Test
    void counterOnSqlite(@TempDir Path dir) throws Exception {
        try (Runtime rt = Runtime.builder().dataDir(dir).build()) {
            Namespace<Counter> ns = rt.namespace("counter", Counter.class, CounterObject::new);
            Counter c = ns.get("a");
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            long t0 = System.nanoTime();
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> fs = new ArrayList<>();
                for (int i = 0; i < 64; i++) fs.add(ex.submit(() -> { for (int j = 0; j < 500; j++) assertThat(seen.add(c.next())).isTrue(); return null; }));
                for (Future<?> f : fs) f.get();
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.err.println("32000 ops in " + ms + " ms; fsyncs=" + rt.metrics().meter("objects.storage.fsyncs").getCount());
            assertThat(seen).hasSize(32000);
            assertThat(c.current()).isEqualTo(32000);
        }
    }
}
