package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.Incarnation;
import io.anteroom.objects.Runtime;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client learns from the replies that the objects it calls were recreated: a coordinator restart
 * behind the same address, a new runtime, is one change; the first reply, and more replies of the
 * same instance, are none.
 */
class IncarnationWatchTest {
  private static final SharedSecret SECRET = RemoteObjectsTest.SECRET;

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) toClose.get(i).close();
  }

  private static Incarnation of(String group, long id) {
    return new Incarnation(group, id);
  }

  @Test
  void theFirstInstanceOfAGroupIsNoChangeAndEveryOtherInstanceAfterItIsOne() {
    var watch = new IncarnationWatch();
    watch.observe(of("shard-0", 7));
    watch.observe(of("shard-0", 7));
    watch.observe(of("shard-1", 8)); // another group's first
    assertThat(watch.changes()).isZero();

    watch.observe(of("shard-0", 9)); // a new leader of shard 0
    assertThat(watch.changes()).isEqualTo(1);
    watch.observe(of("shard-0", 7)); // a late reply of the old leader: counted again, never lost
    assertThat(watch.changes()).isEqualTo(2);
    watch.observe(of("shard-1", 8));
    assertThat(watch.changes()).isEqualTo(2);
  }

  @Test
  void malformedOrMissingHeadersChangeNothing() {
    var watch = new IncarnationWatch();
    watch.observe(of("runtime", 1));
    for (String header :
        new String[] {
          null,
          "",
          "runtime",
          "runtime/",
          "runtime/2",
          "runtime/00000000000000002/",
          "runtime/000000000000000g",
          "runtime/+000000000000002",
          "/0000000000000002",
          "run time/0000000000000002",
          "x".repeat(33) + "/0000000000000002",
          "runtime/" + "0".repeat(10_000)
        }) {
      watch.observe(header);
    }
    assertThat(watch.changes()).isZero();
    watch.observe("runtime/0000000000000002");
    assertThat(watch.changes()).as("a well-formed other instance").isEqualTo(1);
  }

  @Test
  void aServerNamingMoreGroupsThanAnyCoordinatorHasMakesTheWatchStartOverAndCountAChange() {
    var watch = new IncarnationWatch();
    for (int g = 0; g < IncarnationWatch.MAX_GROUPS; g++) watch.observe(of("g" + g, g));
    assertThat(watch.changes()).isZero();
    watch.observe(of("one-too-many", 1));
    assertThat(watch.changes()).isEqualTo(1);
    watch.observe(of("g0", 0)); // forgotten: a first sight again
    assertThat(watch.changes()).isEqualTo(1);
  }

  @Test
  void aRuntimeRestartedOnTheSameDataIsOneChangeSeenBeforeTheReplyCompletes() {
    var engine = new InMemoryStorageEngine(); // the data outlives the runtime, as on disk
    var watch = new IncarnationWatch();

    Runtime first = serve(engine);
    Counter before = counterOn(watch);
    assertThat(before.next()).isZero();
    assertThat(before.next()).isEqualTo(1);
    assertThat(watch.changes()).as("one instance so far").isZero();
    Incarnation old = first.incarnation();
    closeServerAndRuntime();

    // a restarted coordinator, reached through a transport of its own (a routing transport has one
    // per coordinator) that notes its replies in the same watch
    Runtime second = serve(engine);
    assertThat(second.incarnation()).isNotEqualTo(old);
    Counter after = counterOn(watch);
    long number = after.next();
    assertThat(watch.changes()).as("seen by the time the reply is returned").isEqualTo(1);
    assertThat(number).as("the objects' data survived; their instances did not").isEqualTo(2);
    assertThat(after.next()).isEqualTo(3);
    assertThat(watch.changes()).isEqualTo(1);
  }

  @Test
  void aRuntimeThatResetsAllItsObjectsIsANewInstance() {
    Runtime runtime = serve(new InMemoryStorageEngine());
    var watch = new IncarnationWatch();
    Counter counter = counterOn(watch);
    assertThat(counter.next()).isZero();
    Incarnation old = runtime.incarnation();

    runtime.resetAll("fenced: a lease lapsed"); // same runtime, every instance recreated
    assertThat(runtime.incarnation()).isNotEqualTo(old);
    assertThat(counter.next()).isEqualTo(1);
    assertThat(watch.changes()).isEqualTo(1);
  }

  @Test
  void anInstanceReadsBackFromItsTextAndItsGroupIsChecked() {
    Incarnation i = of("shard-12", -2);
    assertThat(i.toString()).isEqualTo("shard-12/fffffffffffffffe");
    assertThat(Incarnation.parse(i.toString())).contains(i);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> of("a/b", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("group");
  }

  private Runtime runtime;
  private HttpObjectServer server;

  private Runtime serve(InMemoryStorageEngine engine) {
    runtime = Runtime.builder().storage(engine).build();
    runtime.namespace("counter", Counter.class, CounterObject::new);
    server = HttpObjectServer.builder(runtime.transport()).export("counter").secret(SECRET).start();
    toClose.add(this::closeServerAndRuntime);
    return runtime;
  }

  /** The counter "c" of the server now running, its replies noted in {@code watch}. */
  private Counter counterOn(IncarnationWatch watch) {
    var transport =
        HttpObjectTransport.builder(server.uri()).secret(SECRET).incarnations(watch).build();
    toClose.add(transport);
    return RemoteObjects.over(transport).get("counter", Counter.class, "c");
  }

  private void closeServerAndRuntime() {
    if (server != null) server.close();
    if (runtime != null) runtime.close();
    server = null;
    runtime = null;
  }
}
