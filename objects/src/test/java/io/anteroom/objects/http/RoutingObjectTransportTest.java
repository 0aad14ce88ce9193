package io.anteroom.objects.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransportException;
import io.anteroom.objects.http.HttpObjectServerTest.FakeTransport;
import io.anteroom.testkit.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leader lookup on the server (421) and the routing transport that follows it. */
class RoutingObjectTransportTest {
  private static final ObjectId ID = ObjectId.fromName("fake", "one");
  private static final SharedSecret SECRET = HttpObjectServerTest.SECRET;

  /**
   * The timeout of a test that waits for it, so short enough to wait for: the calls that must be
   * answered within it are answered in milliseconds once the JVM is warm ({@link #warmUp}), even on
   * a loaded machine.
   */
  private static final Duration GENEROUS_TIMEOUT = Duration.ofSeconds(5);

  private final FakeTransport leaderSide = new FakeTransport();
  private final FakeTransport followerSide = new FakeTransport();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  /**
   * One call through a follower's 421 to the leader before the tests: the first exchanges of a cold
   * JVM load and link the classes of the client and the server (an event loop was blocked for 3 s
   * by it beside 3 busy loops), time that a test's call would otherwise spend out of its timeout.
   */
  @BeforeAll
  static void warmUp() {
    FakeTransport leaderSide = new FakeTransport();
    try (HttpObjectServer leader =
            HttpObjectServer.builder(leaderSide)
                .export("fake")
                .secret(SECRET)
                .leaderLookup((ns, id) -> LeaderLookup.Leader.SELF)
                .start();
        HttpObjectServer follower =
            HttpObjectServer.builder(new FakeTransport())
                .export("fake")
                .secret(SECRET)
                .leaderLookup((ns, id) -> LeaderLookup.Leader.at(leader.uri()))
                .start();
        RoutingObjectTransport routing =
            RoutingObjectTransport.builder(List.of(follower.uri(), leader.uri()))
                .secret(SECRET)
                .timeout(Duration.ofSeconds(60))
                .keepWarm(Duration.ZERO)
                .build()) {
      routing.call("fake", ID, "next", new byte[0]).join();
    }
    assertThat(leaderSide.delivered("next")).isEqualTo(1);
  }

  @AfterEach
  void closeAll() throws Exception {
    leaderSide.hanging.forEach(f -> f.complete(new byte[0]));
    followerSide.hanging.forEach(f -> f.complete(new byte[0]));
    for (int i = toClose.size() - 1; i >= 0; i--) toClose.get(i).close();
  }

  private HttpObjectServer serve(FakeTransport transport, LeaderLookup lookup) {
    HttpObjectServer server =
        HttpObjectServer.builder(transport)
            .export("fake")
            .secret(SECRET)
            .leaderLookup(lookup)
            .start();
    toClose.add(server);
    return server;
  }

  private RoutingObjectTransport route(Duration timeout, URI... coordinators) {
    RoutingObjectTransport t =
        RoutingObjectTransport.builder(List.of(coordinators))
            .secret(SECRET)
            .timeout(timeout)
            .keepWarm(Duration.ZERO) // no pings: these tests count connections and accepts
            .build();
    toClose.add(t);
    return t;
  }

  /** System.nanoTime, or the time at which it was stopped, until it runs again. */
  private static final class StoppableClock implements LongSupplier {
    private static final long RUNNING = Long.MIN_VALUE;
    private final AtomicLong stoppedAt = new AtomicLong(RUNNING);

    void stop() {
      stoppedAt.compareAndSet(RUNNING, System.nanoTime());
    }

    void run() {
      stoppedAt.set(RUNNING);
    }

    @Override
    public long getAsLong() {
      long t = stoppedAt.get();
      return t == RUNNING ? System.nanoTime() : t;
    }
  }

  private static long number(byte[] reply) {
    return ByteBuffer.wrap(reply).getLong();
  }

