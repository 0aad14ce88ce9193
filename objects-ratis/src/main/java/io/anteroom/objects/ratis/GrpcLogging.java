package io.anteroom.objects.ratis;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps gRPC's start-up chatter out of a peer's output. The gRPC of ratis-thirdparty 1.1.0 (Ratis
 * 3.3.0 on) logs {@code Epoll available during static init of TcpMetrics:true} at INFO through
 * java.util.logging the first time its Netty transport is used: two lines on standard error, in
 * JUL's own format, outside the process's log, at every start. That logger is set to WARNING before
 * the first Ratis server or client is built, unless the JVM's logging configuration set its level;
 * it is held here because java.util.logging keeps loggers only weakly (a level set on a collected
 * logger would be lost).
 */
final class GrpcLogging {
  private static final Logger TCP_METRICS =
      Logger.getLogger("org.apache.ratis.thirdparty.io.grpc.netty.TcpMetrics");

  static {
    if (TCP_METRICS.getLevel() == null) TCP_METRICS.setLevel(Level.WARNING);
  }

  private GrpcLogging() {}

  /** Sets the levels above, once per JVM; call before building a Ratis server or client. */
  static void quiet() {
    // the class's initialisation does it
  }
}
