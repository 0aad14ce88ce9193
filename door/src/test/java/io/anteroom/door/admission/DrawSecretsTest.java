package io.anteroom.door.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.room.Draw;
import io.anteroom.room.DrawAudit;
import io.anteroom.room.EventWindow;
import io.anteroom.room.Lottery;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The auditable draw: a secret per draw, its commitment, its reveal time, receipts checked. */
class DrawSecretsTest {
  static final byte[] KEY = "a lottery key of thirty-two byte".getBytes(StandardCharsets.UTF_8);
  static final Instant PREQUEUE = Instant.parse("2026-12-01T17:30:00Z");
  static final Instant START = Instant.parse("2026-12-01T18:00:00Z");
  static final EventWindow LAUNCH =
      new EventWindow("launch", PREQUEUE, START, START.plusSeconds(7200), true);
  static final DrawSecrets DRAWS = new DrawSecrets(KEY);
  static final Draw SHUFFLE = Draw.shuffle("shop", LAUNCH);

  /** The receipts the room would give tickets 1..n: their places after the start. */
  static List<DrawAudit.Receipt> receipts(Draw d, int n) {
    var out = new ArrayList<DrawAudit.Receipt>();
    for (long id = 1; id <= n; id++) {
      out.add(new DrawAudit.Receipt(d, id, d.place(DRAWS.lottery(d), id), null, null));
    }
    return out;
  }

  @Test
  void theRevealedSecretVerifiesAgainstItsCommitmentAndEveryReceiptIsRecomputed() {
    byte[] secret = DRAWS.secret(SHUFFLE);
    var result =
        DrawSecrets.audit(SHUFFLE, secret, DRAWS.commitment(SHUFFLE), receipts(SHUFFLE, 50));
    assertThat(result.verified()).isTrue();
    assertThat(result.receipts().checked())
        .hasSize(50)
        .allSatisfy(c -> assertThat(c.matches()).isTrue());
  }

  @Test
  void aTamperedReceiptFailsVerification() {
    var receipts = receipts(SHUFFLE, 20);
    DrawAudit.Receipt r = receipts.get(7);
    receipts.set(
        7, new DrawAudit.Receipt(r.draw(), r.ticketId(), (r.place() + 1) % 60, null, null));
    var result =
        DrawSecrets.audit(SHUFFLE, DRAWS.secret(SHUFFLE), DRAWS.commitment(SHUFFLE), receipts);
    assertThat(result.verified()).isFalse();
    assertThat(result.commitmentHolds()).isTrue();
    assertThat(
            result.receipts().checked().stream()
                .filter(c -> !c.matches())
                .map(c -> c.receipt().ticketId()))
        .containsExactly(8L);
  }

  @Test
  void aWrongSecretFailsTheCommitment() {
    byte[] other =
        DRAWS.secret(
            Draw.shuffle(
                "shop", new EventWindow("encore", PREQUEUE, START, START.plusSeconds(60), true)));
    var result =
        DrawSecrets.audit(SHUFFLE, other, DRAWS.commitment(SHUFFLE), receipts(SHUFFLE, 20));
    assertThat(result.commitmentHolds()).isFalse();
    assertThat(result.verified()).isFalse();
    // nor does a secret made to fit the receipts pass a commitment that was not to it
    byte[] flipped = DRAWS.secret(SHUFFLE);
    flipped[31] ^= 1; // the lottery uses the first 16 bytes: the places stay, the commitment not
    var forged =
        DrawSecrets.audit(SHUFFLE, flipped, DRAWS.commitment(SHUFFLE), receipts(SHUFFLE, 20));
    assertThat(forged.receipts().allMatch()).isTrue();
    assertThat(forged.verified()).isFalse();
  }

  @Test
  void aReceiptOfAnotherDrawIsNamed() {
    Draw encore =
        Draw.shuffle(
            "shop",
            new EventWindow(
                "launch",
                PREQUEUE.plusSeconds(86400),
                START.plusSeconds(86400),
                START.plusSeconds(90000),
                true));
    var receipts = receipts(SHUFFLE, 3);
    receipts.add(new DrawAudit.Receipt(encore, 9, 0, null, null));
    var result =
        DrawSecrets.audit(SHUFFLE, DRAWS.secret(SHUFFLE), DRAWS.commitment(SHUFFLE), receipts);
    assertThat(result.verified()).isFalse();
    assertThat(result.receipts().problems())
        .singleElement()
        .asString()
        .contains("receipt 4 (ticket 9)");
  }

