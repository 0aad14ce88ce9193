package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EvictingBudgetTest {

  @Test
  void belowTheCapEveryConnectionIsAdmittedAndNoneEvicted() {
    var b = new EvictingBudget<String>(2);
    assertThat(b.open("a")).isEqualTo(new EvictingBudget.Admission<String>(true, null));
    assertThat(b.open("b")).isEqualTo(new EvictingBudget.Admission<String>(true, null));
    assertThat(b.open()).isEqualTo(2);
  }

  @Test
  void atTheCapANewcomerTakesThePlaceOfTheOldestConnectionNotVouchedFor() {
    var b = new EvictingBudget<String>(3);
    b.open("a");
    b.open("b");
    b.open("c");
    b.vouch("a");
    assertThat(b.open("d").evicted()).isEqualTo("b");
    assertThat(b.open("e").evicted()).isEqualTo("c");
    assertThat(b.open("f").evicted()).as("the newcomers, oldest first").isEqualTo("d");
    assertThat(b.open()).isEqualTo(3);
  }

  @Test
  void aNewcomerIsRefusedOnlyWhenEveryConnectionHasBeenVouchedFor() {
    var b = new EvictingBudget<String>(2);
    b.open("a");
    b.open("b");
    b.vouch("a");
    b.vouch("b");
    assertThat(b.open("c")).isEqualTo(new EvictingBudget.Admission<String>(false, null));
    assertThat(b.open()).isEqualTo(2);
    b.closed("c"); // a refused connection closing changes nothing
    assertThat(b.open()).isEqualTo(2);
    b.closed("a");
    assertThat(b.open("c").admitted()).isTrue();
  }

  @Test
  void anEvictedConnectionClosingLaterIsNotCountedTwice() {
    var b = new EvictingBudget<String>(1);
    b.open("a");
    assertThat(b.open("b").evicted()).isEqualTo("a");
    b.closed("a");
    b.vouch("a"); // a late request on it vouches for nothing
    assertThat(b.open()).isEqualTo(1);
    assertThat(b.open("c").evicted()).isEqualTo("b");
  }

  @Test
  void misuseIsRefused() {
    assertThatThrownBy(() -> new EvictingBudget<String>(0))
        .isInstanceOf(IllegalArgumentException.class);
    var b = new EvictingBudget<String>(2);
    b.open("a");
    assertThatThrownBy(() -> b.open("a")).isInstanceOf(IllegalStateException.class);
  }
}
