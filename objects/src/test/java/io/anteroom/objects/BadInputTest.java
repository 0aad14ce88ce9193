package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Storage limits and bad input: each a clear exception, and nothing already confirmed is lost. */
class BadInputTest {

  interface Probe {
    void put(String key, String value);

    void run(String scenario);

    Map<String, String> all();

    String echo(Object anything);
  }

  /**
   * Runs one bad call per scenario inside the object (so limits are checked where objects live).
   */
  static final class ProbeObject implements Probe {
    static final Map<String, Consumer<Storage>> SCENARIOS = scenarios();

    private static Map<String, Consumer<Storage>> scenarios() {
      Map<String, Consumer<Storage>> scenarios = new HashMap<>();
      List<String> tooMany = new ArrayList<>();
      Map<String, Object> tooManyEntries = new HashMap<>();
      for (int i = 0; i <= Storage.MAX_KEYS_PER_CALL; i++) {
        tooMany.add("k" + i);
        tooManyEntries.put("k" + i, i);
      }
      scenarios.put("long ascii key", s -> s.put("k".repeat(2049), 1));
      scenarios.put("long multibyte key", s -> s.put("€".repeat(700), 1)); // 700 chars, 2100 bytes
      scenarios.put("long key in get", s -> s.get("k".repeat(2049), String.class));
      scenarios.put("large value", s -> s.put("big", "x".repeat(128 * 1024)));
      scenarios.put("null value", s -> s.put("k", null));
      scenarios.put("unserializable value", s -> s.put("k", new Object()));
      scenarios.put("too many keys in get", s -> s.get(tooMany, String.class));
      scenarios.put("too many keys in put", s -> s.put(tooManyEntries));
      scenarios.put("too many keys in delete", s -> s.delete(tooMany));
      scenarios.put(
          "good then bad in one put",
          s -> {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("fine", "value");
            m.put("k".repeat(3000), "value");
            s.put(m);
          });
      return Map.copyOf(scenarios);
    }

    private final Storage storage;

    ProbeObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public void put(String key, String value) {
      storage.put(key, value);
    }

    @Override
    public void run(String scenario) {
      SCENARIOS.get(scenario).accept(storage);
    }

    @Override
    public Map<String, String> all() {
      return storage.list(ListOptions.ALL, String.class);
    }

    @Override
    public String echo(Object anything) {
      return String.valueOf(anything);
    }
  }

  private static void assertRejected(Probe probe, String scenario, String... messageParts) {
    assertThatThrownBy(() -> probe.run(scenario))
        .as(scenario)
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(messageParts);
    assertThat(probe.all())
        .as("confirmed data after: " + scenario)
        .isEqualTo(Map.of("kept", "safe"));
  }

  @Test
  void storageLimitsAreClearIllegalArgumentsAndLoseNothing() {
    try (Fixture f = new Fixture()) {
      Probe probe = f.runtime.namespace("probe", Probe.class, ProbeObject::new).get("p");
      probe.put("kept", "safe");
      assertRejected(probe, "long ascii key", "2049 bytes", "limited to 2048");
      assertRejected(probe, "long multibyte key", "2100 bytes", "limited to 2048");
      assertRejected(probe, "long key in get", "limited to 2048");
      assertRejected(probe, "large value", "bytes encoded", "limited to 131072");
      assertRejected(probe, "null value", "null value", "delete");
      assertRejected(probe, "unserializable value", "cannot be stored", "java.lang.Object");
      assertRejected(probe, "too many keys in get", "129 keys", "at most 128");
      assertRejected(probe, "too many keys in put", "129 keys", "at most 128");
      assertRejected(probe, "too many keys in delete", "129 keys", "at most 128");
      assertRejected(probe, "good then bad in one put", "limited to 2048");
      assertThat(f.meter("resets")).isZero();
    }
  }

