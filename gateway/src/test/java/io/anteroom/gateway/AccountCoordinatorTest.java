package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.Coordination;
import io.anteroom.door.proof.Accounts;
import io.anteroom.objects.ManualScheduler;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One place per account where the account's calls to the coordinator are held (two first requests
 * of one account at once) or fail (the coordinator unreachable), black-box through the public
 * listener of a real gateway on virtual time. The link between gateway and coordinator is
 * controlled: no sleeps, no timing.
 */
class AccountCoordinatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TICKET = "__anteroom_shop";
  private static final String KEYS =
      "\nticketKeys: [ { id: 1, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= } ]";

  @TempDir Path dataDir;
  private byte[] key;
  private Path keyFile;

  /**
   * The in-process coordination with a hand on the account-place calls: {@link #down} fails them as
   * a dead link would; {@link #holdLookups} holds lookups until that many arrived, asks them all,
   * and answers them once every one has its answer.
   */
  static final class PlacesLink implements InvocationHandler {
    final Coordination real;
    volatile boolean down;
    private final List<Held> held = new ArrayList<>();
    private int holdLookups;

    PlacesLink(Coordination real) {
      this.real = real;
    }

    Coordination coordination() {
      return (Coordination)
          java.lang.reflect.Proxy.newProxyInstance(
              Coordination.class.getClassLoader(), new Class<?>[] {Coordination.class}, this);
    }

    /** A lookup held back, and the answer its caller waits for. */
    private record Held(Method method, Object[] args, CompletableFuture<Object> answer) {}

    synchronized void holdLookups(int n) {
      holdLookups = n;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getName().equals("place")) {
        if (down) {
          return CompletableFuture.failedFuture(new java.io.IOException("coordinator unreachable"));
        }
        if (args[3] == null) { // a lookup (no offer)
          var answer = new CompletableFuture<Object>();
          List<Held> release = null;
          synchronized (this) {
            if (holdLookups > 0) {
              held.add(new Held(m, args, answer));
              release = List.of();
              if (held.size() == holdLookups) {
                release = List.copyOf(held);
                held.clear();
                holdLookups = 0;
              }
            }
          }
          if (release != null) {
            if (!release.isEmpty()) {
              // every held lookup is asked before any is answered: an answer runs its request on,
              // and that request's offer must not reach the coordinator before the other lookup
              List<Held> answered = release;
              List<CompletableFuture<Object>> asked =
                  answered.stream().map(h -> call(h.method(), h.args())).toList();
              CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                  .whenComplete(
                      (all, failure) -> {
                        for (int i = 0; i < asked.size(); i++) {
                          asked.get(i).whenComplete(settle(answered.get(i).answer()));
                        }
                      });
            }
            return answer;
          }
        }
      }
      try {
        return m.invoke(real, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    private static java.util.function.BiConsumer<Object, Throwable> settle(
        CompletableFuture<Object> answer) {
      return (r, e) -> {
        if (e != null) {
          answer.completeExceptionally(e);
        } else {
          answer.complete(r);
        }
      };
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<Object> call(Method m, Object[] args) {
      try {
        return ((java.util.concurrent.CompletionStage<Object>) m.invoke(real, args))
            .toCompletableFuture();
      } catch (ReflectiveOperationException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
  }

  @BeforeEach
  void key() throws Exception {
    key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    keyFile = dataDir.resolve("identity.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n");
  }

  private String room(int totalActiveUsers) {
    return "rooms: [ { id: shop, totalActiveUsers: "
        + totalActiveUsers
        + ", account: { required: true, hs256SecretFile: "
        + keyFile
        + " } } ]"
        + KEYS;
  }

  private String identity(String account) {
    return Accounts.sign(key, account, Harness.START.plus(Duration.ofDays(1)), null);
  }

  private static io.anteroom.room.Ticket ticketOf(Browser browser, ManualScheduler scheduler) {
    var cookie =
        new io.anteroom.door.ticket.TicketCookie(
            "shop",
            "",
            false,
            io.anteroom.door.config.CookieSameSite.LAX,
            new io.anteroom.door.ticket.TicketCodec(
                List.of(
                    new io.anteroom.door.config.GatewayConfig.TicketKey(
                        1,
                        Base64.getDecoder()
                            .decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))),
                scheduler.clock()));
    return cookie.openValue(browser.cookies.get(TICKET)).ticket();
  }

  /** Reports until the state counts every report of the minute before; its active users. */
  private static long activeUsers(Harness h) throws Exception {
    h.scheduler.advance(Duration.ofMinutes(1));
    for (int round = 0; round < 2; round++) {
      h.report("shop");
      h.scheduler.advance(Duration.ofSeconds(5));
    }
    return h.gate("shop").status(h.scheduler.clock().millis()).estimatedTotalActiveUsers();
  }

  @Test
  void twoFirstRequestsOfOneAccountAtOnceGetOnePlaceAndTheLaterIsSentToIt() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    try (var real = Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
        var h =
            new Harness(
                dataDir,
                room(5),
                new TestOrigin(),
                scheduler,
                new PlacesLink(real).coordination(),
                "dc1")) {
      PlacesLink link = (PlacesLink) java.lang.reflect.Proxy.getInvocationHandler(h.coordination);
      link.holdLookups(2); // both lookups answered only once both were asked: neither sees a place
      Browser laptop = h.browser();
      Browser phone = h.browser();

      var both =
          List.of(
              laptop.getAsync("/tickets?id=7", "Anteroom-Account", identity("alice")),
              phone.getAsync("/tickets?id=7", "Anteroom-Account", identity("alice")));
      List<HttpResponse<String>> answers = both.stream().map(CompletableFuture::join).toList();

      assertThat(answers.stream().filter(Browser::reachedOrigin).count())
          .as("the first offer's browser is let in")
          .isEqualTo(1);
      HttpResponse<String> later =
          answers.stream().filter(r -> r.statusCode() == 307).findFirst().orElseThrow();
      assertThat(later.headers().firstValue("location")).contains("/tickets?id=7");
      assertThat(later.headers().firstValue("cache-control")).contains("no-store");
      Browser sent = answers.get(0) == later ? laptop : phone;
      assertThat(
              Browser.reachedOrigin(
                  sent.get("/tickets?id=7", "Anteroom-Account", identity("alice"))))
          .as("the 307's browser, following it: the account's session")
          .isTrue();
      assertThat(ticketOf(phone, scheduler).id()).isEqualTo(ticketOf(laptop, scheduler).id());
      assertThat(activeUsers(h))
          .as("one session: the later browser's admission was given back")
          .isEqualTo(1);
    }
  }

  @Test
  void whileTheCoordinatorCannotAnswerNoAccountGetsASecondPlaceOrASecondSession() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    try (var real = Harness.objects(scheduler, io.anteroom.coordinator.RoomObjects.REPORT_MAX_QPS);
        var h =
            new Harness(
                dataDir,
                room(1),
                new TestOrigin(),
                scheduler,
                new PlacesLink(real).coordination(),
                "dc1")) {
      PlacesLink link = (PlacesLink) java.lang.reflect.Proxy.getInvocationHandler(h.coordination);
      Browser carol = h.browser();
      assertThat(Browser.reachedOrigin(carol.get("/", "Anteroom-Account", identity("carol"))))
          .isTrue();
      Browser laptop = h.browser();
      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .isFalse();
      long alicesPlace = ticketOf(laptop, scheduler).id();

      link.down = true;
      Browser bob = h.browser();
      var bobs = bob.get("/", "Accept", "application/json", "Anteroom-Account", identity("bob"));
      assertThat(bobs.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(bobs.body()).get("inWaitingRoom").asBoolean()).isTrue();
      assertThat(bob.cookies).as("no place made without the coordinator").doesNotContainKey(TICKET);
      Browser phone = h.browser();
      phone.get("/", "Anteroom-Account", identity("alice"));
      assertThat(ticketOf(phone, scheduler).id())
          .as("a new browser of a known account: the place this gateway remembers")
          .isEqualTo(alicesPlace);

      carol.get("/revoke", "Anteroom-Account", identity("carol")); // the one place is free again
      scheduler.advance(Duration.ofMinutes(1));
      h.report("shop");
      var notYet = laptop.get("/", "Anteroom-Account", identity("alice"));
      assertThat(Browser.reachedOrigin(notYet))
          .as("an admission that cannot be claimed is given back")
          .isFalse();
      assertThat(ticketOf(laptop, scheduler).id()).as("the place kept").isEqualTo(alicesPlace);
      assertThat(ticketOf(laptop, scheduler).admitted()).isFalse();

      link.down = false;
      scheduler.advance(Duration.ofMinutes(1)); // the given-back admission's number stays spent
      h.report("shop");
      assertThat(Browser.reachedOrigin(laptop.get("/", "Anteroom-Account", identity("alice"))))
          .as("claimed once the coordinator answers")
          .isTrue();
      assertThat(Browser.reachedOrigin(phone.get("/", "Anteroom-Account", identity("alice"))))
          .as("the phone: the account's session")
          .isTrue();
      bob.get("/", "Anteroom-Account", identity("bob"));
      assertThat(bob.cookies).as("bob's place, now").containsKey(TICKET);
      assertThat(activeUsers(h)).isEqualTo(1);
    }
  }
}
