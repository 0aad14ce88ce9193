package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IoTransportTest {

  @Test
  void autoTakesIoUringWhereItWorksAndNioElsewhere() {
    assertThat(IoTransport.AUTO.resolve(true, "")).isEqualTo(IoTransport.IO_URING);
    assertThat(IoTransport.AUTO.resolve(false, "seccomp")).isEqualTo(IoTransport.NIO);
  }

  @Test
  void nioNeverTakesIoUring() {
    assertThat(IoTransport.NIO.resolve(true, "")).isEqualTo(IoTransport.NIO);
    assertThat(IoTransport.NIO.resolve(false, "x")).isEqualTo(IoTransport.NIO);
  }

  @Test
  void aRequiredIoUringThatIsNotAvailableIsAClearErrorNotASilentFallback() {
    assertThat(IoTransport.IO_URING.resolve(true, "")).isEqualTo(IoTransport.IO_URING);
    assertThatThrownBy(() -> IoTransport.IO_URING.resolve(false, "io_uring_setup: EPERM"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("transport: io_uring is not available here (io_uring_setup: EPERM)")
        .hasMessageContaining("transport: auto")
        .hasMessageContaining("nio");
  }

  @Test
  void theConfigKeyDefaultsToAutoAndRefusesAnUnknownTransport() {
    assertThat(ConfigLoader.parse("", "x").publicListener().transport())
        .isEqualTo(IoTransport.AUTO);
    assertThat(ConfigLoader.parse("transport: nio", "x").publicListener().transport())
        .isEqualTo(IoTransport.NIO);
    assertThat(ConfigLoader.parse("transport: io_uring", "x").publicListener().transport())
        .isEqualTo(IoTransport.IO_URING);
    assertThatThrownBy(() -> ConfigLoader.parse("transport: epoll", "x"))
        .hasMessageContaining("transport: \"epoll\" is not allowed; allowed: auto, io_uring, nio");
  }
}
