package io.anteroom.door.config;

/**
 * The socket transport of the gateway's event loops (the public listener, the origin client and the
 * admin listener), the YAML key {@code transport}.
 *
 * <p>{@code auto} (the default) takes Linux io_uring where the kernel allows it and Java's NIO
 * elsewhere: containers whose seccomp profile refuses io_uring, kernels with {@code
 * kernel.io_uring_disabled}, other systems. {@code io_uring} insists on it and refuses to start
 * without it; {@code nio} never uses it. Measured on the admitted path (docs/benchmarks-http.md,
 * "io_uring"): about a fifth less CPU per request than NIO.
 */
public enum IoTransport {
  AUTO("auto"),
  IO_URING("io_uring"),
  NIO("nio");

  private final String configName;

  IoTransport(String configName) {
    this.configName = configName;
  }

  /** How the setting is written in the YAML file. */
  public String configName() {
    return configName;
  }

  /**
   * The transport to run on, {@link #IO_URING} or {@link #NIO}, given whether io_uring works on
   * this machine ({@code unavailable} says why not, for the error).
   *
   * @throws IllegalStateException when io_uring is required but not available
   */
  public IoTransport resolve(boolean ioUringAvailable, String unavailable) {
    return switch (this) {
      case NIO -> NIO;
      case AUTO -> ioUringAvailable ? IO_URING : NIO;
      case IO_URING -> {
        if (!ioUringAvailable) {
          throw new IllegalStateException(
              "transport: io_uring is not available here ("
                  + unavailable
                  + "); use transport: auto (io_uring where it works, NIO elsewhere) or nio");
        }
        yield IO_URING;
      }
    };
  }
}
