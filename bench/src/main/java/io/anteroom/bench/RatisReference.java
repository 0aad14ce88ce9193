package io.anteroom.bench;

import io.anteroom.objects.ratis.ClusterConfig;
import io.anteroom.objects.ratis.PeerOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.TimeDuration;

/**
 * The leanest replicated counter on Ratis, the reference for the cluster scenarios: three Ratis
 * servers in this JVM (gRPC, log fsync on, the coordinator's peers' tuning of the log and the
 * appender), a state machine that only increments a number in memory, and callers that send each
 * increment as one Ratis client request (Ratis batches the entries of concurrent requests into its
 * appends and log flushes itself). No HTTP front, no object runtime, no SQLite copy: what
 * replication costs on this machine before anything of Anteroom's is added.
 */
final class RatisReference implements AutoCloseable {
  /** How long the benchmark's calls wait for their reply. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final List<RaftServer> servers = new ArrayList<>();
  private final Duration callTimeout;
  private RaftClient client;

  RatisReference(Path dir, ClusterConfig config) throws IOException {
    this(dir, config, CALL_TIMEOUT);
  }

  /** With {@code callTimeout}: how long a call waits for its reply before it fails. */
  RatisReference(Path dir, ClusterConfig config, Duration callTimeout) throws IOException {
    this.callTimeout = callTimeout;
    PeerOptions tuning = PeerOptions.defaults();
    List<RaftPeer> peers = new ArrayList<>();
    for (ClusterConfig.Peer p : config.peers()) {
      peers.add(RaftPeer.newBuilder().setId(p.id()).setAddress(p.host() + ":" + p.port()).build());
    }
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    try {
      for (ClusterConfig.Peer p : config.peers()) {
        RaftProperties props = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(props, List.of(dir.resolve(p.id()).toFile()));
        GrpcConfigKeys.Server.setHost(props, p.host());
        GrpcConfigKeys.Server.setPort(props, p.port());
        // as the coordinator's peers (RatisPeer, which sets these from PeerOptions and explains
        // them): the same election timeouts, no commit-index metadata entries, appends sent at once
        RaftServerConfigKeys.Rpc.setTimeoutMin(
            props,
            TimeDuration.valueOf(tuning.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(
            props,
            TimeDuration.valueOf(tuning.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Log.setLogMetadataEnabled(props, false);
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(props, TimeDuration.ZERO);
        RaftServer server =
            RaftServer.newBuilder()
                .setServerId(RaftPeerId.valueOf(p.id()))
                .setGroup(group)
                .setProperties(props)
                .setStateMachine(new CountingMachine())
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        servers.add(server);
        server.start();
      }
      client =
          RaftClient.newBuilder().setProperties(new RaftProperties()).setRaftGroup(group).build();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * The counter as the load sees it: each call one replicated increment, failing (unchecked) when
   * it is not confirmed within the call timeout.
   */
  Counter counter() {
    return () -> {
      // bounded: Ratis' client retries for ever by default while no leader answers
      RaftClientReply reply =
          client
              .async()
              .send(Message.valueOf("+1"))
              .orTimeout(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
              .join();
      if (!reply.isSuccess()) throw new IllegalStateException("not confirmed: " + reply);
      return Long.parseLong(reply.getMessage().getContent().toString(StandardCharsets.US_ASCII));
    };
  }

  /** The leader's commit index, for the entries-per-second note. */
  long commitIndex() {
    for (RaftServer s : servers) {
      try {
        RaftServer.Division d = s.getDivision(s.getGroupIds().iterator().next());
        if (d.getInfo().isLeader()) return d.getRaftLog().getLastCommittedIndex();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return 0;
  }

  @Override
  public void close() {
    try {
      if (client != null) client.close();
    } catch (IOException | RuntimeException e) {
      System.err.println("ratis reference: closing the client: " + e);
    }
    closeServers();
  }

  /** Stops the three servers, leaving the client open. {@link #close} calls it; tests too. */
  void closeServers() {
    for (RaftServer s : servers) {
      try {
        s.close();
      } catch (IOException | RuntimeException e) {
        System.err.println("ratis reference: closing " + s.getId() + ": " + e);
      }
    }
  }

  /** Returns the current number and counts one on; in memory, applied in log order. */
  private static final class CountingMachine extends BaseStateMachine {
    private long next;

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
      var entry = trx.getLogEntry();
      long value = next++;
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(Message.valueOf(Long.toString(value)));
    }
  }
}