  @Test
  void valueLimitIsConfigurable() {
    try (Fixture f = new Fixture(b -> b.maxValueBytes(16))) {
      Probe probe = f.runtime.namespace("probe", Probe.class, ProbeObject::new).get("p");
      probe.put("kept", "safe");
      assertThatThrownBy(() -> probe.put("k", "x".repeat(20)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("22 bytes encoded")
          .hasMessageContaining("limited to 16");
      assertThat(probe.all()).isEqualTo(Map.of("kept", "safe"));
    }
  }

  @Test
  void invalidListOptionsAreRejectedWhenBuilt() {
    assertThatThrownBy(() -> ListOptions.builder().limit(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit must be greater than 0, got 0");
    assertThatThrownBy(() -> ListOptions.builder().limit(-5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got -5");
    assertThatThrownBy(() -> ListOptions.builder().start("a").startAfter("b").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mutually exclusive");
  }

  @Test
  void unserializableArgumentsFailInTheCallerBeforeAnythingIsSent() {
    try (Fixture f = new Fixture()) {
      Namespace<Probe> ns = f.runtime.namespace("probe", Probe.class, ProbeObject::new);
      Probe probe = ns.get("p");
      probe.put("kept", "safe");
      long events = f.meter("events");
      assertThatThrownBy(() -> probe.echo(new Object()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("argument 0 of Probe.echo")
          .hasMessageContaining("not serializable");
      Probe remote = Stubs.create(Probe.class, "probe", ns.idFromName("p"), f.runtime.transport());
      assertThatThrownBy(() -> remote.echo(new java.io.ByteArrayOutputStream()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("argument 0 of Probe.echo");
      assertThat(f.meter("events")).isEqualTo(events);
      assertThat(probe.echo(List.of(1, 2))).isEqualTo("[1, 2]");
      assertThat(probe.all()).isEqualTo(Map.of("kept", "safe"));
    }
  }

  @Test
  void callsToAClosedRuntimeAreIllegalStateAndConfirmedDataSurvives(@TempDir Path dir)
      throws Exception {
    Runtime runtime = Runtime.builder().dataDir(dir).build();
    Namespace<Counter> ns = runtime.namespace("counter", Counter.class, CounterObject::new);
    Counter counter = ns.get("c");
    for (int i = 0; i < 10; i++) counter.next();
    runtime.close();
    assertThatThrownBy(counter::next)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("runtime is closed");
    assertThatThrownBy(
            () ->
                runtime
                    .transport()
                    .call("counter", ns.idFromName("c"), "next", "[]".getBytes())
                    .get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> runtime.namespace("other", Counter.class, CounterObject::new))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("runtime is closed");
    runtime.close(); // idempotent
    try (Runtime reopened = Runtime.builder().dataDir(dir).build()) {
      assertThat(reopened.namespace("counter", Counter.class, CounterObject::new).get("c").next())
          .isEqualTo(10);
    }
  }

  @Test
  void badNamespacesAndInterfacesAreRejectedAtRegistration() {
    try (Fixture f = new Fixture()) {
      assertThatThrownBy(() -> f.runtime.namespace("a/b", Counter.class, CounterObject::new))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("[A-Za-z0-9._-]");
      f.runtime.namespace("counter", Counter.class, CounterObject::new);
      assertThatThrownBy(() -> f.runtime.namespace("counter", Counter.class, CounterObject::new))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already registered");
      assertThatThrownBy(() -> f.runtime.namespace("overloads", Overloaded.class, ctx -> null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("overloads method add");
      assertThatThrownBy(() -> f.runtime.namespace("klass", String.class, ctx -> ""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not an interface");
    }
  }

  interface Leaky {
    String useStorageFromAnotherThread() throws Exception;
  }

  @Test
  void storageUsedOutsideTheObjectsOwnEventIsRefused() throws Exception {
    try (Fixture f = new Fixture()) {
      Leaky leaky =
          f.runtime
              .namespace(
                  "leaky",
                  Leaky.class,
                  ctx ->
                      () -> {
                        java.util.concurrent.CompletableFuture<String> outcome =
                            new java.util.concurrent.CompletableFuture<>();
                        Thread.ofPlatform()
                            .start(
                                () -> {
                                  try {
                                    ctx.storage().put("k", 1);
                                    outcome.complete("allowed");
                                  } catch (IllegalStateException e) {
                                    outcome.complete(e.getMessage());
                                  }
                                })
                            .join();
                        return outcome.get();
                      })
              .get("l");
      assertThat(leaky.useStorageFromAnotherThread())
          .contains("storage of object leaky/")
          .contains("outside of the object's own event");
    }
  }

  interface Overloaded {
    void add(int a);

    void add(long a);
  }

  @Test
  void aRuntimeWithoutStorageIsAClearError() {
    assertThatThrownBy(() -> Runtime.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dataDir");
    assertThatThrownBy(() -> Runtime.builder().maxQueuedEvents(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxQueuedEvents must be greater than 0");
  }
}
