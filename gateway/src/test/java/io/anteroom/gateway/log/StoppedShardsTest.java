package io.anteroom.gateway.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.anteroom.objects.ratis.ShardStoppedException;
import java.lang.reflect.Constructor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ratis' stack traces of a shard stopped by a storage failure are dropped (the peer's own line says
 * it); other Ratis warnings and errors pass.
 */
class StoppedShardsTest {
  private final LoggerContext context = new LoggerContext();
  private final ListAppender<ILoggingEvent> out = new ListAppender<>();

  @BeforeEach
  void configure() {
    out.setContext(context);
    out.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(out);
    StoppedShards filter = new StoppedShards();
    filter.setContext(context);
    filter.start();
    context.addTurboFilter(filter);
  }

  private static ShardStoppedException stopped() throws Exception {
    Constructor<ShardStoppedException> c =
        ShardStoppedException.class.getDeclaredConstructor(String.class);
    c.setAccessible(true);
    return c.newInstance("shard 0 on peer c3 stopped: cannot apply log entry 20512");
  }

  @Test
  void ratisReportOfTheStopAndOfMessagesToTheStoppedShardAreDropped() throws Exception {
    context
        .getLogger("org.apache.ratis.server.impl.StateMachineUpdater")
        .error(
            "c3@group-6AED95B08588-StateMachineUpdater caught a Throwable.",
            new java.io.IOException("wrapped", stopped()));
    context
        .getLogger("org.apache.ratis.server.RaftServer$Division")
        .error(
            "c3@group-6AED95B08588: Failed appendEntries* c4->c3#0-t6,HEARTBEAT",
            new IllegalStateException(
                new Exception(
                    "org.apache.ratis.protocol.exceptions.ServerNotReadyException:"
                        + " c3@group-6AED95B08588 is not in [STARTING, RUNNING]: current state is"
                        + " CLOSED")));
    assertThat(out.list).isEmpty();
  }

  /** The filter knows the exception by name (the gateway's module carries no Raft): that name. */
  @Test
  void theShardStoppedExceptionIsKnownByItsRealName() {
    assertThat(StoppedShards.SHARD_STOPPED).isEqualTo(ShardStoppedException.class.getName());
  }

  @Test
  void otherRatisLinesAndOurOwnPass() {
    context
        .getLogger("org.apache.ratis.server.impl.StateMachineUpdater")
        .error(
            "c3@group-6AED95B08588-StateMachineUpdater caught a Throwable.",
            new IllegalStateException("something else"));
    context
        .getLogger("org.apache.ratis.server.RaftServer$Division")
        .warn("c3@group-6AED95B08588: Failed to recognize c2 as leader for APPEND_ENTRIES");
    context
        .getLogger("io.anteroom.objects.ratis.RatisPeer")
        .warn(
            "peer c3: shard 0 stops on this peer: it cannot apply log entry 5 (the disk is full)");
    assertThat(out.list).hasSize(3);
    assertThat(out.list.get(0).getLevel()).isEqualTo(Level.ERROR);
  }
}