  private static Throwable failureOf(java.util.concurrent.CompletableFuture<byte[]> call) {
    try {
      call.join();
    } catch (CompletionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void aServerThatDoesNotLeadAnswers421NamingTheLeaderAndTheCallNeverReachesItsTransport() {
    URI leader = URI.create("http://127.0.0.1:9");
    HttpObjectServer follower = serve(followerSide, (ns, id) -> LeaderLookup.Leader.at(leader));
    HttpObjectTransport direct = HttpObjectTransport.builder(follower.uri()).secret(SECRET).build();
    toClose.add(direct);

    Throwable failure = failureOf(direct.call("fake", ID, "next", new byte[0]));

    assertThat(failure)
        .isInstanceOf(HttpObjectTransport.MisdirectedCallException.class)
        .hasMessageContaining("HTTP 421")
        .hasMessageContaining("the leader is " + leader)
        .hasMessageContaining("not run");
    assertThat(((HttpObjectTransport.MisdirectedCallException) failure).leader()).contains(leader);
    assertThat(followerSide.delivered("next")).isZero();
  }

  @Test
  void aCallSentToAFollowerIsRedirectedToTheLeaderAndRunsThereOnce() {
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer follower =
        serve(followerSide, (ns, id) -> LeaderLookup.Leader.at(leader.uri()));
    RoutingObjectTransport routing = route(Duration.ofSeconds(10), follower.uri(), leader.uri());

    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isEqualTo(1);

    assertThat(leaderSide.delivered("next")).isEqualTo(2);
    assertThat(followerSide.delivered("next")).isZero();
  }

  @Test
  void aRefusedConnectionIsRetriedOnTheNextCoordinator() throws IOException {
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    URI dead = URI.create("http://127.0.0.1:" + FreePorts.take());
    RoutingObjectTransport routing = route(Duration.ofSeconds(10), dead, leader.uri());

    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
    assertThat(leaderSide.delivered("next")).isEqualTo(1);
  }

  @Test
  void aCoordinatorThatDropsConnectionsSilentlyCostsACallItsConnectTimeoutOnlyAndAnotherRunsIt()
      throws IOException {
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    try (ServerSocket cut = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // its accept queue filled: the kernel drops further SYNs, as a cut link does (no refusal)
      List<Socket> queued = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          Socket s = new Socket();
          try {
            s.connect(
                new java.net.InetSocketAddress(cut.getInetAddress(), cut.getLocalPort()), 200);
          } catch (IOException full) {
            // the queue is full: the later SYNs are dropped
          }
          queued.add(s);
        }
        URI silent = URI.create("http://127.0.0.1:" + cut.getLocalPort());
        RoutingObjectTransport routing = route(Duration.ofSeconds(4), silent, leader.uri());

        // before, the connect waited the call's whole timeout and the call failed, not run
        assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
        assertThat(leaderSide.delivered("next")).isEqualTo(1);
      } finally {
        for (Socket s : queued) s.close();
      }
    }
  }

  @Test
  void aCoordinatorThatNoCallGoesToStillHasAnOpenConnectionForTheFailover() throws Exception {
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer follower =
        serve(followerSide, (ns, id) -> LeaderLookup.Leader.at(leader.uri()));
    RoutingObjectTransport routing =
        RoutingObjectTransport.builder(List.of(leader.uri(), follower.uri()))
            .secret(SECRET)
            .timeout(Duration.ofSeconds(10))
            .keepWarm(Duration.ofMillis(200))
            .build();
    toClose.add(routing);

    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();

    // the calls go to the leader only; the follower is pinged and keeps a connection open
    org.awaitility.Awaitility.await("a connection to the follower")
        .atMost(Duration.ofSeconds(10))
        .until(() -> follower.openConnections() == 1);
    assertThat(followerSide.delivered("next")).as("a ping runs nothing").isZero();
    assertThat(leaderSide.delivered("next")).isEqualTo(1);
  }

