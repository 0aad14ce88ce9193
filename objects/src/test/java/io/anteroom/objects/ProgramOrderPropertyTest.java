package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.storage.KeyRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of get / put / delete / deleteAll / list, split into events, some separated by
 * idle eviction (cache dropped, state reloaded from storage): every read sees exactly the writes
 * issued before it, as a sorted map would.
 */
class ProgramOrderPropertyTest {
  private static final List<String> KEYS = List.of("a", "b", "c", "ab", "é");

  record Op(String kind, String key, int value) {}

  record Step(List<Op> ops, boolean evictAfter) {}

  interface Machine {
    List<String> apply(List<Op> ops);
  }

  static final class MachineObject implements Machine {
    private final Storage s;

    MachineObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public List<String> apply(List<Op> ops) {
      List<String> seen = new ArrayList<>();
      for (Op op : ops) {
        switch (op.kind()) {
          case "put" -> s.put(op.key(), op.value());
          case "delete" -> seen.add("delete " + op.key() + "=" + s.delete(op.key()));
          case "deleteAll" -> s.deleteAll();
          case "get" ->
              seen.add("get " + op.key() + "=" + s.get(op.key(), Integer.class).orElse(null));
          default -> seen.add("list=" + s.list(ListOptions.ALL, Integer.class));
        }
      }
      return seen;
    }
  }

  @Property(tries = 60)
  void everyReadSeesExactlyTheEarlierWrites(@ForAll("steps") List<Step> steps) {
    TreeMap<String, Integer> model = new TreeMap<>(KeyRange.ORDER);
    try (Fixture f = new Fixture()) {
      Machine machine = f.runtime.namespace("machine", Machine.class, MachineObject::new).get("m");
      for (Step step : steps) {
        List<String> expected = new ArrayList<>();
        for (Op op : step.ops()) {
          switch (op.kind()) {
            case "put" -> model.put(op.key(), op.value());
            case "delete" ->
                expected.add("delete " + op.key() + "=" + (model.remove(op.key()) != null));
            case "deleteAll" -> model.clear();
            case "get" -> expected.add("get " + op.key() + "=" + model.get(op.key()));
            default -> expected.add("list=" + model);
          }
        }
        assertThat(machine.apply(step.ops())).isEqualTo(expected);
        if (step.evictAfter()) f.time.advance(Duration.ofMinutes(1));
      }
    }
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Op> op =
        Combinators.combine(
                Arbitraries.of("put", "put", "put", "delete", "deleteAll", "get", "get", "list"),
                Arbitraries.of(KEYS),
                Arbitraries.integers().between(0, 9))
            .as(Op::new);
    Arbitrary<Step> step =
        Combinators.combine(op.list().ofMinSize(1).ofMaxSize(6), Arbitraries.of(true, false))
            .as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(6);
  }
}
