package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.objects.storage.StorageEngine.Batch;
import io.anteroom.testkit.Tmpfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A peer whose data disk fills up (a tmpfs of its own, filled to the last byte) while it leads: its
 * shard's division stops (one line), the others elect a leader and go on confirming writes, and
 * once the space is freed the peer starts the division again from its log, catches up and holds
 * every confirmed write. Needs root for the tmpfs mounts (skipped with the reason otherwise).
 */
@Tag("slow")
class DiskFullTest {
  private static final long DISK = 64L << 20;
  private static final byte[] VALUE = new byte[8 * 1024];

  @TempDir Path dir;
  private final List<Tmpfs> disks = new ArrayList<>();
  private TestCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) cluster.close();
    disks.forEach(Tmpfs::close);
  }

  @Test
  void aLeaderWhoseDiskIsFullStopsTheShardAnotherLeadsAndOnceThereIsRoomItCatchesUp()
      throws Exception {
    Optional<String> noTmpfs = Tmpfs.unavailable();
    Assumptions.assumeTrue(noTmpfs.isEmpty(), () -> noTmpfs.orElseThrow());
    for (int i = 0; i < 3; i++) disks.add(Tmpfs.mount(dir.resolve("p" + i), DISK));
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(RatisPeer.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      cluster =
          TestCluster.start(
              dir,
              3,
              1,
              TestCluster.testOptions().logSegmentBytes(1L << 20).maxEntryBytes(1 << 20).build());
      RatisPeer full = cluster.awaitLeader(0);
      Tmpfs disk = disks.get(Integer.parseInt(full.id().substring(1)));

      Map<String, Boolean> confirmed = new ConcurrentHashMap<>();
      AtomicInteger next = new AtomicInteger();
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer =
          Thread.ofPlatform()
              .name("disk-full-writer")
              .start(
                  () -> {
                    while (writing.get()) {
                      String key = "k" + next.incrementAndGet();
                      try {
                        RatisPeer leader = leaderNow();
                        if (leader == null) continue;
                        leader
                            .engine(0)
                            .commit(List.of(new Batch("o", false, Map.of(key, VALUE), null)));
                        confirmed.put(key, true);
                      } catch (RuntimeException e) {
                        // not confirmed: not the leader any more, stopped, or timed out
                      }
                    }
                  });
      try {
        await("writes confirmed before the fault")
            .atMost(TestCluster.PATIENCE)
            .until(() -> confirmed.size() >= 20);
        long filled = disk.fill();
        assertThat(filled).isPositive();

        await(full.id() + " stops its division of shard 0 (its disk is full)")
            .atMost(Duration.ofSeconds(60))
            .until(() -> full.restarting(0));
        RatisPeer other = cluster.awaitLeaderOtherThan(0, full);
        int before = confirmed.size();
        await(other.id() + " confirms writes while " + full.id() + "'s disk is full")
            .atMost(TestCluster.PATIENCE)
            .until(() -> confirmed.size() >= before + 20);
        assertThat(full.restarting(0)).as("not started again while the disk is full").isTrue();

        disk.free();
        await(full.id() + " starts shard 0 again once there is room")
            .atMost(TestCluster.PATIENCE)
            .until(() -> !full.restarting(0));
        int after = confirmed.size();
        await("writes confirmed after the disk was freed")
            .atMost(TestCluster.PATIENCE)
            .until(() -> confirmed.size() >= after + 20);
      } finally {
        writing.set(false);
        writer.join();
      }
      RatisPeer leader = cluster.awaitLeader(0);
      cluster.awaitAllApplied(0, leader.engine(0).commitIndex());
      for (RatisPeer p : cluster.running()) {
        for (String key : confirmed.keySet()) {
          assertThat(p.engine(0).localCopy().get("o", key))
              .as(p.id() + " holds confirmed write " + key)
              .isNotNull();
        }
      }
      List<ILoggingEvent> mine =
          lines.list.stream().filter(e -> e.getFormattedMessage().contains("shard 0")).toList();
      assertThat(mine)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(l -> l.contains("stops on this peer"))
          .singleElement()
          .asString()
          .startsWith("peer " + full.id() + ": shard 0 stops on this peer: it cannot")
          .contains("(the disk is full)");
      assertThat(mine)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(l -> l.contains("started again"))
          .singleElement()
          .asString()
          .startsWith("peer " + full.id() + ": shard 0 started again on this peer after");
      assertThat(lines.list)
          .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
          .as("no stack trace")
          .allMatch(e -> e.getThrowableProxy() == null);
    } finally {
      logger.detachAppender(lines);
    }
  }

  private RatisPeer leaderNow() {
    for (RatisPeer p : cluster.running()) {
      try {
        if (p.engine(0).isLeaderReady()) return p;
      } catch (RuntimeException e) {
        // stopped
      }
    }
    return null;
  }
}
