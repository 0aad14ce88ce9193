package io.anteroom.room.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AuditTrailTest {

  private static final long DAY = 86_400_000L;

  private static AuditEntry at(long millis) {
    return new AuditEntry(0, millis, "ops", "set queueAll", "shop", "127.0.0.1", "{}", "{}");
  }

  @Test
  void entriesAreNumberedInOrderAndPagedNewestFirst() {
    var trail = new AuditTrail(List.of());
    for (int i = 0; i < 5; i++) {
      assertThat(trail.append(at(i), 10).entry().seq()).isEqualTo(i + 1);
    }
    assertThat(trail.page(Long.MAX_VALUE, 2)).extracting(AuditEntry::seq).containsExactly(5L, 4L);
    assertThat(trail.page(4, 2)).extracting(AuditEntry::seq).containsExactly(3L, 2L);
    assertThat(trail.page(2, 2)).extracting(AuditEntry::seq).containsExactly(1L);
  }

  @Test
  void atMostMaxEntriesAreKeptTheOldestDroppedFirst() {
    var trail = new AuditTrail(List.of());
    for (int i = 0; i < AuditTrail.MAX_ENTRIES; i++) {
      assertThat(trail.append(at(0), 0).dropped()).isEmpty();
    }
    var a = trail.append(at(0), 0);
    assertThat(a.dropped()).containsExactly(1L);
    assertThat(trail.size()).isEqualTo(AuditTrail.MAX_ENTRIES);
    assertThat(a.entry().seq()).isEqualTo(AuditTrail.MAX_ENTRIES + 1L);
  }

  @Test
  void entriesOlderThanThirtyDaysFallOutWithTheNextAppend() {
    var trail = new AuditTrail(List.of());
    trail.append(at(0), 0);
    trail.append(at(DAY), DAY);
    var a = trail.append(at(31 * DAY), 31 * DAY);
    assertThat(a.dropped()).containsExactly(1L);
    assertThat(trail.page(Long.MAX_VALUE, 10)).extracting(AuditEntry::seq).containsExactly(3L, 2L);
  }

  @Test
  void aRestoredTrailNumbersOnFromItsNewestEntry() {
    var trail = new AuditTrail(List.of(at(0).withSeq(7), at(0).withSeq(8)));
    assertThat(trail.append(at(1), 1).entry().seq()).isEqualTo(9);
    assertThat(trail.page(Long.MAX_VALUE, 500)).hasSize(3);
  }
}
