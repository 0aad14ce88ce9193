package io.anteroom.gateway.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * Ratis' repeated peer-connection failures, summarised: the first as one line, a count every
 * minute, one line when they stopped; never a stack trace. Time is a clock the test moves.
 */
class PeerConnectionFailuresTest {
  /** A clock the test moves. */
  static final class TestClock extends Clock {
    Instant now = Instant.parse("2026-11-29T08:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /** As Ratis 3.2 logs it (LogUtils.warn of a StatusRuntimeException: its causes, no trace). */
  static final String REFUSED =
      "c1@group-8583C0A61BBB->c2-AppendLogResponseHandler: Failed appendEntries:"
          + " org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException: UNAVAILABLE: io exception\n"
          + "  Caused by: org.apache.ratis.thirdparty.io.netty.channel.AbstractChannel"
          + "$AnnotatedConnectException: finishConnect(..) failed with error(-111): Connection"
          + " refused: /127.0.0.1:9872\n"
          + "  Caused by: java.net.ConnectException: finishConnect(..) failed with error(-111):"
          + " Connection refused";

  /** The appender's echo of each failure. */
  static final String RETRY =
      "c1@group-8583C0A61BBB->c2-GrpcLogAppender: Follower failed (request=null, errorCount=2);"
          + " keep nextIndex (6) unchanged and retry.";

  private final TestClock clock = new TestClock();
  private final LoggerContext context = new LoggerContext();
  private final ListAppender<ILoggingEvent> out = new ListAppender<>();
  private final PeerConnectionFailures filter = new PeerConnectionFailures(clock, false);
  private Logger ratis;

  @BeforeEach
  void configure() {
    out.setContext(context);
    out.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(out);
    context.getLogger("org.apache.ratis").setLevel(Level.WARN);
    filter.setContext(context);
    filter.start();
    context.addTurboFilter(filter);
    ratis = context.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender");
  }

  private List<String> lines() {
    return out.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
  }

  @Test
  void theFirstFailureIsOneLineThenACountEveryMinuteThenOneLineWhenTheyStop() {
    ratis.warn(REFUSED);
    ratis.warn(RETRY);
    for (int i = 0; i < 160; i++) { // three a second
      clock.advance(Duration.ofMillis(333));
      ratis.warn(REFUSED);
      ratis.warn(RETRY);
    }
    // Ratis' own throttle: one line for 65 failures
    clock.now = Instant.parse("2026-11-29T08:00:55Z");
    ratis.warn(
        REFUSED.replace(
            "Failed appendEntries:",
            "Failed appendEntries (Repeated 65 times in the last 5.004s):"));
    filter.tick();
    clock.now = Instant.parse("2026-11-29T08:01:00Z"); // a minute after the first line
    filter.tick();
    clock.advance(Duration.ofSeconds(5));
    ratis.warn(REFUSED);
    filter.tick();
    clock.advance(Duration.ofSeconds(10)); // quiet since the last failure
    filter.tick();
    assertThat(lines())
        .containsExactly(
            "WARN peer c1 -> peer c2: connection failed (Connection refused: /127.0.0.1:9872);"
                + " retried, further failures are counted every 1 min",
            "WARN peer c1 -> peer c2: still failing: 225 failures in the last 1 min, 226 since"
                + " 2026-11-29T08:00:00Z",
            "INFO peer c1 -> peer c2: no connection failure for 10 s (connected again, or no"
                + " longer tried); 227 failures over 1 min 5 s since 2026-11-29T08:00:00Z");
    assertThat(out.list).allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
  }

  @Test
  void aFailureLoggedWithItsExceptionIsSummarisedWithoutTheStackTrace() {
    var cause = new ConnectException("Connection refused");
    ratis.warn(
        "c2@group-0A1B2C3D4E5F->c3-GrpcLogAppender: Failed appendEntries",
        new RuntimeException("UNAVAILABLE: io exception", cause));
    ratis.warn("c2@group-0A1B2C3D4E5F->c3-GrpcLogAppender: Failed appendEntries", cause);

    assertThat(lines())
        .containsExactly(
            "WARN peer c2 -> peer c3: connection failed (cannot connect); retried, further"
                + " failures are counted every 1 min");
    assertThat(out.list.getFirst().getThrowableProxy()).isNull();
  }

  @Test
  void aFollowerWhoseLeaderWentAwaySaysSoOnceNamingItself() {
    var server = context.getLogger("org.apache.ratis.grpc.server.GrpcServerProtocolService");
    for (int i = 0; i < 3; i++) {
      server.warn(
          "c2: APPEND_ENTRIES onError, lastRequest: null:"
              + " org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException: CANCELLED: client"
              + " cancelled");
    }
    assertThat(lines())
        .containsExactly(
            "WARN peer c2 (GrpcServerProtocolService): connection failed (CANCELLED: client"
                + " cancelled); retried, further failures are counted every 1 min");
  }

  /**
   * As Ratis 3.3 logs a heartbeat or an append that got no answer in time: a peer cut off whose
   * packets are dropped (no refusal), the failure of a partition.
   */
  static String timedOut(String kind, int count) {
    return "c3@group-6AED95B08588->c4-GrpcLogAppender: Timed out "
        + kind
        + "appendEntries, errorCount="
        + count
        + ", request=AppendEntriesRequest:cid="
        + count
        + ":HEARTBEAT,entriesCount=0";
  }

  @Test
  void aPeerThatAnswersNothingIsSummarisedAsOneThatRefuses() {
    // 2026-12-01, the fault suite's five peers losing two: 513 such lines in two seconds
    for (int i = 1; i <= 300; i++) {
      ratis.warn(timedOut("HEARTBEAT ", i));
    }
    ratis.warn(timedOut("", 301));
    clock.advance(Duration.ofSeconds(10)); // the link answers again
    filter.tick();

    assertThat(lines())
        .containsExactly(
            "WARN peer c3 -> peer c4: connection failed (no answer in time); retried, further"
                + " failures are counted every 1 min",
            "INFO peer c3 -> peer c4: no connection failure for 10 s (connected again, or no longer"
                + " tried); 301 failures over 0 s since 2026-11-29T08:00:00Z");
  }

  @Test
  void anAppendPastItsDeadlineIsAFailureOfItsLink() {
    for (int i = 0; i < 3; i++) {
      ratis.warn(
          "c3@group-6AED95B08588->c5-AppendLogResponseHandler: Failed appendEntries:"
              + " org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED:"
              + " deadline exceeded after 2.999s");
    }

    assertThat(lines())
        .containsExactly(
            "WARN peer c3 -> peer c5: connection failed (DEADLINE_EXCEEDED: deadline exceeded"
                + " after 2.999s); retried, further failures are counted every 1 min");
  }

  @Test
  void theConnectionsClosedToAPeerThatAnswersNothingAreSummarisedToo() {
    var grpc = context.getLogger("org.apache.ratis.grpc.GrpcUtil");
    for (String how : new String[] {"gracefully", "gracefully", "forcefully"}) {
      grpc.warn(
          "Timed out "
              + how
              + " shutting down connection: ManagedChannelOrphanWrapper{delegate="
              + "ManagedChannelImpl{logId=17, target=10.231.0.1:7071}}. ");
    }

    assertThat(lines())
        .containsExactly(
            "WARN connections to 10.231.0.1:7071: connection failed (no answer in time while"
                + " closing); retried, further failures are counted every 1 min");
  }

  @Test
  void aFollowersRefusalOfARacingAppendIsOneLineWithoutItsStackTrace() {
    // 2026-12-01, the fault suite's five peers losing two: one ERROR with 74 lines of stack trace
    var server = context.getLogger("org.apache.ratis.server.impl.RaftServerImpl");
    var race =
        new IllegalStateException(
            "c5@group-6AED95B08588: Already running a method by Thread[#88,c5-server-7,5,main],"
                + " current=Thread[#91,c5-server-9,5,main]");
    server.error(
        "{}: Failed appendEntries* {}",
        "c5@group-6AED95B08588",
        "c3->c5#212-t3,previous=(t:3, i:1041),leaderCommit=1040,initializing? false,entries: size=4",
        new java.util.concurrent.CompletionException(race));

    assertThat(lines())
        .containsExactly(
            "INFO peer c5: refused an append from its leader while another of its appends was"
                + " being written (the leader sends it again)");
    assertThat(out.list.getFirst().getThrowableProxy()).isNull();
  }

  @Test
  void aLeaderStoppingItsAppendersLeavesNoRatisLine() {
    // 2026-12-01, a three-peer cluster whose leader stops: two lines, then two stack traces, a stop
    ratis.warn(
        "c2@group-7430DA91A515->c1-GrpcLogAppender is interrupted:"
            + " java.lang.InterruptedException");
    ratis.warn(
        "c2@group-7430DA91A515->c3-GrpcLogAppender: Failed to resetClient for c3",
        new org.apache.ratis.protocol.exceptions.AlreadyClosedException("c2 is already CLOSED"));
    ratis.warn(
        "c2@group-7430DA91A515->c3-GrpcLogAppender: Failed to resetClient for c3",
        new IllegalStateException("a channel that cannot be built"));

    assertThat(lines())
        .as("only the reset that failed for another reason than the peer's own stop")
        .containsExactly(
            "WARN c2@group-7430DA91A515->c3-GrpcLogAppender: Failed to resetClient for c3");
  }

  @Test
  void anotherFailedAppendOnAFollowerKeepsItsErrorAndStackTrace() {
    var server = context.getLogger("org.apache.ratis.server.impl.RaftServerImpl");
    server.error(
        "{}: Failed appendEntries* {}",
        "c5@group-6AED95B08588",
        "c3->c5#212-t3",
        new java.io.IOException("No space left on device"));

    assertThat(lines())
        .containsExactly("ERROR c5@group-6AED95B08588: Failed appendEntries* c3->c5#212-t3");
    assertThat(out.list.getFirst().getThrowableProxy()).isNotNull();
  }

  @Test
  void theAppendersEchoOfAFailureIsDroppedEvenWhenItComesBeforeTheFailure() {
    ratis.warn(RETRY); // Ratis' threads may log the echo first

    assertThat(out.list).as("nothing about the echo alone").isEmpty();
  }

  @Test
  void otherRatisWarningsAndAnteroomsOwnLinesPassUnchanged() {
    ratis.warn("c1@group-0A1B2C3D4E5F: installSnapshot took 12 s");
    context.getLogger("io.anteroom.objects.ratis.ClusterNode").warn("Connection refused: x");
    ratis.info(REFUSED); // below Ratis' level: dropped by the level as before

    assertThat(lines())
        .containsExactly(
            "WARN c1@group-0A1B2C3D4E5F: installSnapshot took 12 s", "WARN Connection refused: x");
  }

  @Test
  void theShippedLogConfigurationsInstallTheFilter() throws Exception {
    for (String file : new String[] {"/logback.xml", "/logback-json.xml"}) {
      var shipped = new LoggerContext();
      var configurator = new JoranConfigurator();
      configurator.setContext(shipped);
      configurator.doConfigure(PeerConnectionFailures.class.getResource(file));
      assertThat(shipped.getTurboFilterList())
          .as(file)
          .hasAtLeastOneElementOfType(PeerConnectionFailures.class);
      shipped.stop();
    }
  }
}
