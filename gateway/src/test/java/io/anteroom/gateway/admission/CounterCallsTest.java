package io.anteroom.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.admission.Coordination;
import io.anteroom.gateway.Browser;
import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import io.anteroom.host.ObjectCoordination;
import io.anteroom.objects.ManualScheduler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user first in a full room's queue is a counter call only while the counter may still grant:
 * once the counter refused at the limit the user's draw would use, refreshing in that minute
 * (however often, by a person or by a script holding the ticket) is answered by the gateway. A
 * higher limit or the next minute asks the counter again ({@code CounterMemoryTest} in the room
 * core). Without the memory, each of the 50 refreshes below was a counter call.
 */
class CounterCallsTest {

  @TempDir Path dataDir;

  @Test
  void aUserFirstInAFullRoomsQueueDoesNotCallTheCounterOnEveryRefresh() throws Exception {
    var scheduler = new ManualScheduler(Harness.START);
    var runtime = Harness.runtime(scheduler);
    var shared = ObjectCoordination.embedded(runtime);
    var takes = new AtomicInteger();
    Coordination counting =
        (Coordination)
            Proxy.newProxyInstance(
                Coordination.class.getClassLoader(),
                new Class<?>[] {Coordination.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("take")) takes.incrementAndGet();
                  try {
                    return method.invoke(shared, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    String room =
        "rooms: [ { id: shop, totalActiveUsers: 1, newUsersPerMinute: 1,"
            + " sessionDurationMinutes: 60 } ]";
    try (var gateway =
        new Harness(dataDir, room, new TestOrigin(), scheduler, counting, "dublin")) {
      assertThat(Browser.reachedOrigin(gateway.browser().get("/"))).as("first user").isTrue();
      Browser second = gateway.browser();
      assertThat(Browser.reachedOrigin(second.get("/"))).as("second user, queued").isFalse();
      int beforeRefreshes = takes.get();

      for (int i = 0; i < 50; i++) {
        assertThat(Browser.reachedOrigin(second.get("/"))).isFalse();
      }

      assertThat(takes.get() - beforeRefreshes)
          .as("counter calls during 50 refreshes in the minute the counter refused")
          .isLessThanOrEqualTo(2);
    } finally {
      shared.close();
      runtime.close();
    }
  }
}
