package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Typed stubs, the codec and the local transport. */
class StubsAndCodecTest {

  record Item(String name, int quantity, List<String> tags) {}

  record Summary(int items, int quantity, Instant at, ObjectId by) {}

  static class OutOfStock extends Exception {
    public OutOfStock(String message) {
      super(message);
    }
  }

  static class Opaque extends RuntimeException {
    Opaque(int code) {
      super("opaque " + code);
    }
  }

  interface Shop {
    Summary add(List<Item> items);

    List<Item> items();

    void reserve(int n) throws OutOfStock;

    void fail(String kind);

    CompletableFuture<Integer> countAsync();

    byte[] blob(byte[] in);
  }

  static final class ShopObject implements Shop {
    private final ObjectContext ctx;
    private final Storage s;
    final List<Item> mutableView = new ArrayList<>();

    ShopObject(ObjectContext ctx) {
      this.ctx = ctx;
      this.s = ctx.storage();
    }

    @Override
    public Summary add(List<Item> items) {
      List<Item> all = new ArrayList<>(items());
      all.addAll(items);
      s.put("items", all);
      items.get(0).tags().clear(); // mutates the object's copy, never the caller's
      return new Summary(
          all.size(), all.stream().mapToInt(Item::quantity).sum(), ctx.clock().instant(), ctx.id());
    }

    @Override
    public List<Item> items() {
      return s.get("items", Item[].class).map(List::of).orElse(List.of());
    }

    @Override
    public void reserve(int n) throws OutOfStock {
      throw new OutOfStock("only " + items().size() + " items, wanted " + n);
    }

    @Override
    public void fail(String kind) {
      switch (kind) {
        case "write then state" -> {
          s.put("attempted", true);
          throw new IllegalStateException("shop is closed");
        }
        case "state" -> throw new IllegalStateException("shop is closed");
        case "opaque" -> throw new Opaque(7);
        default -> throw new UnsupportedOperationException(kind);
      }
    }

    @Override
    public CompletableFuture<Integer> countAsync() {
      s.put("counted", true);
      return CompletableFuture.completedFuture(items().size());
    }

    @Override
    public byte[] blob(byte[] in) {
      byte[] out = in.clone();
      out[0]++;
      return out;
    }
  }

  private static void checkShop(Shop shop, ObjectId id) throws Exception {
    List<String> tags = new ArrayList<>(List.of("red"));
    Summary summary = shop.add(List.of(new Item("apple", 3, tags), new Item("pear", 2, List.of())));
    assertThat(summary.items()).isEqualTo(2);
    assertThat(summary.quantity()).isEqualTo(5);
    assertThat(summary.at()).isEqualTo(Fixture.START);
    assertThat(summary.by()).isEqualTo(id);
    assertThat(tags).containsExactly("red");
    assertThat(shop.items())
        .containsExactly(new Item("apple", 3, List.of("red")), new Item("pear", 2, List.of()));

    assertThatThrownBy(() -> shop.reserve(5))
        .isInstanceOf(OutOfStock.class)
        .hasMessage("only 2 items, wanted 5");
    assertThatThrownBy(() -> shop.fail("state"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("shop is closed");
    assertThatThrownBy(() -> shop.fail("nope"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("nope");
    assertThatThrownBy(() -> shop.fail("opaque"))
        .isInstanceOfSatisfying(
            ObjectException.class,
            e -> {
              assertThat(e.type()).isEqualTo(Opaque.class.getName());
              assertThat(e.remoteMessage()).isEqualTo("opaque 7");
            });
    assertThat(shop.countAsync().get()).isEqualTo(2);
    assertThat(shop.blob(new byte[] {1, 2})).containsExactly(2, 2);
    assertThat(shop.toString()).contains(id.toString());
  }

  @Test
  void typedStubsCarryRecordsAndExceptionsWithTheirTypeAndMessage() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Shop> shops = f.runtime.namespace("shop", Shop.class, ShopObject::new);
      checkShop(shops.get("s"), shops.idFromName("s"));
    }
  }

  @Test
  void stubsOverTheLocalTransportBehaveTheSame() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Shop> shops = f.runtime.namespace("shop", Shop.class, ShopObject::new);
      ObjectId id = shops.newUniqueId();
      checkShop(Stubs.create(Shop.class, "shop", id, f.runtime.transport()), id);
    }
  }

