package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.ratis.ReplicatedRuntimeTest.Counter;
import io.anteroom.testkit.ChildProcess;
import io.anteroom.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three coordinator processes ({@link ClusterCounterMain}: the {@link ClusterNode} assembly over
 * real Ratis peers on loopback ports) serve the naive counter; 64 concurrent callers call it
 * through one {@link RoutingObjectTransport} that lists all three. The shard's leader is killed
 * with SIGKILL and restarted, round after round; then the leader is paused with SIGSTOP until
 * another peer leads, and resumed; then a follower is killed and restarted. Every number a caller
 * received must be unique across all rounds, and the counter afterwards must be above all of them.
 *
 * <p>Reported, not asserted: numbers lost in flight (issued by the counter but received by no
 * caller: calls whose reply was lost with the leader) and the failover time of each kill (from the
 * SIGKILL to the first confirmed reply to a call sent after it).
 *
 * <p>Everything waits on events: the children's output lines (ready, leads shard, no longer leads)
 * and replies; there is no sleep.
 */
class ClusterFailoverTest {
  private static final int CALLERS = 64;
  private static final int SIGKILL_EXIT_STATUS = 128 + 9;
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final SharedSecret SECRET = SharedSecret.generate("failover-test");
  private static final Pattern LEADS =
      Pattern.compile("peer (\\S+) " + Pattern.quote(ClusterNode.LEADS) + "0 \\(term (\\d+)\\)");

  @TempDir Path dir;

  /** The children's output, kept after the run (target/ of the module) for a failure's analysis. */
  private static final Path LOGS = Path.of("target", "cluster-failover-logs");

  private final Map<String, Child> children = new LinkedHashMap<>();
  private Path clusterFile;
  private final Set<Long> received = ConcurrentHashMap.newKeySet();
  private final List<Long> duplicates = new CopyOnWriteArrayList<>();
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();
  private final AtomicBoolean loadRunning = new AtomicBoolean(true);
  private final AtomicLong faultAt = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong firstReplyAfterFault = new AtomicLong();
  private final List<Thread> callers = new ArrayList<>();
  private RoutingObjectTransport transport;

  @AfterEach
  void stopEverything() throws Exception {
    loadRunning.set(false);
    for (Child c : children.values()) c.destroy();
    for (Thread t : callers) t.join(Duration.ofSeconds(30));
    if (transport != null) transport.close();
  }

  @Test
  @Tag("slow")
  void twentyLeaderKillsAPausedLeaderAndAKilledFollowerNeverIssueANumberTwice() throws Exception {
    run(20, true, true);
  }

