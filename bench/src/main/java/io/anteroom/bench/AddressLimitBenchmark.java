package io.anteroom.bench;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.match.Cidr;
import io.anteroom.door.proof.NewIdentityLimit;
import io.anteroom.door.ticket.TicketCodec;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The gateway's cost of the per-address limit of new identities, one thread, the median of several
 * rounds after a warm-up: the prefix of a client address (IPv4 /24, IPv6 /64), a take from a known
 * prefix's budget, a take for a new prefix in a full memory (65,536 prefixes: one is forgotten);
 * opening a ticket cookie for comparison, measured in the same run. The alternative, counting at
 * the coordinator, costs a call per new identity (the proof-of-work claim's round trip).
 *
 * <pre>
 * ./mvnw -o -q -DskipTests package -pl bench -am
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
 *     io.anteroom.bench.AddressLimitBenchmark [rounds] [operations per round]
 * </pre>
 */
public final class AddressLimitBenchmark {

  private AddressLimitBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    String[] v4 = new String[ops];
    String[] v6 = new String[ops];
    String[] prefixes = new String[ops];
    Random random = new Random(1);
    for (int i = 0; i < ops; i++) {
      v4[i] =
          (random.nextInt(223) + 1)
              + "."
              + random.nextInt(256)
              + "."
              + random.nextInt(256)
              + "."
              + random.nextInt(256);
      v6[i] =
          String.format(
              Locale.ROOT,
              "2001:db8:%x:%x::%x",
              random.nextInt(65536),
              random.nextInt(65536),
              random.nextInt(65536));
      prefixes[i] = Cidr.prefixOf(v4[i], 24, 64);
    }
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    var tickets = new TicketCodec(List.of(new TicketKey(1, secret)));
    TicketCodec.Scope shop = tickets.scope("shop", 0);
    String cookie = tickets.seal(shop, new byte[33]);
    long now = 1_795_000_000_000L;

    System.out.printf(Locale.ROOT, "| operation | ns/op (median of %d x %d) |%n", rounds, ops);
    System.out.println("|---|---|");
    report(
        "prefix of an IPv4 address (/24)",
        rounds,
        ops,
        () -> i -> Cidr.prefixOf(v4[i], 24, 64) != null);
    report(
        "prefix of an IPv6 address (/64)",
        rounds,
        ops,
        () -> i -> Cidr.prefixOf(v6[i], 24, 64) != null);
    report(
        "take from a known prefix (within its budget)",
        rounds,
        ops,
        () -> {
          var limit = new NewIdentityLimit(1_000_000, NewIdentityLimit.DEFAULT_CAPACITY);
          return i -> limit.take("203.0.113.0/24", now) == 0;
        });
    report(
        "take for a new prefix, memory full (one forgotten)",
        rounds,
        ops,
        () -> {
          var limit = new NewIdentityLimit(10, NewIdentityLimit.DEFAULT_CAPACITY);
          for (int k = 0; k < NewIdentityLimit.DEFAULT_CAPACITY; k++) {
            limit.take("fill-" + k, now);
          }
          return i -> limit.take(prefixes[i] + "#" + i, now) == 0;
        });
    report(
        "for comparison: open a ticket cookie",
        rounds,
        ops,
        () -> i -> tickets.open(shop, cookie).isPresent());
  }

  private interface Round {
    boolean run(int i);
  }

  private static void report(String name, int rounds, int ops, Supplier<Round> round) {
    for (int w = 0; w < 2; w++) {
      Round r = round.get();
      for (int i = 0; i < ops; i++) {
        r.run(i); // warm-up
      }
    }
    double[] nanos = new double[rounds];
    for (int k = 0; k < rounds; k++) {
      Round r = round.get();
      long ok = 0;
      long start = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        ok += r.run(i) ? 1 : 0;
      }
      nanos[k] = (System.nanoTime() - start) / (double) ops;
      if (ok != ops) {
        throw new IllegalStateException(
            name + ": " + (ops - ok) + " operations had another outcome");
      }
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT, "| %s | %.0f |%n", name, nanos[rounds / 2]);
  }
}
