package io.anteroom.bench.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.OriginResponse;
import io.anteroom.door.RequestFacts;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.GatewayConfig;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.door.proof.Accounts;
import io.anteroom.host.RoomHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a room with {@code account} adds to an admitted request, and what the public list of draws
 * costs, without a server, in one JVM with same-run baselines (rounds alternate the cases):
 *
 * <ul>
 *   <li>{@code plain}: {@link Door#enter} and {@link Door#onOriginResponse} for an admitted user's
 *       request in a room without {@code account} (as {@link DoorCost});
 *   <li>{@code account}: the same in a room with {@code account} (an HS256 assertion in the header,
 *       the ticket and the account cookie);
 *   <li>{@code verify}: the assertion's check alone ({@link Accounts#verify}, HS256: after the
 *       first call, from its cache of verified assertions);
 *   <li>{@code parse+HMAC}: what a check without that cache does: parse the JWS, verify its HMAC,
 *       read its claims (nimbus-jose-jwt);
 *   <li>{@code draws-1} / {@code draws-25}: {@code GET /.well-known/anteroom/draws.json} on a host
 *       whose room lists one draw (a shuffled event) / 25 (random queueing: 24 hours back and the
 *       next).
 * </ul>
 *
 * Prints thread CPU time per operation, one thread. Usage: {@code AccountCost [seconds=3]
 * [rounds=5]}
 */
public final class AccountCost {
  private AccountCost() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("account-cost");
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    Path keyFile = dir.resolve("identity.key");
    Files.writeString(keyFile, Base64.getEncoder().encodeToString(key));
    Instant now = Instant.now();
    String big =
        "totalActiveUsers: 1000000, newUsersPerMinute: 1000000, sessionDurationMinutes: 60";
    GatewayConfig a =
        config(
            dir.resolve("a"),
            "rooms:\n  - { id: plain, path: /plain/, "
                + big
                + " }\n  - { id: acc, path: /acc/, "
                + big
                + ", account: { required: true, hs256SecretFile: "
                + keyFile
                + " } }\n  - { id: ev, path: /ev/, events: [ { name: launch, prequeueStartTime: "
                + now.minus(Duration.ofHours(1))
                + ", eventStartTime: "
                + now.plus(Duration.ofHours(1))
                + ", eventEndTime: "
                + now.plus(Duration.ofHours(3))
                + ", shuffleAtEventStart: true } ] }\n");
    GatewayConfig b =
        config(dir.resolve("b"), "rooms: [ { id: rnd, path: /rnd/, queueingMethod: random } ]\n");
    String token = Accounts.sign(key, "alice", now.plus(Duration.ofHours(2)), null);
    Accounts verifier = Accounts.hs256(key, 60_000);
    try (RoomHost hostA = RoomHost.start(a, RoomHost.embedded(a), "local", Clock.systemUTC());
        RoomHost hostB = RoomHost.start(b, RoomHost.embedded(b), "local", Clock.systemUTC())) {
      Door doorA = hostA.door();
      Door doorB = hostB.door();
      var plain = new Admitted(doorA, "/plain/hello", null);
      var account = new Admitted(doorA, "/acc/hello", token);
      int draws1 = drawsListed(doorA);
      int draws25 = drawsListed(doorB);
      var cases = new LinkedHashMap<String, Supplier<Object>>();
      cases.put("plain", plain::once);
      cases.put("account", account::once);
      cases.put("verify", () -> verifier.verify(token, System.currentTimeMillis()));
      var mac = new com.nimbusds.jose.crypto.MACVerifier(key);
      cases.put(
          "parse+HMAC",
          () -> {
            try {
              var jwt = com.nimbusds.jwt.SignedJWT.parse(token);
              return jwt.verify(mac) ? jwt.getJWTClaimsSet() : null;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      cases.put("draws-" + draws1, () -> draws(doorA));
      cases.put("draws-" + draws25, () -> draws(doorB));
      var bean =
          (com.sun.management.ThreadMXBean)
              java.lang.management.ManagementFactory.getThreadMXBean();
      Object sink = null;
      for (int r = 0; r <= rounds; r++) {
        var line = new StringBuilder(r == 0 ? "warm-up " : "round " + r + ":");
        for (var c : cases.entrySet()) {
          long end = System.nanoTime() + seconds * 1_000_000_000L;
          long c0 = bean.getCurrentThreadCpuTime();
          long n = 0;
          while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
              sink = c.getValue().get();
            }
            n += 100;
          }
          long cpu = bean.getCurrentThreadCpuTime() - c0;
          line.append(String.format(" %s %.2f µs", c.getKey(), cpu / 1000.0 / n));
        }
        System.out.println(line);
      }
      System.out.println(sink == null ? "" : "done");
    }
  }

