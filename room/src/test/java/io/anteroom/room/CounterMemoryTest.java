package io.anteroom.room;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A draw is answered without the counter only when the counter must refuse it: its count in that
 * minute, which only grows, already reached the limit. Each case also asks a real {@link
 * MinuteCounter} and checks it answers the same.
 */
class CounterMemoryTest {
  private static final long M = 29_000_000L;
  private static final CounterKey DC = CounterKey.dataCenter("shop", "dc", M);
  private static final CounterKey ANYWHERE = CounterKey.anywhere("shop", M);

  private static Decision.Draw draw(CounterKey key, long limit) {
    return new Decision.Draw(
        key, limit, null, M - 3, false, 0, java.time.Instant.EPOCH, null, false);
  }

  private final CounterMemory memory = new CounterMemory(Rules.spec());
  private final MinuteCounter counter = new MinuteCounter(Rules.spec());

  /** Asks the real counter and lets the memory hear the answer, as the gateway does. */
  private Grant ask(Decision.Draw d) {
    Grant g = counter.take(d, Minutes.startOf(M));
    memory.answered(d, g);
    return g;
  }

  @Test
  void aDrawTheCounterAlreadyRefusedAtThatLimitIsRefusedWithoutAsking() {
    for (int i = 0; i < 3; i++) ask(draw(DC, 3)); // numbers 0, 1, 2 granted
    assertThat(memory.refuses(draw(DC, 3))).isTrue(); // count 3 reached the limit 3

    Grant remembered = memory.refusal(draw(DC, 3));
    Grant real = counter.take(M, 3);
    assertThat(remembered).isEqualTo(real);
    assertThat(remembered.granted()).isFalse();
  }

  @Test
  void aDrawThatMayBeCarriedIsAnsweredOnlyWithWhatTheCounterCarriedForTheSameState() {
    java.time.Instant start = Minutes.startOf(M);
    // the counter consumed 2 numbers at 10:00:58 of the minute before and 1 of this minute
    counter.take(M - 1, 10, null, start.minusSeconds(2));
    counter.take(M - 1, 10, null, start.minusSeconds(2));
    Decision.Draw first =
        new Decision.Draw(DC, 3, null, M, false, 0, start, start.minusSeconds(10), false);
    assertThat(ask(first)).isEqualTo(new Grant(M, 0, true, 2));
    Decision.Draw sameState =
        new Decision.Draw(DC, 3, null, M, false, 0, start, start.minusSeconds(10), false);
    Decision.Draw newerState =
        new Decision.Draw(DC, 3, null, M, false, 0, start, start.minusSeconds(1), false);
    Decision.Draw caughtUp =
        new Decision.Draw(DC, 3, null, M, false, 0, start, start.plusSeconds(1), false);

    assertThat(memory.refuses(sameState)).as("1 of the minute + 2 carried reach 3").isTrue();
    assertThat(memory.refusal(sameState))
        .as("with what it carries: the Anywhere limit left depends on it")
        .isEqualTo(counter.take(sameState, start))
        .isEqualTo(new Grant(M, 1, false, 2));
    assertThat(memory.refuses(newerState))
        .as("another state: only the counter knows what it carries for it")
        .isFalse();
    assertThat(memory.refuses(caughtUp)).as("a state W into the minute: 1 < 3").isFalse();
  }

  /**
   * A new user's refusal on its data center's counter sets its Anywhere limit (what the data center
   * gave beyond the draw's share comes off it), and the data center's other gateways may have drawn
   * numbers since this gateway's last answer: the counter is asked. A refusal that ends the
   * decision (no Anywhere limit left, as in a full room) or a whole-bucket user's is still
   * remembered.
   */
  @Test
  void aRefusalWhoseNumberSetsTheAnywhereLimitIsAskedAgain() {
    for (int i = 0; i < 3; i++) ask(draw(DC, 3));
    Decision.Draw withAnywhere =
        new Decision.Draw(DC, 3, null, M, false, 5, java.time.Instant.EPOCH, null, false);
    Decision.Draw wholeBucket =
        new Decision.Draw(DC, 3, null, M, true, 5, java.time.Instant.EPOCH, null, false);

    assertThat(memory.refuses(withAnywhere)).isFalse();
    assertThat(memory.refuses(wholeBucket)).isTrue();
    assertThat(memory.refuses(draw(DC, 3))).as("no Anywhere limit left").isTrue();

    for (int i = 0; i < 5; i++) ask(draw(ANYWHERE, 5));
    assertThat(memory.refuses(withAnywhere))
        .as("Anywhere already refuses at the whole limit: nothing the number takes off matters")
        .isTrue();
  }

  @Test
  void aHigherLimitOrAnotherCounterIsAskedAgain() {
    for (int i = 0; i < 3; i++) ask(draw(DC, 3));

    assertThat(memory.refuses(draw(DC, 4))).isFalse();
    assertThat(ask(draw(DC, 4)).granted()).isTrue();
    assertThat(memory.refuses(draw(ANYWHERE, 3))).isFalse();
  }

  @Test
  void theNextMinuteIsAskedAgain() {
    for (int i = 0; i < 3; i++) ask(draw(DC, 3));
    CounterKey next = CounterKey.dataCenter("shop", "dc", M + 1);

    assertThat(memory.refuses(draw(next, 3))).isFalse();
    assertThat(ask(draw(next, 3)).granted()).isTrue();
    assertThat(memory.refuses(draw(DC, 1))).isFalse(); // the past minute is forgotten
  }

  @Test
  void unansweredCallsTeachNothing() {
    memory.answered(draw(DC, 1), Grant.unavailable(M));
    assertThat(memory.refuses(draw(DC, 0))).isFalse();
    assertThatThrownBy(() -> memory.refusal(draw(DC, 0))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void withCountersThatConsumeOnEveryCallNothingIsLeftOut() {
    CounterMemory published = new CounterMemory(Rules.published());
    published.answered(draw(DC, 1), new Grant(M, 5, false));
    assertThat(published.refuses(draw(DC, 1))).isFalse();
  }
}
