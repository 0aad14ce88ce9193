package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.Codec;
import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.Namespace;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectResetException;
import io.anteroom.objects.ObjectTransportException;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Typed stubs over HTTP against a real runtime: same semantics as local stubs, gates included. */
class RemoteObjectsTest {

  static final SharedSecret SECRET = SharedSecret.of("test", new byte[32]);
  private final InMemoryStorageEngine engine = new InMemoryStorageEngine();
  private Runtime runtime;
  private Namespace<Counter> counters;
  private HttpObjectServer server;
  private RemoteObjects remote;

  @BeforeEach
  void start() {
    runtime = Runtime.builder().storage(engine).build();
    counters = runtime.namespace("counter", Counter.class, CounterObject::new);
    server = HttpObjectServer.builder(runtime.transport()).export("counter").secret(SECRET).start();
    remote = RemoteObjects.over(HttpObjectTransport.builder(server.uri()).secret(SECRET).build());
  }

  @AfterEach
  void stop() {
    remote.close();
    server.close();
    runtime.close();
  }

  @Test
  void sixtyFourConcurrentCallersGetUniqueNumbersOverHttp() throws Exception {
    Counter counter = remote.get("counter", Counter.class, "shared");
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    int callers = 64, callsEach = 40;
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    for (int i = 0; i < callsEach; i++) {
                      if (!seen.add(counter.next())) duplicates.incrementAndGet();
                    }
                  }));
    }
    for (Thread t : threads) t.join();

    assertThat(duplicates).hasValue(0);
    assertThat(seen).hasSize(callers * callsEach);
    assertThat(counter.current()).isEqualTo(callers * callsEach);
  }

  @Test
  void remoteAndLocalStubsOfTheSameNameReachTheSameObject() {
    Counter viaHttp = remote.get("counter", Counter.class, "orders");
    viaHttp.next();
    viaHttp.next();

    assertThat(counters.get("orders").current()).isEqualTo(2);
    assertThat(counters.get("orders").next()).isEqualTo(2);
    assertThat(viaHttp.current()).isEqualTo(3);
  }

  @Test
  void anObjectsExceptionComesBackOverHttpWithItsTypeAndMessage() {
    Counter counter = remote.get("counter", Counter.class, "x");

    assertThatThrownBy(() -> counter.fail("sold out"))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("sold out");
    assertThatThrownBy(counter::failChecked)
        .isExactlyInstanceOf(java.io.IOException.class)
        .hasMessage("disk on fire");
  }

  @Test
  void asynchronousMethodsWorkOverHttp() {
    Counter counter = remote.get("counter", Counter.class, "async");

    assertThat(counter.nextAsync().join()).isZero();
    assertThat(counter.nextAsync().join()).isEqualTo(1);
  }

  @Test
  void theHttpResponseIsHeldUntilTheWritesOfTheCallAreDurable() throws Exception {
    Counter counter = remote.get("counter", Counter.class, "held");
    CompletableFuture<Long> reply;
    try (InMemoryStorageEngine.Hold hold = engine.holdCommits()) {
      reply = counter.nextAsync();
      hold.awaitBlocked(); // the flush of next()'s write is now stuck in commit

      assertThat(reply).as("no reply may leave before the write is durable").isNotDone();
      assertThat(engine.commits()).isEmpty();
    }
    assertThat(reply.join()).isZero();
    assertThat(engine.commits()).isNotEmpty();
  }

  @Test
  void aFailedFlushReachesTheRemoteCallerAsAResetAndNothingUnconfirmedIsObserved() {
    Counter counter = remote.get("counter", Counter.class, "flaky");
    counter.next();
    engine.failNextCommits(1);

    assertThatThrownBy(counter::next).isInstanceOf(ObjectResetException.class);
    assertThat(counter.next())
        .as("the lost write was never confirmed, so its number is issued again")
        .isEqualTo(1);
  }

  /** An interface that does not match the remote object's. */
  public interface NotACounter {
    long nope();
  }

  @Test
  void aStubWhoseInterfaceDoesNotMatchTheRemoteObjectGetsAClearError() {
    NotACounter wrong = remote.get("counter", NotACounter.class, "x");

    assertThatThrownBy(wrong::nope)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no method nope");
  }

  @Test
  void malformedArgumentsComeBackAsAClearIllegalArgumentException() throws Exception {
    byte[] garbage = "not the codec's encoding".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] reply =
        remote
            .transport()
            .call("counter", ObjectId.fromName("counter", "x"), "next", garbage)
            .join();

    assertThatThrownBy(() -> Codec.standard().decodeReply(Counter.class.getMethod("next"), reply))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arguments of")
        .hasMessageContaining("next");
    assertThat(counters.get("x").current()).as("the malformed call did not run").isZero();
  }

  /**
   * Regression: requests started from virtual threads each got their own Vert.x context, and about
   * one reply in a few hundred fresh connections was never delivered (30 s timeout).
   */
  @Test
  @org.junit.jupiter.api.Tag("slow")
  // a hang guard, not a timing check: a thousand runtimes, servers and clients take 40-60 s on a
  // loaded 2-core machine, more than the module's default of 60 s
  @org.junit.jupiter.api.Timeout(300)
  void aThousandFreshConnectionsNeverLoseAReply() {
    for (int i = 0; i < 1_000; i++) {
      try (Runtime fresh = Runtime.inMemory()) {
        Namespace<Counter> local = fresh.namespace("counter", Counter.class, CounterObject::new);
        try (HttpObjectServer s =
                HttpObjectServer.builder(fresh.transport())
                    .export("counter")
                    .secret(SECRET)
                    .start();
            RemoteObjects r =
                RemoteObjects.over(
                    HttpObjectTransport.builder(s.uri())
                        .secret(SECRET)
                        .timeout(java.time.Duration.ofSeconds(10))
                        .build())) {
          Counter viaHttp = r.get("counter", Counter.class, "orders");
          viaHttp.next();
          viaHttp.next();
          local.get("orders").next();
          assertThat(viaHttp.current()).as("iteration " + i).isEqualTo(3);
        }
      }
    }
  }

  @Test
  void anUnknownNamespaceIs404() {
    Counter nowhere = remote.get("nowhere", Counter.class, "x");

    assertThatThrownBy(nowhere::next)
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("HTTP 404")
        .hasMessageContaining("unknown namespace \"nowhere\"")
        .hasMessageContaining("the call was not run");
  }

  @Test
  void aClosedRuntimeIs503AndTheCallWasNotRun() {
    Counter counter = remote.get("counter", Counter.class, "late");
    runtime.close();

    assertThatThrownBy(counter::next)
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("HTTP 503")
        .hasMessageContaining("runtime is closed")
        .hasMessageContaining("the call was not run");
  }
}