  private static GatewayConfig config(Path dir, String rooms) throws Exception {
    Files.createDirectories(dir);
    Path yaml = dir.resolve("anteroom.yaml");
    Files.writeString(yaml, "dataDir: " + dir.resolve("data") + "\n" + rooms);
    return ConfigLoader.load(yaml);
  }

  private static Answer draws(Door door) {
    return door.enter(new Facts("/.well-known/anteroom/draws.json", Map.of()), Runnable::run)
        .toCompletableFuture()
        .join();
  }

  private static int drawsListed(Door door) {
    if (!(draws(door) instanceof Answer.Respond r) || r.status() != 200) {
      throw new IllegalStateException("draws.json not served");
    }
    String json = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    return json.split("\"commitment\"", -1).length - 1;
  }

  /** An admitted user of one room: its cookies, renewed as the door answers. */
  private static final class Admitted {
    private final Door door;
    private final String path;
    private final String token;
    private final Map<String, String> cookies = new LinkedHashMap<>();

    Admitted(Door door, String path, String token) {
      this.door = door;
      this.path = path;
      this.token = token;
      if (!(once() instanceof Answer.Pass)) {
        throw new IllegalStateException("the first request was not admitted: " + path);
      }
    }

    Answer once() {
      var headers = new LinkedHashMap<String, String>();
      if (token != null) {
        headers.put("anteroom-account", token);
      }
      if (!cookies.isEmpty()) {
        var sb = new StringBuilder();
        cookies.forEach(
            (k, v) -> sb.append(sb.isEmpty() ? "" : "; ").append(k).append('=').append(v));
        headers.put("cookie", sb.toString());
      }
      Answer a = door.enter(new Facts(path, headers), Runnable::run).toCompletableFuture().join();
      if (!(a instanceof Answer.Pass p)) {
        throw new IllegalStateException("not admitted: " + a);
      }
      Response r = new Response();
      door.onOriginResponse(p, r, 1000);
      r.setCookies.addAll(p.setCookies()); // written by the server adapter, as the filter does
      for (String set : r.setCookies) {
        String pair = set.substring(0, set.indexOf(';'));
        int eq = pair.indexOf('=');
        cookies.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
      return a;
    }
  }

  /** A GET of {@code path} with {@code headers} (lower-case names). */
  private record Facts(String path, Map<String, String> headers) implements RequestFacts {
    @Override
    public RequestTargetResult target() {
      return RequestTarget.parse(path, "127.0.0.1:8080", null);
    }

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String header(String name) {
      return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public List<String> headers(String name) {
      String v = header(name);
      return v == null ? List.of() : List.of(v);
    }

    @Override
    public String peerAddress() {
      return "127.0.0.1";
    }
  }

  /** The application's response; the door's {@code Set-Cookie} values collected. */
  private static final class Response implements OriginResponse {
    final Map<String, String> headers = new java.util.HashMap<>(4);
    final List<String> setCookies = new ArrayList<>(2);

    @Override
    public int status() {
      return 200;
    }

    @Override
    public String header(String name) {
      return headers.get(name);
    }

    @Override
    public void set(String name, String value) {
      if (name.equalsIgnoreCase("Set-Cookie")) {
        setCookies.add(value);
      } else {
        headers.put(name, value);
      }
    }

    @Override
    public void add(String name, String value) {
      set(name, value);
    }

    @Override
    public void remove(String name) {
      headers.remove(name);
    }
  }
}
