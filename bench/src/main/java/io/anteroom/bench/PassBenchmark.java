package io.anteroom.bench;

import io.anteroom.door.config.GatewayConfig.TicketKey;
import io.anteroom.door.ticket.TicketCodec;
import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassIssuer;
import io.anteroom.pass.PassKeys;
import io.anteroom.pass.PassVerifier;
import java.lang.management.ManagementFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The signed pass on the admitted path: what the gateway pays per request to add it (a signature
 * for a user's first request in each reuse window, a cache lookup for the others) and what an
 * origin pays to verify it, beside the ticket codec's open and seal measured in the same run (the
 * admitted path's own crypto), and the JDK's raw ECDSA P-256 and Ed25519 signatures (the choice of
 * algorithm). Nanoseconds of this thread's CPU time (robust when other processes load the cores;
 * wall-clock time beside it) and bytes allocated per operation, one thread, the median of several
 * rounds after a warm-up.
 *
 * <pre>
 * ./mvnw -q -DskipTests package -pl bench -am
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
 *     io.anteroom.bench.PassBenchmark [rounds] [operations per round]
 * </pre>
 */
public final class PassBenchmark {

  private PassBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    long now = System.currentTimeMillis();
    long admitted = now - 60_000;
    long sessionEnds = now + 15 * 60_000;

    PassKeys keys = PassKeys.generate();
    PassIssuer signsEveryTime = PassIssuer.builder(keys).reuse(Duration.ZERO).build();
    PassIssuer reuses = PassIssuer.builder(keys).build();
    reuses.passFor("shop", "launch", 42L, admitted, sessionEnds);
    // two passes in one slot: every verification misses the memory of verified passes
    PassVerifier verifiesEveryTime =
        PassVerifier.builder().keys(keys).rooms("shop").cacheSlots(1).build();
    PassVerifier remembers = PassVerifier.builder().keys(keys).rooms("shop").build();
    String[] twoPasses = {
      signsEveryTime.passFor("shop", "launch", 1L, admitted, sessionEnds),
      signsEveryTime.passFor("shop", "launch", 2L, admitted, sessionEnds)
    };
    remembers.verify(twoPasses[0]);

    byte[] secret = new byte[32];
    new java.util.Random(1).nextBytes(secret);
    var codec = new TicketCodec(List.of(new TicketKey(1, secret)));
    byte[] payload = new byte[33];
    payload[0] = 1;
    TicketCodec.Scope shop = codec.scope("shop", 0);
    String cookie = codec.seal(shop, payload);

    Signature ecdsa = Signature.getInstance("SHA256withECDSA");
    var ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec("secp256r1"));
    ecdsa.initSign(ec.generateKeyPair().getPrivate());
    Signature ed25519 = Signature.getInstance("Ed25519");
    KeyPair ed = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    ed25519.initSign(ed.getPrivate());
    byte[] input = twoPasses[0].substring(0, twoPasses[0].lastIndexOf('.')).getBytes();

    System.out.printf(
        Locale.ROOT,
        "| operation (median of %d rounds) | CPU ns/op | wall ns/op | bytes/op |%n",
        rounds);
    System.out.println("|---|---:|---:|---:|");
    report(
        "pass: sign (a user's first request in a reuse window)",
        () -> signsEveryTime.passFor("shop", "launch", 42L, admitted, sessionEnds).length(),
        rounds,
        ops);
    report(
        "pass: reuse (the user's other requests)",
        () -> reuses.passFor("shop", "launch", 42L, admitted, sessionEnds).length(),
        rounds,
        ops * 50);
    int[] i = {0};
    report(
        "pass: verify at the origin (not seen before)",
        () -> verifiesEveryTime.verify(twoPasses[i[0]++ & 1]) instanceof PassCheck.Valid ? 1 : 0,
        rounds,
        ops);
    report(
        "pass: verify at the origin (seen before)",
        () -> remembers.verify(twoPasses[0]) instanceof PassCheck.Valid ? 1 : 0,
        rounds,
        ops * 50);
    report(
        "ticket: open a cookie (AES-GCM), same run",
        () -> codec.open(shop, cookie).isPresent() ? 1 : 0,
        rounds,
        ops * 10);
    report(
        "ticket: seal a cookie, same run",
        () -> codec.seal(shop, payload).length(),
        rounds,
        ops * 10);
    report("JDK: raw ECDSA P-256 signature (ES256)", () -> sign(ecdsa, input).length, rounds, ops);
    report("JDK: raw Ed25519 signature (EdDSA)", () -> sign(ed25519, input).length, rounds, ops);
  }

  private static byte[] sign(Signature signature, byte[] input) {
    try {
      signature.update(input);
      return signature.sign();
    } catch (java.security.SignatureException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void report(String name, LongSupplier op, int rounds, int ops) {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().threadId();
    long sink = 0;
    for (int i = 0; i < ops; i++) {
      sink += op.getAsLong(); // warm-up
    }
    double[] cpu = new double[rounds];
    double[] wall = new double[rounds];
    double bytes = 0;
    for (int r = 0; r < rounds; r++) {
      long allocated = threads.getThreadAllocatedBytes(tid);
      long cpuStart = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        sink += op.getAsLong();
      }
      wall[r] = (System.nanoTime() - start) / (double) ops;
      cpu[r] = (threads.getCurrentThreadCpuTime() - cpuStart) / (double) ops;
      bytes = (threads.getThreadAllocatedBytes(tid) - allocated) / (double) ops;
    }
    if (sink == 42) {
      System.out.println(); // keeps the results alive
    }
    Arrays.sort(cpu);
    Arrays.sort(wall);
    System.out.printf(
        Locale.ROOT,
        "| %s | %,.0f | %,.0f | %,.0f |%n",
        name,
        cpu[rounds / 2],
        wall[rounds / 2],
        bytes);
  }
}
