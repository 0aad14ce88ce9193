package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.storage.InMemoryStorageEngine;
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
    private final ObjectContext ctx;
    private final AtomicInteger overlaps;
    private int inside;
    private int done;

    BusyObject(ObjectContext ctx, AtomicInteger overlaps) {
      this.ctx = ctx;
      this.overlaps = overlaps;
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
        ctx.await(
            CompletableFuture.supplyAsync(
                () -> 1,
                CompletableFuture.delayedExecutor(0, java.util.concurrent.TimeUnit.MILLISECONDS)));
        section();
      }
      return ++done;
    }
  }

  @Test
  void eventsNeverOverlapEvenAcrossOutgoingWaits() throws Exception {
    AtomicInteger overlaps = new AtomicInteger();
    try (Fixture f = new Fixture()) {
      Busy busy =
          f.runtime.namespace("busy", Busy.class, ctx -> new BusyObject(ctx, overlaps)).get("b");
      List<CompletableFuture<Void>> callers = new ArrayList<>();
      for (int c = 0; c < 48; c++) {
        boolean wait = c % 2 == 0;
        callers.add(
            f.async(
                () -> {
                  for (int i = 0; i < 40; i++) busy.work(wait);
                  return null;
                }));
      }
      for (CompletableFuture<Void> c : callers) c.get();
      assertThat(overlaps).hasValue(0);
      assertThat(busy.work(false)).isEqualTo(48 * 40 + 1);
    }
  }

  interface Sleeper {
    String nap(int seconds);

    String sendAfterWrite();

    String hello();
  }

  static final class SleeperObject implements Sleeper {
    private final ObjectContext ctx;
    private final java.util.concurrent.atomic.AtomicBoolean sent;

    SleeperObject(ObjectContext ctx) {
      this(ctx, new java.util.concurrent.atomic.AtomicBoolean());
    }

    SleeperObject(ObjectContext ctx, java.util.concurrent.atomic.AtomicBoolean sent) {
      this.ctx = ctx;
      this.sent = sent;
    }

    @Override
    public String nap(int seconds) {
      ctx.sleep(java.time.Duration.ofSeconds(seconds));
      return "rested at " + ctx.clock().instant();
    }

    @Override
    public String sendAfterWrite() {
      ctx.storage().put("about-to-send", true);
      return ctx.outgoing(
          () -> {
            sent.set(true); // e.g. an HTTP request: must not leave before the write is durable
            return CompletableFuture.completedFuture("sent");
          });
    }

    @Override
    public String hello() {
      return "hello";
    }
  }

  @Test
  void sleepOpensTheGateAndWakesOnTheScheduler() throws Exception {
    try (Fixture f = new Fixture()) {
      Sleeper sleeper = f.runtime.namespace("sleeper", Sleeper.class, SleeperObject::new).get("s");
      CompletableFuture<String> nap = f.async(() -> sleeper.nap(5));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .until(() -> f.time.pending() >= 2);
      assertThat(sleeper.hello()).isEqualTo("hello"); // runs while the first event sleeps
      assertThat(nap).isNotDone();
      f.time.advance(java.time.Duration.ofSeconds(5));
      assertThat(nap.get()).isEqualTo("rested at 2026-01-01T00:00:05Z");
    }
  }

  @Test
  void anObjectSuspendedInAnOutgoingWaitIsNotEvictedAsIdle() throws Exception {
    try (Fixture f = new Fixture()) {
      Sleeper sleeper = f.runtime.namespace("sleeper", Sleeper.class, SleeperObject::new).get("s");
      CompletableFuture<String> nap = f.async(() -> sleeper.nap(60));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .until(() -> f.time.pending() >= 2);
      f.time.advance(java.time.Duration.ofSeconds(45)); // past the 30 s idle timeout, still asleep
      assertThat(f.runtime.liveObjects()).isEqualTo(1);
      f.time.advance(java.time.Duration.ofSeconds(15));
      assertThat(nap.get()).isEqualTo("rested at 2026-01-01T00:01:00Z");
      f.time.advance(java.time.Duration.ofSeconds(40));
      assertThat(f.runtime.liveObjects()).isZero();
    }
  }

  @Test
  void outgoingMessagesWaitForEarlierWrites() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean sent =
        new java.util.concurrent.atomic.AtomicBoolean();
    try (Fixture f = new Fixture()) {
      Sleeper sleeper =
          f.runtime
              .namespace("sleeper", Sleeper.class, ctx -> new SleeperObject(ctx, sent))
              .get("s");
      sleeper.hello();
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<String> send = f.async(sleeper::sendAfterWrite);
      commits.awaitBlocked();
      assertThat(sent).isFalse();
      commits.release();
      assertThat(send.get()).isEqualTo("sent");
      assertThat(sent).isTrue();
    }
  }

  interface Fetcher {
    String writeThenFetch(String url) throws Exception;
  }

  @Test
  void fetchLeavesOnlyAfterEarlierWritesAreDurable() throws Exception {
    java.util.concurrent.atomic.AtomicInteger requests =
        new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          byte[] body = "pong".getBytes();
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try (Fixture f = new Fixture()) {
      Fetcher fetcher =
          f.runtime
              .namespace(
                  "fetcher",
                  Fetcher.class,
                  ctx ->
                      url -> {
                        ctx.storage().put("asked", url);
                        return ctx.fetch(
                                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                                    .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString())
                            .body();
                      })
              .get("f");
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<String> call = f.async(() -> fetcher.writeThenFetch(url));
      commits.awaitBlocked();
      assertThat(requests).hasValue(0); // held by the output gate
      commits.release();
      assertThat(call.get()).isEqualTo("pong");
      assertThat(requests).hasValue(1);
    } finally {
      server.stop(0);
    }
  }

  // ------------------------------------------------------------------ the InputGate type on its
  // own

  private static InputGate<String> gate(int maxQueued) {
    return new InputGate<>(
        "test/g",
        maxQueued,
        java.time.Clock.systemUTC(),
        new com.codahale.metrics.Meter(),
        () -> true);
  }

  @Test
  void aFreeGateIsEnteredAtOnceAndArrivalsQueueFirstInFirstOut() {
    InputGate<String> g = gate(10);
    assertThat(g.arrive("a")).isEqualTo(InputGate.Admission.ENTERED);
    assertThat(g.arrive("b")).isEqualTo(InputGate.Admission.QUEUED);
    assertThat(g.arrive("c")).isEqualTo(InputGate.Admission.QUEUED);
    assertThat(g.queuedEvents()).isEqualTo(2);
    assertThat(g.leave()).isEqualTo("b");
    assertThat(g.leave()).isEqualTo("c");
    assertThat(g.leave()).isNull();
    assertThat(g.arrive("d")).isEqualTo(InputGate.Admission.ENTERED);
  }

  @Test
  void arrivalsBeyondTheQueueLimitAreRefused() {
    InputGate<String> g = gate(1);
    g.arrive("running");
    g.arrive("waiting");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> g.arrive("one too many"))
        .isInstanceOf(ObjectOverloadedException.class)
        .hasMessageContaining("limit 1");
  }

  @Test
  void aSuspendedEventLetsTheNextInAndQueuesBehindItToResume() throws Exception {
    InputGate<String> g = gate(10);
    g.arrive("first");
    g.arrive("second");
    assertThat(g.suspend()).isEqualTo("second"); // the caller now serves "second"
    Thread resumer = new Thread(g::resume, "resumption of first");
    resumer.start();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(20))
        .until(() -> resumer.getState() == Thread.State.WAITING); // parked behind "second"
    assertThat(g.whenIdle()).isNotDone();
    assertThat(g.leave()).isNull(); // "second" done: the gate goes to the resumption
    resumer.join(20_000);
    assertThat(resumer.isAlive()).isFalse();
    assertThat(g.leave()).isNull(); // "first" done: the gate is free
    assertThat(g.whenIdle()).isDone();
  }

  @Test
  void aFailedGateAdmitsNothingAndResumptionsSeeTheReset() {
    InputGate<String> g = gate(10);
    g.arrive("running");
    assertThat(g.suspend()).isNull();
    assertThat(g.fail(new IllegalStateException("flush failed"))).isTrue();
    assertThat(g.fail(new IllegalStateException("again"))).isFalse();
    assertThat(g.arrive("new")).isEqualTo(InputGate.Admission.CLOSED);
    org.assertj.core.api.Assertions.assertThatThrownBy(g::resume)
        .isInstanceOf(ObjectResetException.class)
        .hasMessageContaining("flush failed");
  }
}
