package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Receipts recomputed with the room's own rules (pure; the secrets are the gateway's). */
class DrawAuditTest {
  static final Instant PREQUEUE = Instant.parse("2026-12-01T17:30:00Z");
  static final Instant START = Instant.parse("2026-12-01T18:00:00Z");
  static final Draw SHUFFLE =
      Draw.shuffle(
          "shop", new EventWindow("launch", PREQUEUE, START, START.plusSeconds(7200), true));
  static final Lottery LOTTERY = Draw.lotteryOf("a secret of sixteen bytes at least".getBytes());

  static List<DrawAudit.Receipt> receipts(int n) {
    var out = new ArrayList<DrawAudit.Receipt>();
    for (long id = 1; id <= n; id++) {
      out.add(new DrawAudit.Receipt(SHUFFLE, id, SHUFFLE.place(LOTTERY, id), null, null));
    }
    return out;
  }

  @Test
  void everyReceiptIsRecomputedAndATamperedOneIsNamed() {
    assertThat(DrawAudit.verify(SHUFFLE, LOTTERY, receipts(30)).allMatch()).isTrue();
    var receipts = receipts(30);
    DrawAudit.Receipt r = receipts.get(4);
    receipts.set(4, new DrawAudit.Receipt(SHUFFLE, r.ticketId(), (r.place() + 7) % 60, null, null));
    var result = DrawAudit.verify(SHUFFLE, LOTTERY, receipts);
    assertThat(result.allMatch()).isFalse();
    assertThat(result.checked().stream().filter(c -> !c.matches()).map(c -> c.receipt().ticketId()))
        .containsExactly(5L);
    // another lottery (another secret) gives other places
    Lottery other = Draw.lotteryOf("another secret of sixteen bytes".getBytes());
    assertThat(DrawAudit.verify(SHUFFLE, other, receipts(30)).allMatch()).isFalse();
  }

  @Test
  void theRoomAndTheAuditUseOneRule() {
    // the place the room gives is the event's place of the ticket under the draw's lottery
    assertThat(SHUFFLE.place(LOTTERY, 42))
        .isEqualTo(LOTTERY.place("launch", 42, EventWindow.SHUFFLE_PLACES));
    Draw hour = Draw.randomAt("shop", START.plusSeconds(600));
    long minute = Draw.minuteOf(START.plusSeconds(600));
    assertThat(hour.lot(LOTTERY, 42, minute)).isEqualTo(LOTTERY.uniform("shop", 42, minute));
    assertThat(hour.hasMinute(minute)).isTrue();
    assertThat(hour.hasMinute(minute + 60)).isFalse();
  }

  @Test
  void unkeyedDrawsDifferPerDraw() {
    DrawKeys keys = DrawKeys.unkeyed("seed");
    Draw other = Draw.randomAt("shop", START);
    int same = 0;
    for (long id = 1; id <= 600; id++) {
      if (SHUFFLE.place(keys.lottery(SHUFFLE), id) == SHUFFLE.place(keys.lottery(other), id)) {
        same++;
      }
    }
    assertThat(same).isLessThan(40);
  }
}
