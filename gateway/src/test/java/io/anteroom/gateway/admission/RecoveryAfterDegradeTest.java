package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.admission.RoomGate;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import io.anteroom.room.ConfigAgreement;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.RoomConfig;
import io.anteroom.room.RoomOverrides;
import io.anteroom.room.WorkerReport;
import io.anteroom.room.history.HistoryRow;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateways in two data centers lose their coordinator, admit from their last known state
 * (failMode degrade), and get it back. The admissions they made without counter grants are charged
 * to the counters before either leaves the degraded state, so the counters do not hand those slots
 * out again in the same minute: the room never holds more than T, and it fills up to T once the
 * states caught up. (Without the charge, 14 users held admission for T = 10.)
 */
class RecoveryAfterDegradeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int T = 10;

  @TempDir Path dataDir;

  /** The in-process coordination, with a switch that makes every call fail as a dead link would. */
  private static final class Switchable implements Coordination {
    private final Coordination real;
    volatile boolean down;

    /**
     * When set, the next {@code take} on the Anywhere counter is held: applied at the coordinator
     * at once or only on its release ({@code appliedAtOnce}), and answered on its release, whatever
     * {@link #down} says then (a call that reached the old leader or a new one while the others
     * failed). The Anywhere counter's, because it is the one that grants in these tests: the data
     * center's counter refuses at its share first (asked, not answered from the gateway's memory,
     * when its number sets the Anywhere limit).
     */
    volatile Boolean holdNextTake;

    final CompletableFuture<Runnable> held = new CompletableFuture<>();

    Switchable(Coordination real) {
      this.real = real;
    }

    /**
     * The coordinator's objects instances this link's replies showed so far, as a transport's
     * {@link io.anteroom.objects.http.IncarnationWatch} counts them.
     */
    final java.util.concurrent.atomic.AtomicLong incarnationChanges =
        new java.util.concurrent.atomic.AtomicLong();

    /** When set, the next answer comes from a new instance (a new leader): counted before it. */
    final java.util.concurrent.atomic.AtomicBoolean newInstanceAhead =
        new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public long incarnationChanges() {
      return incarnationChanges.get();
    }

    private <T> CompletionStage<T> unlessDown(java.util.function.Supplier<CompletionStage<T>> c) {
      return down
          ? CompletableFuture.failedFuture(new java.io.IOException("coordinator unreachable"))
          : c.get()
              .thenApply(
                  answer -> {
                    if (newInstanceAhead.getAndSet(false)) incarnationChanges.incrementAndGet();
                    return answer;
                  });
    }

    @Override
    public CompletionStage<Void> configure(RoomConfig config) {
      return unlessDown(() -> real.configure(config));
    }

    /** When set, charges fail as if the link went down again right after a report round. */
    volatile boolean chargesFail;

    /**
     * When set, the reports of the degraded fallback worker fail while the others get through (in a
     * failover, one call still on its way to the old leader).
     */
    volatile boolean fallbackReportsFail;

    @Override
    public CompletionStage<ReportReply> report(
        String roomId, WorkerReport report, ConfigAgreement.Fingerprint fingerprint) {
      if (fallbackReportsFail && !down && report.workerId().endsWith("/degraded")) {
        return CompletableFuture.failedFuture(new java.io.IOException("timed out"));
      }
      return unlessDown(() -> real.report(roomId, report, fingerprint));
    }

    @Override
    public CompletionStage<RoomOverrides> overrides(String roomId, String dataCenter) {
      return unlessDown(() -> real.overrides(roomId, dataCenter));
    }

    @Override
    public CompletionStage<RoomOverrides> override(
        String roomId, String dataCenter, Map<String, String> changes) {
      return unlessDown(() -> real.override(roomId, dataCenter, changes));
    }

    @Override
    public CompletionStage<List<HistoryRow>> history(
        String roomId, String dataCenter, long fromMinute, long toMinute) {
      return unlessDown(() -> real.history(roomId, dataCenter, fromMinute, toMinute));
    }

    @Override
    public CompletionStage<Boolean> claimChallenge(
        String roomId, String dataCenter, String nonce, long expiresAtMillis) {
      return unlessDown(() -> real.claimChallenge(roomId, dataCenter, nonce, expiresAtMillis));
    }

    @Override
    public CompletionStage<Grant> take(CounterKey key, long limit, Instant carriedSince) {
      Boolean appliedAtOnce = holdNextTake;
      if (appliedAtOnce == null || down || !key.isAnywhere()) {
        return unlessDown(() -> real.take(key, limit, carriedSince));
      }
      holdNextTake = null;
      var answer = new CompletableFuture<Grant>();
      if (appliedAtOnce) {
        var granted = real.take(key, limit, carriedSince).toCompletableFuture();
        held.complete(() -> granted.whenComplete((g, e) -> complete(answer, g, e)));
      } else {
        held.complete(
            () ->
                real.take(key, limit, carriedSince).whenComplete((g, e) -> complete(answer, g, e)));
      }
      return answer;
    }

    private static void complete(CompletableFuture<Grant> answer, Grant g, Throwable e) {
      if (e != null) {
        answer.completeExceptionally(e);
      } else {
        answer.complete(g);
      }
    }

    @Override
    public CompletionStage<Long> charge(CounterKey key, long admissions, long limit) {
      if (chargesFail) {
        return CompletableFuture.failedFuture(new java.io.IOException("timed out"));
      }
      return unlessDown(() -> real.charge(key, admissions, limit));
    }

    @Override
    public CompletionStage<Void> remove(String roomId) {
      return unlessDown(() -> real.remove(roomId));
    }
  }

  private static boolean degraded(Harness h) throws Exception {
    return JSON.readTree(h.admin("GET", "/api/rooms/shop/status", null).body())
        .get("degraded")
        .asBoolean();
  }

  /** One report of both gateways, then one report interval of virtual time (alarms run). */
  private static void round(ManualScheduler scheduler, Harness... gateways) throws Exception {
    for (Harness h : gateways) h.report("shop");
    scheduler.advance(Duration.ofSeconds(5));
  }

  private static int admit(Harness h, int tries) {
    int in = 0;
    for (int i = 0; i < tries; i++) {
      if (Browser.reachedOrigin(h.browser().get("/"))) in++;
    }
    return in;
  }

  /** The two gateways of a test, each on its own switchable link to one shared coordinator. */
  private record Pair(
      ManualScheduler scheduler,
      Harness dublin,
      Switchable dublinLink,
      Harness nairobi,
      Switchable nairobiLink) {

    void down(boolean down) throws Exception {
      dublinLink.down = down;
      nairobiLink.down = down;
      dublin.report("shop");
      nairobi.report("shop");
      assertThat(degraded(dublin)).as("dublin degraded").isEqualTo(down);
      assertThat(degraded(nairobi)).as("nairobi degraded").isEqualTo(down);
    }

    int admitAtBoth(int tries) {
      return admit(dublin, tries) + admit(nairobi, tries);
    }

    void rounds(int n) throws Exception {
      for (int i = 0; i < n; i++) round(scheduler, dublin, nairobi);
    }
  }

  private interface Scenario {
    void run(Pair pair) throws Exception;
  }

  private void withTwoGateways(String failMode, Scenario scenario) throws Exception {
    withTwoGateways(failMode, "", scenario);
  }

  private void withTwoGateways(String failMode, String moreKeys, Scenario scenario)
      throws Exception {
    String room =
        "rooms: [ { id: shop, totalActiveUsers: "
            + T
            + ", failMode: "
            + failMode
            + moreKeys
            + " } ]";
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var shared = ObjectCoordination.embedded(runtime);
    var dublinLink = new Switchable(shared);
    var nairobiLink = new Switchable(shared);
    try (var dublin =
            new Harness(
                dataDir.resolve("a"), room, new TestOrigin(), scheduler, dublinLink, "dublin");
        var nairobi =
            new Harness(
                dataDir.resolve("b"), room, new TestOrigin(), scheduler, nairobiLink, "nairobi")) {
      scenario.run(new Pair(scheduler, dublin, dublinLink, nairobi, nairobiLink));
    } finally {
      shared.close();
      runtime.close();
    }
  }

  @Test
  void admissionsMadeWhileDegradedAreChargedSoTheRoomNeverHoldsMoreThanT() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = p.admitAtBoth(2);
          assertThat(active).isEqualTo(4);
          p.rounds(4); // both know all four

          p.down(true);
          // each admits from its last known state: an even split of the 6 free slots
          int whileDegraded = p.admitAtBoth(6);
          active += whileDegraded;
          assertThat(whileDegraded).as("admitted while degraded").isPositive();
          assertThat(active).as("users holding admission while degraded").isLessThanOrEqualTo(T);

          p.down(false);
          // right after the recovery each state still misses the other's degraded admissions
          active += p.admitAtBoth(T);
          assertThat(active)
              .as("users holding admission right after the recovery")
              .isLessThanOrEqualTo(T);
          // and once the states have caught up, the room is still full
          p.rounds(6);
          active += p.admitAtBoth(T);
          assertThat(active).as("the free slots are filled once the states caught up").isEqualTo(T);
        });
  }

  @Test
  void withFailModeOpenTheUsersLetInWithoutTheCoordinatorAreChargedToo() throws Exception {
    withTwoGateways(
        "open",
        p -> {
          int active = p.admitAtBoth(2);
          p.rounds(4);

          p.down(true);
          active += p.admitAtBoth(6);
          assertThat(active).as("open lets everyone in").isEqualTo(16);

          p.down(false);
          assertThat(p.admitAtBoth(T))
              .as("new users admitted right after the recovery, with 16 of 10 held")
              .isZero();
          p.rounds(6);
          assertThat(p.admitAtBoth(T)).as("and once the states have caught up").isZero();
        });
  }

  @Test
  void aDegradedPeriodOfSeveralMinutesNeverHoldsMoreThanT() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = p.admitAtBoth(2);
          p.rounds(4);

          p.down(true);
          active += p.admitAtBoth(6);
          for (int minute = 1; minute <= 3; minute++) {
            p.rounds(12); // a minute without the coordinator
            active += p.admitAtBoth(6);
            assertThat(active)
                .as("users holding admission in minute %d of the outage", minute)
                .isLessThanOrEqualTo(T);
          }
          p.down(false);
          active += p.admitAtBoth(T);
          assertThat(active).as("right after the recovery").isLessThanOrEqualTo(T);
          p.rounds(6);
          active += p.admitAtBoth(T);
          assertThat(active).as("once the states caught up").isLessThanOrEqualTo(T);
        });
  }

  @Test
  void aGatewayBackFirstDrawsNoCounterUntilTheOthersChargesCanBeIn() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = p.admitAtBoth(2);
          p.rounds(4);

          p.down(true);
          int atNairobi = admit(p.nairobi(), 6);
          assertThat(atNairobi).as("admitted at nairobi while degraded").isPositive();
          active += atNairobi;

          // dublin is back first: nairobi's admissions are neither charged nor in dublin's state
          p.dublinLink().down = false;
          p.dublin().report("shop");
          assertThat(degraded(p.dublin())).isFalse();
          active += admit(p.dublin(), T);
          assertThat(active)
              .as("users holding admission once dublin is back")
              .isLessThanOrEqualTo(T);

          p.nairobiLink().down = false;
          p.nairobi().report("shop");
          p.rounds(4); // W = r_w + 2 r_dc = 15 s
          active += p.admitAtBoth(T);
          assertThat(active).as("the free slots are filled once both are back").isEqualTo(T);
        });
  }

  /**
   * Both gateways lose the coordinator and admit their shares; then dublin's link comes back only
   * in part ({@code partly}): a report round gets answered, with a newer state, yet dublin stays
   * degraded. Its fallback must not take a second share from that state, which does not count
   * nairobi's admissions (nor, when its own report failed, its own): the share is one for the whole
   * outage. The room holds at most T once everything is back (11 for T = 10 without the rule, when
   * dublin's own report failed).
   */
  private void aStateAnsweredWhileStillDegradedRenewsNoShare(
      java.util.function.Consumer<Switchable> partly) throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = p.admitAtBoth(2);
          p.rounds(4); // both know all four

          p.down(true);
          int atDublin = admit(p.dublin(), 6);
          int atNairobi = admit(p.nairobi(), 6);
          assertThat(atDublin).as("admitted at dublin from its share").isPositive();
          assertThat(atNairobi).as("admitted at nairobi from its share").isPositive();
          active += atDublin + atNairobi;

          partly.accept(p.dublinLink());
          p.dublinLink().down = false;
          p.dublin().report("shop");
          assertThat(degraded(p.dublin())).as("dublin still degraded").isTrue();
          int more = admit(p.dublin(), 6);
          active += more;
          assertThat(more).as("admitted at dublin after a round answered while degraded").isZero();

          p.dublinLink().chargesFail = false;
          p.dublinLink().fallbackReportsFail = false;
          p.down(false);
          p.rounds(6);
          active += p.admitAtBoth(T);
          assertThat(active)
              .as("users holding admission once both are back")
              .isLessThanOrEqualTo(T);
        });
  }

  /**
   * The admissions log ({@link CoordinatedRoomGate#ADMISSIONS_LOGGER} at DEBUG, docs/operations.md)
   * names what each admission of a new user rested on: a counter's number, or the degraded
   * fallback's share; a returning admitted user writes no line.
   */
  @Test
  void theAdmissionsLogNamesWhatEachAdmissionRestedOn() throws Exception {
    var logger =
        (ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(CoordinatedRoomGate.ADMISSIONS_LOGGER);
    var lines =
        new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
    lines.start();
    ch.qos.logback.classic.Level level = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logger.addAppender(lines);
    try {
      withTwoGateways(
          "degrade",
          p -> {
            Browser b = p.dublin().browser();
            assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
            assertThat(Browser.reachedOrigin(b.get("/"))).as("the same user again").isTrue();
            p.rounds(4);
            p.down(true);
            assertThat(admit(p.dublin(), 1)).isOne();
          });
    } finally {
      logger.detachAppender(lines);
      logger.setLevel(level);
    }
    List<String> messages =
        lines.list.stream()
            .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
            .toList();
    assertThat(messages).as("one line per new user, none for the returning one").hasSize(2);
    assertThat(messages.get(0))
        .matches(
            "room shop: admitted [0-9a-f]{6} \\((DATA_CENTER|ANYWHERE)_SLOT, number 0 of"
                + " Draw\\[CounterKey\\[roomId=shop, .*\\], limit=\\d+\\]; degraded false;"
                + " state as of \\S+ with 0 active, 0 admitted in its minute; pool"
                + " MinutePool\\[minute=\\d+, base=\\d+, newUsersLeft=\\d+, expiring=\\d+\\]\\)");
    assertThat(messages.get(1))
        .matches(
            "room shop: admitted [0-9a-f]{6} \\(WORKER_SLOT, decided on the state, by the"
                + " fallback's share; degraded true; state as of \\S+ with 1 active, \\d+ admitted in its"
                + " minute; pool .*\\)");
  }

  @Test
  void aRoundAnsweredWhileTheChargeFailsRenewsNoShare() throws Exception {
    aStateAnsweredWhileStillDegradedRenewsNoShare(link -> link.chargesFail = true);
  }

  @Test
  void aRoundInWhichOnlyTheFallbacksReportFailedRenewsNoShare() throws Exception {
    aStateAnsweredWhileStillDegradedRenewsNoShare(link -> link.fallbackReportsFail = true);
  }

  /** {@code n} newcomers at {@code h}, each a browser of its own; those queued are returned. */
  private static List<Browser> queuedNewcomers(Harness h, int n, int[] admitted) {
    var queued = new java.util.ArrayList<Browser>();
    for (int i = 0; i < n; i++) {
      Browser b = h.browser();
      if (Browser.reachedOrigin(b.get("/"))) {
        admitted[0]++;
      } else {
        queued.add(b);
      }
    }
    return queued;
  }

  /** How many of {@code queued} reach the origin on one more request each; they leave the list. */
  private static int retry(List<Browser> queued) {
    int in = 0;
    for (var it = queued.iterator(); it.hasNext(); ) {
      if (Browser.reachedOrigin(it.next().get("/"))) {
        in++;
        it.remove();
      }
    }
    return in;
  }

  /**
   * The partition of issue 43, on virtual time: the coordinator's leader is cut off at second :55,
   * both gateways admit their shares while degraded and queue the rest, the outage spans the minute
   * boundary, and the gateways come back, nairobi {@code nairobiLater} report rounds after dublin.
   * Users who queued during the outage keep asking at every round; their bucket is whole in a state
   * that does not count the other gateway's degraded admissions yet.
   */
  private void queuedDuringAnOutageAcrossAMinute(String moreKeys, int nairobiLater)
      throws Exception {
    withTwoGateways(
        "degrade",
        moreKeys,
        p -> {
          var first =
              List.of(
                  p.dublin().browser(),
                  p.dublin().browser(),
                  p.nairobi().browser(),
                  p.nairobi().browser());
          for (Browser b : first) assertThat(Browser.reachedOrigin(b.get("/"))).isTrue();
          int[] active = {first.size()};
          p.rounds(4);
          p.scheduler()
              .advance(
                  Duration.between(
                      p.scheduler().clock().instant(), Instant.parse("2026-11-22T10:00:55Z")));
          p.down(true);
          var queuedAtDublin = queuedNewcomers(p.dublin(), 5, active);
          var queuedAtNairobi = queuedNewcomers(p.nairobi(), 5, active);
          assertThat(active[0]).as("users holding admission while degraded").isLessThanOrEqualTo(T);
          // across the minute boundary, newcomers still arrive and queue
          for (int i = 0; i < 4; i++) {
            p.rounds(1);
            queuedAtDublin.addAll(queuedNewcomers(p.dublin(), 1, active));
            queuedAtNairobi.addAll(queuedNewcomers(p.nairobi(), 1, active));
            active[0] += retry(queuedAtDublin) + retry(queuedAtNairobi);
          }
          assertThat(active[0]).as("still degraded, across the minute").isLessThanOrEqualTo(T);

          // dublin is back and charges; nairobi charges nairobiLater rounds after it. The four
          // users of before the outage leave: their places go to those who queued during it
          p.dublinLink().down = false;
          for (Browser b : first) b.get("/revoke");
          active[0] -= first.size();
          int atRecovery = active[0];
          int firstIn = -1;
          int full = -1;
          for (int round = 0; round < 16; round++) {
            if (round == nairobiLater) {
              p.nairobiLink().down = false;
            }
            round(p.scheduler(), p.dublin(), p.nairobi());
            active[0] += retry(queuedAtDublin) + retry(queuedAtNairobi);
            int seconds = (round + 1) * 5;
            assertThat(active[0])
                .as("users holding admission %d s after dublin's recovery", seconds)
                .isLessThanOrEqualTo(T);
            if (firstIn < 0 && active[0] > atRecovery) firstIn = seconds;
            if (full < 0 && active[0] == T) full = seconds;
          }
          assertThat(degraded(p.nairobi())).isFalse();
          assertThat(active[0])
              .as("the queued users fill the room once the states count")
              .isEqualTo(T);
          // the cost of the rule in waiting time, for docs/room.md (virtual seconds, 5 s rounds)
          System.out.printf(
              "recovery cost (%s, nairobi back %d s later): %d held at dublin's recovery, first"
                  + " queued user in after %d s, room full (%d of %d) after %d s%n",
              moreKeys.isEmpty() ? "counters" : moreKeys.substring(2),
              nairobiLater * 5,
              atRecovery,
              firstIn,
              T,
              T,
              full);
        });
  }

  /**
   * Without the rule, the queued users' retries right after the recovery entered as whole-bucket
   * users without a number: 14 users for T = 10 here, 12 to 14 in the real-process runs.
   */
  @Test
  void usersQueuedDuringAnOutageAcrossAMinuteDrawNothingInTheWAfterTheRecovery() throws Exception {
    queuedDuringAnOutageAcrossAMinute("", 0);
  }

  /**
   * Nairobi is back two report rounds (10 s) after dublin, within dublin's W: past it, dublin's
   * whole-bucket users may not enter without a number on a state that does not count nairobi's
   * charged admissions yet.
   */
  @Test
  void aWholeBucketEntersWithoutANumberOnlyOnAStateThatCountsTheOthersOutage() throws Exception {
    queuedDuringAnOutageAcrossAMinute("", 2);
  }

  /** The same with an even split: its per-worker allowances rest on the state alone. */
  @Test
  void anEvenSplitAdmitsOnlyOnAStateThatCountsTheOthersOutage() throws Exception {
    queuedDuringAnOutageAcrossAMinute(", strategy: evenSplit", 1);
  }

  /**
   * A failover that only dublin saw fail (its report was in flight to the old leader), while
   * nairobi's calls waited for the new leader and got through: four users admitted and known to
   * both, then dublin degraded, admitting from its share of the free slots; its link is back but it
   * has not charged them yet.
   */
  private static int fourInThenDublinAloneSawTheLeaderDieAndAdmittedItsShare(Pair p)
      throws Exception {
    assertThat(p.admitAtBoth(2)).isEqualTo(4);
    p.rounds(4);
    p.dublinLink().down = true;
    p.dublin().report("shop");
    assertThat(degraded(p.dublin())).as("dublin degraded").isTrue();
    int atDublin = admit(p.dublin(), 6);
    assertThat(atDublin).as("admitted at dublin from its share").isPositive();
    p.dublinLink().down = false; // a new leader, not yet reported to
    assertThat(degraded(p.nairobi())).as("nairobi saw no failure").isFalse();
    return 4 + atDublin;
  }

  @Test
  void aNewLeaderWhoseGrantIsTheFirstAnswerAGatewaySeesIsAnOutageThereToo() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = fourInThenDublinAloneSawTheLeaderDieAndAdmittedItsShare(p);
          // nairobi's newcomers draw counters; the first answer comes from the new leader, whose
          // counters know nothing of dublin's admissions yet (without the rule: 13 for T = 10)
          p.nairobiLink().newInstanceAhead.set(true);
          active += admit(p.nairobi(), T);
          assertThat(active)
              .as("users holding admission after the failover")
              .isLessThanOrEqualTo(T);
          assertThat(degraded(p.nairobi()))
              .as("nairobi treats the new leader as an outage")
              .isTrue();

          p.rounds(1); // both report to the new leader and charge what they admitted without it
          assertThat(degraded(p.dublin())).isFalse();
          assertThat(degraded(p.nairobi())).isFalse();
          p.rounds(6);
          active += p.admitAtBoth(T);
          assertThat(active).as("once the states caught up").isLessThanOrEqualTo(T);
        });
  }

  @Test
  void aGatewayWhoseReportMeetsANewLeaderFirstDrawsNoCounterUntilTheOthersChargesCanBeIn()
      throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          int active = fourInThenDublinAloneSawTheLeaderDieAndAdmittedItsShare(p);
          p.nairobiLink().newInstanceAhead.set(true);
          p.nairobi().report("shop"); // answered by the new leader: an outage over at once
          assertThat(degraded(p.nairobi())).isFalse();
          assertThat(admit(p.nairobi(), T))
              .as("new users at nairobi while dublin's admissions are not on the counters")
              .isZero();

          p.rounds(4); // dublin charges; W = r_w + 2 r_dc = 15 s passes
          active += p.admitAtBoth(T);
          assertThat(active).as("the free slots are filled once both are back").isEqualTo(T);
        });
  }

  private static boolean admitsANewUser(CoordinatedRoomGate gate, java.time.Clock clock)
      throws Exception {
    return gate.decide(null, clock.millis())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS)
            .outcome()
        == RoomGate.Outcome.ADMIT;
  }

  /** One gate on its own switchable link, straight on the gate (ticks, its degraded flag). */
  private record OneGate(
      ManualScheduler scheduler,
      java.time.Clock clock,
      Switchable link,
      CoordinatedRoomGate gate) {}

  private interface GateScenario {
    void run(OneGate g) throws Exception;
  }

  /**
   * A gate of a room with T and {@code moreKeys}, one user admitted and reported: the state is the
   * coordinator's and the room is not degraded.
   */
  private static void withOneGate(String moreKeys, GateScenario scenario) throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var clock = scheduler.clock();
    var runtime = Harness.runtime(scheduler);
    var link = new Switchable(ObjectCoordination.embedded(runtime));
    var room =
        io.anteroom.door.config.ConfigLoader.parse(
                "rooms: [ { id: shop, totalActiveUsers: " + T + moreKeys + " } ]", "t")
            .rooms()
            .get(0);
    var gate = new CoordinatedRoomGate(room, "dublin", "p", link, clock);
    try {
      assertThat(admitsANewUser(gate, clock)).isTrue();
      gate.reportNow().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(gate.degraded()).isFalse();
      scenario.run(new OneGate(scheduler, clock, link, gate));
    } finally {
      link.close();
      runtime.close();
    }
  }

  @Test
  void aNewInstanceSeenByAnyCallTurnsTheRoomDegradedAtTheNextRequestWithoutCountersToo()
      throws Exception {
    withOneGate(
        ", strategy: evenSplit",
        g -> {
          // a reply of some call (an overrides fetch, say) named a new instance; an even split
          // draws no counter, so the next new user is the first to learn of it: the fallback
          // decides for it
          g.link().incarnationChanges.incrementAndGet();
          admitsANewUser(g.gate(), g.clock());
          assertThat(g.gate().degraded()).isTrue();
        });
  }

  @Test
  void aGatewayThatOwesAChargeReportsAgainAfterR_wHoweverFarItsPaceBackedOff() throws Exception {
    withOneGate(
        "",
        g -> {
          var gate = g.gate();
          var clock = g.clock();
          var scheduler = g.scheduler();
          var link = g.link();
          link.down = true;
          gate.tick(clock.millis()); // due at once (r_w = 5 s set for the next); it fails
          assertThat(gate.degraded()).isTrue();
          assertThat(admitsANewUser(gate, clock)).as("from the share, not yet charged").isTrue();
          scheduler.advance(Duration.ofSeconds(5));
          gate.tick(clock.millis()); // fails again
          assertThat(gate.reportInterval())
              .as("the pace backed off after the failures")
              .isGreaterThan(Duration.ofSeconds(5));

          // the coordinator is back r_w later: the charge goes with the round due then, so that the
          // other gateways' W after their own recovery covers it
          link.down = false;
          scheduler.advance(Duration.ofSeconds(5));
          gate.tick(clock.millis());
          org.awaitility.Awaitility.await("the round r_w after the last one recovers and charges")
              .atMost(Duration.ofSeconds(10))
              .until(() -> !gate.degraded());
        });
  }

  /**
   * Four users admitted and known to both gateways; then a newcomer at dublin whose counter call is
   * on its way (held) when the links go down. Returns the newcomer's pending response.
   *
   * @param appliedAtOnce the held call is applied at the counter at once (only its answer is late),
   *     or only when it is released (it reaches a new leader late)
   */
  private static CompletableFuture<HttpResponse<String>>
      fourInThenANewcomerOnItsWayAsTheLinksGoDown(Pair p, boolean appliedAtOnce) throws Exception {
    assertThat(p.admitAtBoth(2)).isEqualTo(4);
    p.rounds(4);
    p.dublinLink().holdNextTake = appliedAtOnce;
    var response = p.dublin().browser().getAsync("/");
    p.dublinLink().held.get(10, TimeUnit.SECONDS); // the take is on its way
    p.down(true);
    return response;
  }

  /** Answers the held call; returns 1 if its newcomer reached the origin. */
  private static int answerTheHeldCall(Pair p, CompletableFuture<HttpResponse<String>> newcomer)
      throws Exception {
    p.dublinLink().held.get().run();
    return Browser.reachedOrigin(newcomer.get(10, TimeUnit.SECONDS)) ? 1 : 0;
  }

  @Test
  void aGrantAnsweredAfterTheGatewaysSpentTheirSharesWhileDegradedAdmitsNobodyOverT()
      throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          var late = fourInThenANewcomerOnItsWayAsTheLinksGoDown(p, false);
          int active = 4 + p.admitAtBoth(6); // each spends its share of the 6 free slots
          active += answerTheHeldCall(p, late); // it reached a new leader and was granted
          assertThat(active)
              .as("users holding admission once the late grant is answered")
              .isLessThanOrEqualTo(T);
        });
  }

  @Test
  void aGrantAnsweredWhileDegradedIsPartOfTheGatewaysShare() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          var late = fourInThenANewcomerOnItsWayAsTheLinksGoDown(p, false);
          assertThat(answerTheHeldCall(p, late))
              .as("granted within dublin's share: admitted")
              .isEqualTo(1);
          int active = 4 + 1 + p.admitAtBoth(6);
          assertThat(active).as("users holding admission while degraded").isLessThanOrEqualTo(T);
        });
  }

  @Test
  void aGrantTakenBeforeTheOutageAndAnsweredAfterTheRecoveryAdmitsNobodyOverT() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          var late = fourInThenANewcomerOnItsWayAsTheLinksGoDown(p, true);
          int active = 4 + p.admitAtBoth(6);
          p.down(false); // both charge what they admitted meanwhile
          active += answerTheHeldCall(p, late);
          assertThat(active)
              .as("users holding admission once the late grant is answered")
              .isLessThanOrEqualTo(T);
        });
  }

  @Test
  void aCounterAnswerHeldUpByTheCoordinatorPastItsMinuteAdmitsNobody() throws Exception {
    withTwoGateways(
        "degrade",
        p -> {
          assertThat(p.admitAtBoth(2)).isEqualTo(4);
          p.rounds(4);
          Instant lastSecond = Instant.parse("2026-11-22T10:00:59Z");
          p.scheduler().advance(Duration.between(p.scheduler().clock().instant(), lastSecond));
          // a newcomer's counter call waits for the coordinator (a new Raft leader) without
          // failing: the gateway does not go degraded; the answer comes two seconds later, in
          // the next minute, granted by the minute that is over
          p.dublinLink().holdNextTake = true;
          var newcomer = p.dublin().browser().getAsync("/");
          p.dublinLink().held.get(10, TimeUnit.SECONDS);
          p.scheduler().advance(Duration.ofSeconds(2));

          assertThat(answerTheHeldCall(p, newcomer))
              .as("a grant of 10:00 answered at 10:01:01 to a decision that waited 2 s")
              .isZero();
          assertThat(degraded(p.dublin())).as("no call failed: not degraded").isFalse();
        });
  }
}
