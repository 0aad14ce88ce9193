package io.anteroom.bench;

import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.proof.ChallengeCodec;
import io.anteroom.door.proof.DoorCheck;
import io.anteroom.door.proof.Work;
import io.anteroom.door.ticket.TicketCodec;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The gateway's cost of the proof-of-work check per request, one thread, the median of several
 * rounds after a warm-up: verifying a good answer (MAC, expiry, one SHA-256, the single-use
 * memory), refusing a replayed one (the same, plus a fresh challenge), refusing a forged one (the
 * MAC fails; a fresh challenge), and issuing a challenge to a request without an answer; opening a
 * ticket cookie for comparison, measured in the same run. Each round uses a new check (a fresh used
 * memory) over the same answers, so every "good" answer is a first use.
 *
 * <pre>
 * ./mvnw -o -q -DskipTests package -pl bench -am
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
 *     io.anteroom.bench.ProofOfWorkBenchmark [rounds] [operations per round]
 * </pre>
 */
public final class ProofOfWorkBenchmark {

  private ProofOfWorkBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    byte[] secret = new byte[32];
    new Random(1).nextBytes(secret);
    List<TicketKey> keys = List.of(new TicketKey(1, secret));
    var codec = new ChallengeCodec(keys);
    // verification costs one hash whatever the difficulty; a low one keeps the set-up short
    var settings = new ProofOfWork(true, 1, 3600, OnRepeatedFailure.NONE);
    long now = 1_795_000_000_000L;
    String client = "203.0.113.7";
    Supplier<DoorCheck> fresh =
        () -> new DoorCheck("shop", 0, settings, codec, DoorCheck.secureNonces());
    String[] answers = new String[ops];
    DoorCheck issuer = fresh.get();
    for (int i = 0; i < ops; i++) {
      String text = ((DoorCheck.Challenge) issuer.decide(null, client, now)).challenge().text();
      answers[i] = text + "." + Work.solve(text, 1);
    }
    char[] f = answers[0].toCharArray();
    f[10] = f[10] == 'A' ? 'B' : 'A';
    String forged = new String(f);
    DoorCheck replays = fresh.get();
    replays.decide(answers[0], client, now);

    var tickets = new TicketCodec(keys);
    TicketCodec.Scope shop = tickets.scope("shop", 0);
    String cookie = tickets.seal(shop, new byte[33]);

    System.out.printf(Locale.ROOT, "| operation | ns/op (median of %d x %d) |%n", rounds, ops);
    System.out.println("|---|---|");
    report(
        "verify a good answer (pass)",
        rounds,
        ops,
        () -> {
          DoorCheck door = fresh.get();
          return i -> door.decide(answers[i], client, now) instanceof DoorCheck.Pass;
        });
    report(
        "refuse a replayed answer (+ fresh challenge)",
        rounds,
        ops,
        () -> i -> replays.decide(answers[0], client, now) instanceof DoorCheck.Challenge);
    DoorCheck door = fresh.get();
    report(
        "refuse a forged answer (+ fresh challenge)",
        rounds,
        ops,
        () -> i -> door.decide(forged, client, now) instanceof DoorCheck.Challenge);
    report(
        "issue a challenge (no answer)",
        rounds,
        ops,
        () -> i -> door.decide(null, client, now) instanceof DoorCheck.Challenge);
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
