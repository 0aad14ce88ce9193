package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.storage.StorageEngine.AlarmChange;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class BatchCodecTest {

  @Test
  void aGroupCommitSurvivesTheRoundTripWithDeletesAlarmsAndOrder() {
    Map<String, byte[]> writes = new LinkedHashMap<>();
    writes.put("z", "last".getBytes(StandardCharsets.UTF_8));
    writes.put("gone", null);
    writes.put("é-ü-日本", new byte[0]);
    List<Batch> batches =
        List.of(
            new Batch("counter/abc", false, writes, null),
            new Batch(
                "room/main",
                true,
                Map.of(),
                new AlarmChange(Instant.ofEpochSecond(1_800_000_000L, 123_456_789))),
            new Batch(
                "room/other", false, Map.of("k", new byte[] {1, 2, 3}), new AlarmChange(null)));

    List<Batch> decoded = BatchCodec.decode(BatchCodec.encode(batches));

    assertSameBatches(decoded, batches);
    assertThat(decoded.get(0).writes().keySet()).containsExactly("z", "gone", "é-ü-日本");
  }

  @Test
  void anEmptyGroupCommitRoundTrips() {
    assertThat(BatchCodec.decode(BatchCodec.encode(List.of()))).isEmpty();
  }

  @Test
  void anUnknownFormatIsRejectedWithItsNumber() {
    byte[] entry = BatchCodec.encode(List.of());
    entry[0] = 9;
    assertThatThrownBy(() -> BatchCodec.decode(entry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown batch format 9");
  }

  @Test
  void aTruncatedEntryIsRejected() {
    byte[] entry =
        BatchCodec.encode(List.of(new Batch("o", false, Map.of("k", new byte[10]), null)));
    assertThatThrownBy(() -> BatchCodec.decode(Arrays.copyOf(entry, entry.length - 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated");
  }

  @Property(tries = 200)
  void everyGroupCommitRoundTrips(@ForAll("groupCommits") List<Batch> batches) {
    assertSameBatches(BatchCodec.decode(BatchCodec.encode(batches)), batches);
  }

  @Provide
  Arbitrary<List<Batch>> groupCommits() {
    Arbitrary<String> names = Arbitraries.strings().ofMinLength(1).ofMaxLength(20);
    Arbitrary<byte[]> values =
        Arbitraries.bytes().array(byte[].class).ofMaxSize(50).injectNull(0.2);
    Arbitrary<Map<String, byte[]>> writes = Arbitraries.maps(names, values).ofMaxSize(5);
    Arbitrary<AlarmChange> alarms =
        Arbitraries.longs()
            .between(0, 4_000_000_000L)
            .map(s -> new AlarmChange(Instant.ofEpochSecond(s, s % 1_000_000_000)))
            .injectNull(0.5);
    Arbitrary<AlarmChange> withDeletes =
        Arbitraries.oneOf(alarms, Arbitraries.just(new AlarmChange(null)));
    Arbitrary<Batch> batch =
        Combinators.combine(names, Arbitraries.of(true, false), writes, withDeletes).as(Batch::new);
    return batch.list().ofMaxSize(8);
  }

  static void assertSameBatches(List<Batch> actual, List<Batch> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      Batch a = actual.get(i);
      Batch e = expected.get(i);
      assertThat(a.object()).isEqualTo(e.object());
      assertThat(a.deleteAll()).isEqualTo(e.deleteAll());
      assertThat(a.alarm()).isEqualTo(e.alarm());
      assertThat(new ArrayList<>(a.writes().keySet()))
          .isEqualTo(new ArrayList<>(e.writes().keySet()));
      e.writes().forEach((k, v) -> assertThat(a.writes().get(k)).isEqualTo(v));
    }
  }
}