  @Test
  void theSecretIsRevealedOnlyFromTheDraw() {
    assertThat(DRAWS.revealed(SHUFFLE, PREQUEUE.minusSeconds(60))).isEmpty();
    assertThat(DRAWS.revealed(SHUFFLE, START.minusMillis(1))).isEmpty();
    assertThat(DRAWS.revealed(SHUFFLE, START))
        .hasValueSatisfying(s -> assertThat(s).isEqualTo(DRAWS.secret(SHUFFLE)));
    Draw hour = Draw.randomAt("shop", START.plusSeconds(600));
    assertThat(hour.from()).isEqualTo(START);
    assertThat(DRAWS.revealed(hour, START.plusSeconds(3599))).isEmpty();
    assertThat(DRAWS.revealed(hour, START.plusSeconds(3600))).isPresent();
  }

  @Test
  void eachDrawHasItsOwnSecretAndNoneIsTheKey() {
    var secrets = new ArrayList<String>();
    secrets.add(HexFormat.of().formatHex(DRAWS.secret(SHUFFLE)));
    // the same event name a day later, another room, an hour of random queueing, the next hour
    secrets.add(
        HexFormat.of()
            .formatHex(
                DRAWS.secret(
                    Draw.shuffle(
                        "shop",
                        new EventWindow(
                            "launch",
                            PREQUEUE.plusSeconds(86400),
                            START.plusSeconds(86400),
                            START.plusSeconds(90000),
                            true)))));
    secrets.add(HexFormat.of().formatHex(DRAWS.secret(Draw.shuffle("other", LAUNCH))));
    secrets.add(HexFormat.of().formatHex(DRAWS.secret(Draw.randomAt("shop", START))));
    secrets.add(
        HexFormat.of().formatHex(DRAWS.secret(Draw.randomAt("shop", START.plusSeconds(3600)))));
    assertThat(secrets).doesNotHaveDuplicates();
    assertThat(secrets).noneMatch(s -> s.contains(HexFormat.of().formatHex(KEY, 0, 16)));
    // deterministic: every gateway holding the key derives the same secret
    assertThat(new DrawSecrets(KEY.clone()).secret(SHUFFLE)).isEqualTo(DRAWS.secret(SHUFFLE));
  }

  @Test
  void theShufflesPlacesComeFromItsSecretNotFromTheKey() {
    // before: the places were drawn with the deployment's lottery key itself, so revealing it would
    // have revealed every later draw; now they are drawn with the draw's secret
    Lottery direct = new Lottery(KEY);
    int same = 0;
    for (long id = 1; id <= 600; id++) {
      if (SHUFFLE.place(DRAWS.lottery(SHUFFLE), id) == direct.place("launch", id, 60)) {
        same++;
      }
    }
    assertThat(same).isLessThan(40); // about 10 expected by chance (1 in 60)
  }

  @Test
  void randomQueueingLotsAreRecomputedPerMinute() {
    Draw hour = Draw.randomAt("shop", START);
    long minute = Draw.minuteOf(START.plusSeconds(300));
    var receipts = new ArrayList<DrawAudit.Receipt>();
    for (long id = 1; id <= 10; id++) {
      receipts.add(
          new DrawAudit.Receipt(hour, id, null, minute, hour.lot(DRAWS.lottery(hour), id, minute)));
    }
    assertThat(
            DrawSecrets.audit(hour, DRAWS.secret(hour), DRAWS.commitment(hour), receipts)
                .verified())
        .isTrue();
    DrawAudit.Receipt r = receipts.get(3);
    receipts.set(3, new DrawAudit.Receipt(hour, r.ticketId(), null, minute, r.lot() / 2));
    assertThat(
            DrawSecrets.audit(hour, DRAWS.secret(hour), DRAWS.commitment(hour), receipts)
                .verified())
        .isFalse();
    // a minute outside the hour is not of this draw
    receipts.set(3, new DrawAudit.Receipt(hour, r.ticketId(), null, minute + 60, r.lot()));
    assertThat(
            DrawSecrets.audit(hour, DRAWS.secret(hour), DRAWS.commitment(hour), receipts)
                .receipts()
                .problems())
        .hasSize(1);
  }

  @Test
  void theCommitmentIsTheLabelledHashOfTheSecret() throws Exception {
    byte[] secret = DRAWS.secret(SHUFFLE);
    var sha = java.security.MessageDigest.getInstance("SHA-256");
    sha.update("anteroom draw commitment v1".getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    assertThat(DrawSecrets.commitment(secret))
        .isEqualTo(HexFormat.of().formatHex(sha.digest(secret)));
    assertThatThrownBy(
            () ->
                Draw.shuffle(
                    "shop", new EventWindow("x", null, START, START.plusSeconds(1), false)))
        .hasMessageContaining("no pre-queue");
  }
}
