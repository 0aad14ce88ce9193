package io.anteroom.bench;

import java.time.Duration;

/**
 * When a warm-up under load may end: after at least {@code min}, once the JIT compiled for less
 * than {@code quietShare} of the last slice's wall time (summed over the compiler threads, as
 * {@link java.lang.management.CompilationMXBean#getTotalCompilationTime} counts it), and at the
 * latest after {@code max}. On two shared cores the replicated coordinator's code (Ratis, gRPC,
 * protobuf, Netty, SQLite) kept a C2 thread at about 0.6 of a core for over a minute under load: a
 * fixed 30 s warm-up measured the cluster while the JIT still took CPU from it.
 */
record JitWarmUp(Duration min, Duration max, Duration slice, double quietShare) {

  JitWarmUp {
    if (min.isNegative() || max.compareTo(min) < 0 || slice.isZero() || slice.isNegative())
      throw new IllegalArgumentException(
          "warm-up: need 0 <= min <= max and a positive slice, got min "
              + min
              + ", max "
              + max
              + ", slice "
              + slice);
    if (!(quietShare > 0 && quietShare < 1))
      throw new IllegalArgumentException("warm-up: quiet share must be in (0, 1): " + quietShare);
  }

  /**
   * Whether to stop warming after {@code elapsed}, the JIT having compiled for {@code compiledMs}
   * during the last slice.
   */
  boolean done(Duration elapsed, long compiledMs) {
    if (elapsed.compareTo(min) < 0) return false;
    if (elapsed.compareTo(max) >= 0) return true;
    return compiledMs < quietShare * slice.toMillis();
  }
}
