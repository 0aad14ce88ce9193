package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class GrpcLoggingTest {
  private static final String TCP_METRICS = "org.apache.ratis.thirdparty.io.grpc.netty.TcpMetrics";

  @Test
  void theGrpcClassThatLogsAtStartIsOnTheClassPathAndItsInfoLinesAreOff() throws Exception {
    // the quieting goes by the class's name: after an upgrade that renames or drops it, this
    // fails, and GrpcLogging is to be changed to the new name or removed
    assertThat(Class.forName(TCP_METRICS, false, getClass().getClassLoader())).isNotNull();

    GrpcLogging.quiet();

    Logger logger = Logger.getLogger(TCP_METRICS);
    assertThat(logger.isLoggable(Level.INFO)).isFalse();
    assertThat(logger.isLoggable(Level.WARNING)).isTrue();
  }
}