  private void run(int killRounds, boolean pause, boolean killFollower) throws Exception {
    startCluster();
    phase("cluster started");
    List<URI> uris = new ArrayList<>();
    for (Child c : children.values()) uris.add(c.http);
    transport =
        RoutingObjectTransport.builder(uris)
            .secret(SECRET)
            .poolSize(CALLERS)
            // as a gateway's (2 s) give or take: a call to a paused leader fails after it
            .timeout(Duration.ofSeconds(5))
            .build();
    Counter counter =
        Stubs.create(
            Counter.class,
            ClusterCounterMain.NAMESPACE,
            ObjectId.fromName(ClusterCounterMain.NAMESPACE, "failover"),
            transport);
    for (int c = 0; c < CALLERS; c++) {
      callers.add(Thread.ofVirtual().name("caller-" + c).start(() -> callUntilStopped(counter)));
    }
    awaitProgress("the first numbers", 500);

    List<Long> failoverMillis = new ArrayList<>();
    for (int round = 1; round <= killRounds; round++) {
      Child leader = awaitLeader();
      long before = received.size();
      markFault();
      assertThat(leader.killHard()).as("exit status after SIGKILL").isEqualTo(SIGKILL_EXIT_STATUS);
      long millis = awaitFailover("round " + round + ": a reply after killing " + leader.id);
      failoverMillis.add(millis);
      phase("restarting " + leader.id);
      leader.start();
      awaitProgress("round " + round + ": numbers after the restart of " + leader.id, 200);
      assertThat(duplicates).as("numbers received twice, round " + round).isEmpty();
      System.out.printf(
          "ClusterFailoverTest round %d: killed leader %s, failover %d ms, %d numbers this round%n",
          round, leader.id, millis, received.size() - before);
    }

    long pauseMillis = -1;
    if (pause) {
      Child leader = awaitLeader();
      long term = leader.leaderTerm();
      leader.signal("STOP");
      // marked once the signal is sent: `kill` is a process of its own, and calls made while it
      // starts are still answered by the old leader (a "failover" of 18 ms in one CI run)
      markFault();
      // paused past the election timeout: another peer leads with a higher term
      await("another peer leads while " + leader.id + " is paused")
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> children.values().stream().anyMatch(c -> c != leader && c.leaderTerm() > term));
      pauseMillis = awaitFailover("a reply while the old leader is paused");
      leader.signal("CONT");
      await(leader.id + " learns it no longer leads after SIGCONT")
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(10))
          .until(() -> leader.lastEventIsLoss());
      awaitProgress("numbers after the paused leader resumed", 200);
      System.out.printf(
          "ClusterFailoverTest pause: %s stopped, new leader after %d ms, resumed and fenced%n",
          leader.id, pauseMillis);
    }

    if (killFollower) {
      Child leader = awaitLeader();
      Child follower =
          children.values().stream().filter(c -> c != leader).findFirst().orElseThrow();
      assertThat(follower.killHard()).isEqualTo(SIGKILL_EXIT_STATUS);
      awaitProgress("numbers with follower " + follower.id + " down", 500);
      assertThat(leader.leaderTerm()).as("the leader stays leader").isEqualTo(awaitLeaderTerm());
      follower.start();
      awaitProgress("numbers after follower " + follower.id + " restarted", 200);
    }

    loadRunning.set(false);
    for (Thread t : callers) t.join(Duration.ofSeconds(60));
    assertThat(callers).allSatisfy(t -> assertThat(t.isAlive()).isFalse());
    assertThat(duplicates).as("numbers received twice").isEmpty();
    assertThat(unexpected).as("failures other than transport errors").isEmpty();

    long next = counter.next();
    long highest = received.stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(next).as("the next number after all rounds").isGreaterThan(highest);
    assertThat(received).doesNotContain(next);
    long lost = next - received.size();
    for (Child c : children.values()) {
      HttpResponse<String> health = c.health();
      assertThat(health.statusCode()).as(c.id + " /health: " + health.body()).isEqualTo(200);
    }
    List<Long> sorted = failoverMillis.stream().sorted().toList();
    System.out.printf(
        "ClusterFailoverTest: %d leader kills%s%s; %d numbers received, all unique; %d lost in"
            + " flight (issued, never received); failover after a leader kill: median %d ms, max"
            + " %d ms (all: %s); pause: new leader serving after %d ms; failures by kind: %s%n",
        killRounds,
        pause ? ", a paused leader" : "",
        killFollower ? ", a killed follower" : "",
        received.size(),
        lost,
        sorted.get(sorted.size() / 2),
        sorted.getLast(),
        failoverMillis,
        pauseMillis,
        failures);
  }

  private void callUntilStopped(Counter counter) {
    while (loadRunning.get()) {
      long start = System.nanoTime();
      long n;
      try {
        n = counter.next();
      } catch (io.anteroom.objects.ObjectTransportException e) {
        failures.computeIfAbsent(kind(e), k -> new LongAdder()).increment();
        continue; // may or may not have run: its number, if any, was not received
      } catch (io.anteroom.objects.ObjectResetException e) {
        // the leader's runtime was fenced (deposed, or its commit's fate unknown): nothing of the
        // call was confirmed and its number was never handed out
        failures.computeIfAbsent("reset", k -> new LongAdder()).increment();
        continue;
      } catch (Throwable t) {
        unexpected.add(t);
        return;
      }
      long end = System.nanoTime();
      if (!received.add(n)) duplicates.add(n);
      if (start > faultAt.get()) firstReplyAfterFault.compareAndSet(0, end);
    }
  }

  private static String kind(Throwable e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("421")) return "421";
    if (m.contains("503")) return "503";
    if (m.contains("500")) return "500";
    if (m.contains("may or may not")) return "unknown-outcome";
    if (m.contains("not run")) return "not-run";
    return e.getClass().getSimpleName();
  }

  private void markFault() {
    firstReplyAfterFault.set(0);
    faultAt.set(System.nanoTime());
  }

  /** Waits for a reply to a call sent after the fault; returns fault → reply in ms. */
  private long awaitFailover(String what) {
    phase("awaiting " + what);
    await(what)
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> firstReplyAfterFault.get() != 0 || !unexpected.isEmpty());
    assertThat(unexpected).isEmpty();
    long millis = TimeUnit.NANOSECONDS.toMillis(firstReplyAfterFault.get() - faultAt.get());
    faultAt.set(Long.MAX_VALUE);
    return millis;
  }

  private final long t0 = System.nanoTime();

  private void phase(String what) {
    System.out.printf(
        "ClusterFailoverTest %6d ms: %s (%d numbers)%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), what, received.size());
  }

  private void awaitProgress(String what, int numbers) {
    phase("awaiting " + what);
    long target = received.size() + numbers;
    await(what)
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> received.size() >= target || !unexpected.isEmpty());
    assertThat(unexpected).isEmpty();
  }

  /** The live child that last said it leads shard 0 with the highest term. */
  private Child awaitLeader() {
    return await("a leader of shard 0")
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(10))
        .until(this::currentLeader, Optional::isPresent)
        .orElseThrow();
  }

  private long awaitLeaderTerm() {
    return awaitLeader().leaderTerm();
  }

  private Optional<Child> currentLeader() {
    Child best = null;
    for (Child c : children.values()) {
      if (!c.alive() || c.lastEventIsLoss()) continue;
      long term = c.leaderTerm();
      if (term >= 0 && (best == null || term > best.leaderTerm())) best = c;
    }
    return Optional.ofNullable(best);
  }

  private void startCluster() throws IOException {
    if (Files.exists(LOGS)) {
      try (var old = Files.list(LOGS)) {
        for (Path f : old.toList()) Files.delete(f);
      }
    }
    Files.createDirectories(LOGS);
    StringBuilder yaml = new StringBuilder("name: failover\nshards: 1\npeers:\n");
    for (int i = 0; i < 3; i++) {
      String id = "c" + i;
      int raft = FreePorts.take();
      int http = FreePorts.take();
      yaml.append("  - id: ")
          .append(id)
          .append("\n    raft: 127.0.0.1:")
          .append(raft)
          .append("\n    http: http://127.0.0.1:")
          .append(http)
          .append('\n');
      children.put(id, new Child(id, URI.create("http://127.0.0.1:" + http)));
    }
    clusterFile = dir.resolve("cluster.yaml");
    Files.writeString(clusterFile, yaml);
    for (Child c : children.values()) c.startAsync();
    for (Child c : children.values()) c.awaitReady();
  }

  /** One coordinator process ({@link ChildProcess}: its output lines are kept in order). */
  private final class Child {
    final String id;
    final URI http;
    volatile ChildProcess process;
    volatile int statusPort = -1;
    int starts;

    Child(String id, URI http) {
      this.id = id;
      this.http = http;
    }

    void start() {
      startAsync();
      awaitReady();
    }

    void startAsync() {
      starts++;
      statusPort = -1;
      process =
          ChildProcess.java(ClusterCounterMain.class.getName())
              .name(id)
              .jvmArgs("-XX:+UseSerialGC")
              .args(clusterFile.toString(), id, dir.resolve("data-" + id).toString())
              .env(ClusterCounterMain.SECRET_VARIABLE, SECRET.encoded())
              .log(LOGS.resolve(id + "-" + starts + ".log"))
              .start();
    }

    void awaitReady() {
      String ready = process.awaitLine(l -> l.startsWith(ClusterCounterMain.READY), PATIENCE);
      statusPort = Integer.parseInt(ready.substring(ClusterCounterMain.READY.length()).trim());
    }

    List<String> lines() {
      ChildProcess p = process;
      return p == null ? List.of() : p.lines();
    }

    boolean alive() {
      ChildProcess p = process;
      return p != null && p.alive();
    }

    /** The term of this process's last "leads shard 0" line, or -1. */
    long leaderTerm() {
      long term = -1;
      for (String line : lines()) {
        Matcher m = LEADS.matcher(line);
        if (m.find()) term = Long.parseLong(m.group(2));
      }
      return term;
    }

    /** Whether this process last said it no longer leads (or never led). */
    boolean lastEventIsLoss() {
      boolean loss = true;
      for (String line : lines()) {
        if (line.contains(ClusterNode.NO_LONGER_LEADS)) loss = true;
        else if (LEADS.matcher(line).find()) loss = false;
      }
      return loss;
    }

    void signal(String signal) {
      process.signal(signal);
    }

    int killHard() {
      return process.killHard();
    }

    HttpResponse<String> health() throws IOException, InterruptedException {
      try (HttpClient client = HttpClient.newHttpClient()) {
        return client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statusPort + "/health"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
      }
    }

    void destroy() {
      ChildProcess p = process;
      if (p != null) p.close(); // SIGKILL ends a stopped (SIGSTOP) process too
    }
  }
}
