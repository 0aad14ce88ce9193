package io.anteroom.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.RoomRuntime;
import io.anteroom.door.Rooms;
import io.anteroom.door.match.Glob;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.RawHttp;
import io.anteroom.gateway.edge.TrickyTargets.Attempt;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * "One target, one decision" (docs/security.md) over the wire: random requests built from tricky
 * pieces, each sent exactly as generated on a fresh connection to a real gateway in front of a
 * capturing origin. The origin receives a request if and only if the gateway's decision on the
 * normalised target says forward, and then exactly the normalised path and query; nothing under the
 * queued room of shop.example.com ever reaches it; refused targets get 400; nothing gets a 5xx.
 *
 * <p>The rooms ({@link TrickyTargets#ROOMS}): {@code /shop/} and {@code /} of shop.example.com and
 * {@code /sale/} of every host, all queueing everyone, with {@code /static/**} (and {@code
 * /sale/static/**}) bypassed. Every request carries a unique {@code X-Fuzz-Try} header; the origin
 * answers before the gateway does, so once the response is read the capture is complete.
 */
class RequestTargetEndToEndPropertyTest {

  private static final String TRY_HEADER = "X-Fuzz-Try";
  private static final Glob STATIC = Glob.path("/static/**");
  private static final AtomicLong TRIES = new AtomicLong();

  private static Path dataDir;
  private static Harness gateway;

  @BeforeContainer
  static void start() throws Exception {
    dataDir = Files.createTempDirectory("anteroom-target-e2e");
    gateway = new Harness(dataDir, TrickyTargets.ROOMS);
  }

  @AfterContainer
  static void stop() throws Exception {
    try {
      if (gateway != null) {
        gateway.close();
      }
    } finally {
      try (Stream<Path> files = Files.walk(dataDir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Provide
  Arbitrary<Attempt> attempts() {
    return TrickyTargets.attempts(false); // what an HTTP/1 request line can carry
  }

  @Property(tries = 1000)
  void theOriginReceivesExactlyWhatTheRoomJudged(@ForAll("attempts") Attempt a) throws Exception {
    check(a);
  }

  /** The same, longer: {@code ./mvnw -Pslow ...}. */
  @Property(tries = 10_000)
  @Tag("slow")
  void theOriginReceivesExactlyWhatTheRoomJudgedLongRun(@ForAll("attempts") Attempt a)
      throws Exception {
    check(a);
  }

  /**
   * Regression: a raw UTF-8 query ({@code é} as {@code C3 A9}) reached the origin re-encoded
   * ({@code C3 83 C2 A9}); now it arrives percent-encoded, the client's bytes.
   */
  @Example
  void aNonAsciiQueryReachesTheOriginAsTheBytesTheClientSent() throws Exception {
    check(
        new Attempt(
            "/static/app.js?e=" + TrickyTargets.wire("\u00e9"),
            "HTTP/1.1",
            List.of("shop.example.com")));
    assertThat(gateway.origin.received)
        .last()
        .isEqualTo("shop.example.com /static/app.js?e=%C3%A9");
  }

  private static void check(Attempt a) throws Exception {
    String tag = Long.toString(TRIES.incrementAndGet());
    var origin = gateway.origin;
    int before = origin.received.size();

    RawHttp.Response response =
        RawHttp.send(gateway.gateway.port(), a.head(TRY_HEADER + ": " + tag));

    // complete: the origin answered (if it was asked) before the gateway did
    List<String> received = new ArrayList<>(origin.received);
    List<String> reached = received.subList(before, received.size());
    RequestTargetResult parsed = RequestTargetDecisionPropertyTest.parse(a);
    Rooms.Snapshot rooms = gateway.rooms().snapshot();
    String decision =
        parsed instanceof RequestTarget t
            ? TrickyTargets.decide(
                rooms.router(), r -> r.settings().id(), RoomRuntime::rules, t.host(), t.path())
            : "400 (refused)";
    Statistics.label("decision").collect(decision);
    String what = a + " (" + parsed + ", " + decision + ") answered " + response.head();

    assertThat(response.status()).as("%s: an answer, and no 5xx", what).isBetween(200, 499);
    if (decision.startsWith("forward")) {
      RequestTarget t = (RequestTarget) parsed;
      assertThat(reached).as("%s: forwarded once", what).hasSize(1);
      assertThat(origin.lastHeaders).as(what).containsEntry(TRY_HEADER.toLowerCase(), tag);
      String[] hostAndTarget = reached.getFirst().split(" ", 2);
      assertThat(hostAndTarget[1])
          .as("%s: the origin gets the normalised path and the query", what)
          .isEqualTo(t.pathAndQuery());
      assertThat(hostName(hostAndTarget[0]))
          .as("%s: and the normalised host", what)
          .isEqualTo(t.host());
      assertThat(response.status()).as(what).isEqualTo(200);
      assertThat(response.body()).as(what).startsWith("origin:");
    } else {
      assertThat(reached).as("%s: never reaches the origin", what).isEmpty();
      assertThat(response.status())
          .as("%s: refused with 400, or queued", what)
          .isEqualTo(decision.startsWith("400") ? 400 : 200);
    }
    if (parsed instanceof RequestTargetResult.Rejected) {
      assertThat(response.body()).as(what).startsWith("400 Bad Request: ");
    }
    // the room's promise, whatever the decision above: on shop.example.com only static files
    // (bypassed) reach the origin, so nothing under /shop/
    for (String r : reached) {
      String[] hostAndTarget = r.split(" ", 2);
      if ("shop.example.com".equals(hostName(hostAndTarget[0]))) {
        String path = hostAndTarget[1].split("\\?", 2)[0];
        assertThat(path).as("%s: the origin got %s", what, r).doesNotStartWith("/shop/");
        assertThat(STATIC.matches(path)).as("%s: the origin got %s", what, r).isTrue();
      }
    }
  }

  /** The name in a Host header, without its port. */
  private static String hostName(String host) {
    if (host == null || host.equals("null")) {
      return null;
    }
    int colon = host.lastIndexOf(':');
    return colon >= 0 && !host.endsWith("]") ? host.substring(0, colon) : host;
  }
}
