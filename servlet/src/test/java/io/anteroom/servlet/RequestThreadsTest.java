package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.Answer;
import io.anteroom.door.RequestFacts;
import io.anteroom.door.admission.CoordinatedRoomGate;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import io.anteroom.host.RoomHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A servlet container decides on many threads, which it renews (or a new virtual thread per
 * request): the room's worker shards, their reports and the workers the room counts as active stay
 * bounded by {@link CoordinatedRoomGate#MAX_SHARDS}, however many threads have decided.
 */
class RequestThreadsTest {

  @TempDir Path dir;

  private static RequestFacts facts(String cookie) {
    return new RequestFacts() {
      @Override
      public RequestTargetResult target() {
        return RequestTarget.parse("/hello", "shop.example", null);
      }

      @Override
      public String header(String name) {
        return name.equalsIgnoreCase("Cookie") ? cookie : null;
      }

      @Override
      public List<String> headers(String name) {
        String v = header(name);
        return v == null ? List.of() : List.of(v);
      }

      @Override
      public String peerAddress() {
        return "192.0.2.1";
      }
    };
  }

  @Test
  void aThreadPerRequestServerSharesABoundedNumberOfWorkerShards() throws Exception {
    Path config = dir.resolve("anteroom.yaml");
    Files.writeString(
        config,
        "dataDir: "
            + dir.resolve("data")
            + "\nrooms: [ { id: shop, totalActiveUsers: 100000, newUsersPerMinute: 100000 } ]\n");
    try (var host = AnteroomFilter.start(AnteroomFilter.load(config))) {
      var door = host.door();
      // one admitted user, then its requests each on a new thread, as with virtual threads
      var first = (Answer.Pass) door.enter(facts(null), Runnable::run).toCompletableFuture().join();
      String cookie = cookieOf(host, first);
      int requests = CoordinatedRoomGate.MAX_SHARDS * 4;
      var answers = new ArrayList<Answer>();
      try (var perRequest = Executors.newVirtualThreadPerTaskExecutor()) {
        var futures = new ArrayList<java.util.concurrent.Future<Answer>>();
        for (int i = 0; i < requests; i++) {
          futures.add(
              perRequest.submit(
                  () -> door.enter(facts(cookie), Runnable::run).toCompletableFuture().join()));
        }
        for (var f : futures) {
          answers.add(f.get());
        }
      }
      assertThat(answers)
          .hasSize(requests)
          .allSatisfy(a -> assertThat(a.decision()).isEqualTo("session"));
      var gate = (CoordinatedRoomGate) host.rooms().snapshot().byId().get("shop").control();
      assertThat(gate.shardCount()).isBetween(1, CoordinatedRoomGate.MAX_SHARDS);
    }
  }

  /** The {@code name=value} of the ticket cookie a pass seals, as a browser sends it back. */
  private static String cookieOf(RoomHost host, Answer.Pass pass) {
    String set = pass.room().cookie().set(pass.seal());
    assertThat(set).startsWith(pass.room().cookie().name() + "=");
    return set.substring(0, set.indexOf(';'));
  }
}
