package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The in-process analogue of kill -9 under load: the storage is imaged at arbitrary instants while
 * 32 callers draw numbers; a runtime restarted from any image never issues a number some caller had
 * received before the image was taken.
 */
class CrashImageTest {

  record Crash(long maxReceived, InMemoryStorageEngine image) {}

  @Test
  void aCrashAtAnyInstantNeverReissuesAReceivedNumber() throws Exception {
    Set<Long> received = ConcurrentHashMap.newKeySet();
    AtomicLong maxReceived = new AtomicLong(-1);
    List<Crash> crashes = new CopyOnWriteArrayList<>();
    try (Fixture f = new Fixture()) {
      Counter counter = f.runtime.namespace("counter", Counter.class, CounterObject::new).get("c");
      List<CompletableFuture<Void>> callers = new ArrayList<>();
      for (int c = 0; c < 32; c++) {
        callers.add(
            f.async(
                () -> {
                  for (int i = 0; i < 150; i++) {
                    long n = counter.next();
                    assertThat(received.add(n)).isTrue();
                    maxReceived.accumulateAndGet(n, Math::max);
                    if (i % 50 == 0) {
                      long before =
                          maxReceived.get(); // read before imaging: the image must cover it
                      crashes.add(new Crash(before, f.engine.crashImage()));
                    }
                  }
                  return null;
                }));
      }
      for (CompletableFuture<Void> c : callers) c.get();
      assertThat(received).hasSize(32 * 150);
      assertThat(crashes).hasSize(32 * 3);
      for (Crash crash : crashes) {
        Runtime restarted = f.restart(crash.image());
        Counter after = restarted.namespace("counter", Counter.class, CounterObject::new).get("c");
        assertThat(after.next())
            .as("first number after a crash")
            .isGreaterThan(crash.maxReceived());
        restarted.close();
      }
    }
  }
}
