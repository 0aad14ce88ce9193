package io.anteroom.bench;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.ticket.TicketCodec;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The ticket codec on the admitted hot path, where every request opens one cookie and seals one:
 * nanoseconds and bytes allocated per operation, one thread, the median of several rounds after a
 * warm-up (a plain loop: the JDK here does not run JMH's annotation processor by default).
 *
 * <pre>
 * ./mvnw -q -DskipTests package -pl bench -am
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
 *     io.anteroom.bench.TicketCodecBenchmark [rounds] [operations per round]
 * </pre>
 */
public final class TicketCodecBenchmark {

  private TicketCodecBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 500_000;
    byte[] secret = new byte[32];
    new java.util.Random(1).nextBytes(secret);
    var codec = new TicketCodec(List.of(new TicketKey(1, secret)));
    byte[] payload = new byte[33]; // TicketBytes' length
    payload[0] = 1;
    TicketCodec.Scope shop = codec.scope("shop", 0); // built once per room, as TicketCookie does
    String cookie = codec.seal(shop, payload);

    Operation open = () -> codec.open(shop, cookie);
    Operation seal = () -> Optional.of(codec.seal(shop, payload));
    System.out.printf(
        Locale.ROOT, "| operation | ns/op (median of %d x %d) | bytes/op |%n", rounds, ops);
    System.out.println("|---|---|---|");
    report("open", open, rounds, ops);
    report("seal", seal, rounds, ops);
  }

  private interface Operation {
    Optional<?> run();
  }

  private static void report(String name, Operation op, int rounds, int ops) {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().threadId();
    long sink = 0;
    for (int i = 0; i < ops * 2; i++) {
      sink += op.run().isPresent() ? 1 : 0; // warm-up
    }
    double[] nanos = new double[rounds];
    double bytes = 0;
    for (int r = 0; r < rounds; r++) {
      long allocated = threads.getThreadAllocatedBytes(tid);
      long start = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        sink += op.run().isPresent() ? 1 : 0;
      }
      nanos[r] = (System.nanoTime() - start) / (double) ops;
      bytes = (threads.getThreadAllocatedBytes(tid) - allocated) / (double) ops;
    }
    if (sink != (long) ops * (rounds + 2)) {
      throw new IllegalStateException(name + ": some operations failed");
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f |%n", name, nanos[rounds / 2], bytes);
  }
}
