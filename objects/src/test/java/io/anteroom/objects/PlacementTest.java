package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A runtime that serves only some objects ({@link Runtime.Builder#placement}, one shard of a
 * cluster) reaches the others through the placement's transport, with the caller's gates.
 */
class PlacementTest {

  public interface Target {
    long next();
  }

  public interface Caller {
    /** Writes {@code note}, then calls the target and returns its number. */
    long writeThenCall(String note);
  }

  static final class TargetObject implements Target {
    private final Storage storage;

    TargetObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public long next() {
      long v = storage.get("n", Long.class).orElse(0L);
      storage.put("n", v + 1);
      return v;
    }
  }

  static final class CallerObject implements Caller {
    private final ObjectContext ctx;

    CallerObject(ObjectContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public long writeThenCall(String note) {
      ctx.storage().put("note", note);
      return ctx.namespace("target", Target.class).get("t").next();
    }
  }

  private static void register(Runtime r) {
    r.namespace("target", Target.class, TargetObject::new);
    r.namespace("caller", Caller.class, CallerObject::new);
  }

  /** A transport that records the calls it forwards to {@code to}. */
  record Recording(Runtime to, List<String> calls) implements ObjectTransport {
    @Override
    public CompletableFuture<byte[]> call(
        String namespace, ObjectId id, String method, byte[] encodedArgs) {
      calls.add(namespace + "." + method);
      return to.transport().call(namespace, id, method, encodedArgs);
    }
  }

  @Test
  void aCallToAnObjectServedElsewhereGoesThroughThePlacementsTransportAfterTheCallersWrites()
      throws Exception {
    InMemoryStorageEngine callerStore = new InMemoryStorageEngine();
    try (Runtime targets = Runtime.inMemory()) {
      register(targets);
      List<String> forwarded = new CopyOnWriteArrayList<>();
      Recording elsewhere = new Recording(targets, forwarded);
      try (Runtime callers =
          Runtime.builder()
              .storage(callerStore)
              .placement(
                  new Runtime.Placement() {
                    @Override
                    public boolean here(String namespace, ObjectId id) {
                      return namespace.equals("caller");
                    }

                    @Override
                    public ObjectTransport elsewhere() {
                      return elsewhere;
                    }
                  })
              .build()) {
        register(callers);
        Caller caller = callers.namespace("caller", Caller.class).get("c");

        // the caller's write is not durable yet: its outgoing call must not leave
        InMemoryStorageEngine.Hold hold = callerStore.holdCommits();
        CompletableFuture<Long> first =
            CompletableFuture.supplyAsync(() -> caller.writeThenCall("a"));
        hold.awaitBlocked();
        assertThat(forwarded).isEmpty();
        hold.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(caller.writeThenCall("b")).isEqualTo(1);
        assertThat(forwarded).containsExactly("target.next", "target.next");

        // the target ran in the other runtime only; this one never created it
        assertThat(targets.namespace("target", Target.class).get("t").next()).isEqualTo(2);
        assertThat(callers.metrics().getGauges().get("objects.live").getValue()).isEqualTo(1);

        // a stub taken outside any object goes there too
        assertThat(callers.namespace("target", Target.class).get("t").next()).isEqualTo(3);
        assertThat(forwarded).hasSize(3);
      }
    }
  }

  @Test
  void withoutAPlacementEveryObjectIsServedHere() {
    try (Runtime r = Runtime.inMemory()) {
      register(r);
      assertThat(r.namespace("caller", Caller.class).get("c").writeThenCall("x")).isZero();
      assertThat(r.namespace("target", Target.class).get("t").next()).isEqualTo(1);
      assertThatThrownBy(() -> Runtime.builder().placement(null))
          .isInstanceOf(NullPointerException.class);
    }
  }
}
