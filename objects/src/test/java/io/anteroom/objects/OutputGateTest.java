package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The output gate on its own: what it holds, when it releases, and what a failure does. */
class OutputGateTest {
  private final OutputGate gate = new OutputGate(new Object(), "test/o");

  @Test
  void aReplyIsHeldUntilTheWritesBeforeItAreDurable() throws Exception {
    gate.holdOutputsUntil(2);
    CompletableFuture<Object> reply = new CompletableFuture<>();
    gate.release(gate.confirmationPoint(), reply, "result", null);
    assertThat(reply).isNotDone();
    OutputGate.complete(gate.durable(1));
    assertThat(reply).isNotDone();
    OutputGate.complete(gate.durable(2));
    assertThat(reply.get()).isEqualTo("result");
    assertThat(gate.holdsOutputs()).isFalse();
  }

  @Test
  void aReplyWithNothingUnconfirmedBeforeItPassesAtOnce() throws Exception {
    CompletableFuture<Object> reply = new CompletableFuture<>();
    gate.release(gate.confirmationPoint(), reply, null, new IllegalStateException("thrown"));
    assertThat(reply).isCompletedExceptionally();
    assertThat(gate.whenConfirmed()).isDone();
  }

  @Test
  void heldOutputsAreReleasedInSequenceOrder() {
    CompletableFuture<Object> late = gate.whenDurable(5);
    CompletableFuture<Object> early = gate.whenDurable(3);
    var released = gate.durable(4);
    assertThat(released).extracting(OutputGate.Held::seq).containsExactly(3L);
    OutputGate.complete(released);
    assertThat(early).isDone();
    assertThat(late).isNotDone();
  }

  @Test
  void aBrokenGateFailsEverythingHeldAndEverythingLater() {
    gate.holdOutputsUntil(1);
    CompletableFuture<Object> held = new CompletableFuture<>();
    gate.release(1, held, "never seen", null);
    IllegalStateException cause = new IllegalStateException("disk gone");
    assertThat(gate.breakWith(cause)).isTrue();
    assertThat(gate.breakWith(new IllegalStateException("later"))).isFalse();
    gate.fail(gate.takeHeld(), cause);
    assertThatThrownBy(held::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ObjectResetException.class)
        .hasMessageContaining("disk gone");

    CompletableFuture<Object> later = new CompletableFuture<>();
    gate.release(0, later, "not either", null);
    assertThat(later).isCompletedExceptionally();
    assertThat(gate.whenConfirmed()).isCompletedExceptionally();
    assertThat(gate.failure()).isSameAs(cause);
  }
}