  @Test
  void transportReplyIsReleasedOnlyAfterTheOutputGate() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Counter> ns = f.runtime.namespace("counter", Counter.class, CounterObject::new);
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<byte[]> reply =
          f.runtime.transport().call("counter", ns.idFromName("c"), "next", "[]".getBytes());
      commits.awaitBlocked();
      assertThat(reply).isNotDone();
      commits.release();
      assertThat(Codec.standard().decodeReply(Counter.class.getMethod("next"), reply.get()))
          .isEqualTo(0L);
    }
  }

  @Test
  void transportEncodesResetsAndOverloadAsErrorReplies() throws Exception {
    try (Fixture f = new Fixture(b -> b.maxQueuedEvents(1))) {
      Namespace<Counter> ns = f.runtime.namespace("counter", Counter.class, CounterObject::new);
      java.lang.reflect.Method next = Counter.class.getMethod("next");
      ObjectId id = ns.idFromName("c");
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<byte[]> held =
          f.runtime.transport().call("counter", id, "next", "[]".getBytes());
      commits.awaitBlocked();
      f.engine.failNextCommits(1);
      commits.release();
      byte[] reply = held.get();
      assertThatThrownBy(() -> Codec.standard().decodeReply(next, reply))
          .isInstanceOf(ObjectResetException.class);

      CompletableFuture<Void> release = new CompletableFuture<>();
      Namespace<Blocking> blockers =
          f.runtime.namespace("blocking", Blocking.class, ctx -> () -> release.join());
      ObjectId b = blockers.idFromName("b");
      CompletableFuture<byte[]> running =
          f.runtime.transport().call("blocking", b, "block", "[]".getBytes());
      org.awaitility.Awaitility.await().until(() -> f.meter("events") >= 2);
      CompletableFuture<byte[]> queued =
          f.runtime.transport().call("blocking", b, "block", "[]".getBytes());
      byte[] rejected = f.runtime.transport().call("blocking", b, "block", "[]".getBytes()).get();
      java.lang.reflect.Method block = Blocking.class.getMethod("block");
      assertThatThrownBy(() -> Codec.standard().decodeReply(block, rejected))
          .isInstanceOf(ObjectOverloadedException.class);
      release.complete(null);
      running.get();
      queued.get();
    }
  }

  interface Blocking {
    void block();
  }

  @Test
  void asyncMethodsCompleteAfterTheOutputGate() throws Exception {
    try (Fixture f = new Fixture()) {
      Counter counter = f.runtime.namespace("counter", Counter.class, CounterObject::new).get("c");
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Long> next = counter.nextAsync();
      commits.awaitBlocked();
      assertThat(next).isNotDone();
      commits.release();
      assertThat(next.get()).isZero();
    }
  }

  @Test
  void transportAnswersUnknownNamespacesMethodsAndBadArgumentsWithErrorReplies() throws Exception {
    try (Fixture f = new Fixture()) {
      f.runtime.namespace("counter", Counter.class, CounterObject::new);
      ObjectId id = ObjectId.unique();
      java.lang.reflect.Method next = Counter.class.getMethod("next");
      byte[] unknownNs = f.runtime.transport().call("nope", id, "next", "[]".getBytes()).get();
      assertThatThrownBy(() -> Codec.standard().decodeReply(next, unknownNs))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no namespace nope");
      byte[] unknownMethod =
          f.runtime.transport().call("counter", id, "reset", "[]".getBytes()).get();
      assertThatThrownBy(() -> Codec.standard().decodeReply(next, unknownMethod))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("has no method reset");
      byte[] badArgs = f.runtime.transport().call("counter", id, "next", "[1]".getBytes()).get();
      assertThatThrownBy(() -> Codec.standard().decodeReply(next, badArgs))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("takes 0 arguments");
      assertThatThrownBy(() -> Codec.standard().decodeReply(next, new byte[] {'X'}))
          .isInstanceOf(ObjectTransportException.class)
          .hasMessageContaining("malformed reply");
    }
  }

  @Test
  void idsFromNamesAreStablePerNamespaceAndUniqueIdsDiffer() {
    try (Fixture f = new Fixture()) {
      Namespace<Counter> ns = f.runtime.namespace("counter", Counter.class, CounterObject::new);
      assertThat(ns.idFromName("x")).isEqualTo(ObjectId.fromName("counter", "x"));
      assertThat(ns.newUniqueId()).isNotEqualTo(ns.newUniqueId());
      ns.stub(ns.idFromName("x")).next();
      assertThat(ns.get("x").next()).isEqualTo(1);
      assertThat(ns.get("y").next()).isZero();
    }
  }

  @Test
  void metricsUseTheDocumentedNames() {
    try (Fixture f = new Fixture()) {
      Counter counter = f.runtime.namespace("counter", Counter.class, CounterObject::new).get("c");
      counter.next();
      counter.next();
      var m = f.runtime.metrics();
      assertThat(m.meter("objects.events").getCount()).isEqualTo(2);
      assertThat(m.timer("objects.gate.wait").getCount()).isEqualTo(2);
      assertThat(m.timer("objects.flush.latency").getCount()).isEqualTo(2);
      assertThat(m.histogram("objects.flush.batch-size").getCount()).isEqualTo(2);
      assertThat(m.meter("objects.storage.fsyncs").getCount()).isEqualTo(2);
      assertThat(m.histogram("objects.storage.batches-per-commit").getCount()).isEqualTo(2);
      assertThat(m.meter("objects.cache.hits").getCount()).isEqualTo(1);
      assertThat(m.meter("objects.cache.misses").getCount()).isEqualTo(1);
      assertThat((Double) m.getGauges().get("objects.cache.hit-ratio").getValue()).isEqualTo(0.5);
      assertThat(m.getNames())
          .contains(
              "objects.resets",
              "objects.overload.rejections",
              "objects.cache.bytes",
              "objects.live",
              "objects.alarms.retries");
    }
  }

  @Test
  void aRestartedRuntimeCanShareTheMetricRegistry() {
    com.codahale.metrics.MetricRegistry shared = new com.codahale.metrics.MetricRegistry();
    InMemoryStorageEngine engine = new InMemoryStorageEngine();
    for (int run = 0; run < 2; run++) {
      try (Runtime runtime = Runtime.builder().storage(engine).metrics(shared).build()) {
        runtime.namespace("counter", Counter.class, CounterObject::new).get("c").next();
        assertThat(shared.getGauges().get("objects.live").getValue()).isEqualTo(1);
      }
    }
    assertThat(shared.meter("objects.events").getCount()).isEqualTo(2);
  }

  @Test
  void codecRoundTripsRepliesAndErrors() throws Exception {
    Codec codec = Codec.standard();
    java.lang.reflect.Method add = Shop.class.getMethod("add", List.class);
    Summary s = new Summary(1, 2, Instant.EPOCH, ObjectId.fromName("a", "b"));
    assertThat(codec.decodeReply(add, codec.encodeResult(s))).isEqualTo(s);
    Object[] args =
        codec.decodeArgs(
            add, codec.encodeArgs(add, new Object[] {List.of(new Item("x", 1, List.of("t")))}));
    assertThat(args).containsExactly(List.of(new Item("x", 1, List.of("t"))));
    assertThatThrownBy(
            () -> codec.decodeReply(add, codec.encodeError(new IllegalArgumentException("bad"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad");
    assertThat(Map.of("k", 1))
        .isEqualTo(codec.decodeValue(codec.encodeValue(Map.of("k", 1)), Map.class));
  }

  @Test
  void anExceptionReplyIsHeldByTheOutputGateToo() throws Exception {
    try (Fixture f = new Fixture()) {
      Shop shop = f.runtime.namespace("shop", Shop.class, ShopObject::new).get("s");
      shop.items();
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Void> failing =
          f.async(
              () -> {
                shop.fail("write then state"); // writes, then throws
                return null;
              });
      commits.awaitBlocked();
      assertThat(failing).isNotDone();
      commits.release();
      assertThatThrownBy(failing::get)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasRootCauseMessage("shop is closed");
    }
  }
}