  @Test
  void aCallPassesOverALeaderNamedIn421ThatHasNotAnsweredLatelyAndRunsWhereTheLeaderAnswers()
      throws Exception {
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    // a coordinator cut off: connections are made (the kernel's queue), nothing is ever answered
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      URI silentUri = URI.create("http://127.0.0.1:" + silent.getLocalPort());
      // a follower that has not noticed yet: it names the silent one as the leader
      HttpObjectServer follower =
          serve(followerSide, (ns, id) -> LeaderLookup.Leader.at(silentUri));
      StoppableClock clock = new StoppableClock();
      RoutingObjectTransport routing =
          RoutingObjectTransport.builder(List.of(follower.uri(), silentUri, leader.uri()))
              .secret(SECRET)
              .timeout(Duration.ofSeconds(10)) // sent to the silent one, the call fails anyway
              .keepWarm(Duration.ofSeconds(1))
              .warmClock(clock)
              .build();
      toClose.add(routing);
      // the clock stops at a moment the follower and the leader have both answered a ping lately,
      // and stands still from then on: they keep having answered lately and the silent one never
      // did, however slow the machine (on the running clock, a leader whose next ping was late
      // looked silent too, and the call went on to the silent one: 1 of 200 repetitions, 4 of 10
      // cold runs failed beside 3 busy loops)
      org.awaitility.Awaitility.await("the pings answered by the follower and the leader")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                clock.stop();
                if (routing.answersNow(follower.uri()) && routing.answersNow(leader.uri())) {
                  return true;
                }
                clock.run(); // the pings go on; a late or lost one is sent again
                return false;
              });
      assertThat(routing.answersNow(silentUri)).as("the silent one never answered").isFalse();

      // before, the call followed the 421 to the silent coordinator and waited its whole timeout
      // there: outcome unknown
      assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
      assertThat(leaderSide.delivered("next")).isEqualTo(1);
    }
  }

  @Test
  void aPingIsAnsweredWithoutASecretAndTheConnectionStaysOpenForTheNextRequest() throws Exception {
    HttpObjectServer server = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectTransport direct = HttpObjectTransport.builder(server.uri()).build(); // no secret
    toClose.add(direct);

    assertThat(direct.ping(Duration.ofSeconds(10)).get(10, java.util.concurrent.TimeUnit.SECONDS))
        .isTrue();
    assertThat(direct.ping(Duration.ofSeconds(10)).get(10, java.util.concurrent.TimeUnit.SECONDS))
        .isTrue();

    assertThat(server.openConnections()).as("both pings on one kept-alive connection").isEqualTo(1);
  }

  @Test
  void theConnectTimeoutIsAQuarterOfTheCallsWithSeveralCoordinatorsAndAllOfItWithOne() {
    assertThat(RoutingObjectTransport.connectTimeout(Duration.ofSeconds(2), 3))
        .isEqualTo(Duration.ofMillis(500));
    assertThat(RoutingObjectTransport.connectTimeout(Duration.ofMillis(600), 3))
        .isEqualTo(Duration.ofMillis(250));
    assertThat(RoutingObjectTransport.connectTimeout(Duration.ofMillis(200), 3))
        .isEqualTo(Duration.ofMillis(200));
    assertThat(RoutingObjectTransport.connectTimeout(Duration.ofSeconds(2), 1))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aCallWhoseServerDiesAfterReceivingItIsNotRetriedAndSaysItMayHaveRun() throws Exception {
    HttpObjectServer other = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    try (ServerSocket dying = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual()
          .start(
              () -> {
                try (Socket s = dying.accept();
                    InputStream in = s.getInputStream()) {
                  in.read(
                      new byte[1024]); // the request arrived: the server "crashes" before replying
                } catch (IOException ignored) {
                  // the test fails on the caller's side if this server misbehaves
                }
              });
      URI dyingUri = URI.create("http://127.0.0.1:" + dying.getLocalPort());
      RoutingObjectTransport routing = route(Duration.ofSeconds(10), dyingUri, other.uri());

      Throwable failure = failureOf(routing.call("fake", ID, "next", new byte[0]));

      assertThat(failure)
          .isInstanceOf(ObjectTransportException.class)
          .hasMessageContaining("may or may not have run")
          .hasMessageContaining("not retried");
      assertThat(leaderSide.delivered("next")).as("never sent to another coordinator").isZero();
    }
  }

  @Test
  void aCallThatTimedOutIsNotRetriedOnAnotherCoordinator() {
    HttpObjectServer first = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer second = serve(followerSide, (ns, id) -> LeaderLookup.Leader.SELF);
    // the call waits its whole timeout, generous: shorter, on a loaded machine the call could fail
    // to connect within a quarter of it (and be retried on the second) or not reach the first
    RoutingObjectTransport routing = route(GENEROUS_TIMEOUT, first.uri(), second.uri());

    Throwable failure = failureOf(routing.call("fake", ID, "hang", new byte[0]));

    assertThat(failure)
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("may or may not have run");
    assertThat(leaderSide.delivered("hang")).isEqualTo(1);
    assertThat(followerSide.delivered("hang")).isZero();
  }

  /**
   * A leader that stops answering (paused, cut off) while another was elected: its call times out
   * and is not retried, but the next call to the object starts at the next coordinator, which names
   * the new leader, instead of waiting on the silent one again.
   */
  @Test
  void afterACallTimedOutTheNextCallToTheObjectStartsAtTheNextCoordinator() {
    HttpObjectServer silent = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer elected = serve(followerSide, (ns, id) -> LeaderLookup.Leader.SELF);
    // the hanging call waits its whole timeout; with 500 ms, the first call of a cold JVM got no
    // reply within it (10 of 10 cold runs beside 3 busy loops)
    RoutingObjectTransport routing = route(GENEROUS_TIMEOUT, silent.uri(), elected.uri());
    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
    assertThat(leaderSide.delivered("next")).isEqualTo(1);

    assertThat(failureOf(routing.call("fake", ID, "hang", new byte[0])))
        .hasMessageContaining("may or may not have run");
    assertThat(followerSide.delivered("hang")).as("the call itself is not retried").isZero();

    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
    assertThat(followerSide.delivered("next")).as("the next call went elsewhere").isEqualTo(1);
    assertThat(leaderSide.delivered("next")).isEqualTo(1);
  }

  @Test
  void aLeaderNamedOutsideTheConfiguredCoordinatorsIsNeverCalled() throws IOException {
    FakeTransport elsewhere = new FakeTransport();
    HttpObjectServer stranger = serve(elsewhere, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer leader = serve(leaderSide, (ns, id) -> LeaderLookup.Leader.SELF);
    HttpObjectServer lying =
        serve(followerSide, (ns, id) -> LeaderLookup.Leader.at(stranger.uri()));
    RoutingObjectTransport routing = route(Duration.ofSeconds(10), lying.uri(), leader.uri());

    assertThat(number(routing.call("fake", ID, "next", new byte[0]).join())).isZero();
    assertThat(elsewhere.delivered("next")).isZero();
    assertThat(leaderSide.delivered("next")).isEqualTo(1);
  }

  @Test
  void withoutAKnownLeaderTheCallFailsAfterItsTimeoutSayingItWasNotRun() {
    HttpObjectServer electing = serve(followerSide, (ns, id) -> LeaderLookup.Leader.UNKNOWN);
    // the call waits its whole timeout; each 421 must come back within it, or the call fails with
    // that attempt's own timeout (may have run) instead: with 2 s, 1 of 10 cold runs beside 3 busy
    // loops
    RoutingObjectTransport routing = route(GENEROUS_TIMEOUT, electing.uri());

    Throwable failure = failureOf(routing.call("fake", ID, "next", new byte[0]));

    assertThat(failure)
        .isInstanceOf(ObjectTransportException.class)
        .hasMessageContaining("no coordinator ran the call")
        .hasMessageContaining("was not run");
    assertThat(followerSide.delivered("next")).isZero();
  }

  @Test
  void aCoordinatorListedTwiceIsRefused() {
    URI uri = URI.create("http://127.0.0.1:8081");
    assertThatThrownBy(
            () ->
                RoutingObjectTransport.builder(List.of(uri, URI.create("HTTP://127.0.0.1:8081")))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
  }
}
