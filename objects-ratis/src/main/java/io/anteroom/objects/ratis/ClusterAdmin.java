package io.anteroom.objects.ratis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Online membership changes of a running cluster, through Raft's configuration change (Ratis'
 * {@code setConfiguration}): show the members, add a peer, remove one, replace one by another. It
 * speaks Ratis' admin protocol to the peers' Raft ports, with the cluster's mutual TLS when given:
 * only a holder of a certificate the peers trust (a peer, or an operator's) may change the
 * membership.
 *
 * <p>Each change applies to every shard (each is one Raft group of all the peers), one shard after
 * the other; in each, the leader first brings a new peer up to date (a snapshot and the log since)
 * before the new membership takes effect (joint consensus), so a majority of the old and of the new
 * members confirm every write meanwhile. A change is compare-and-set on the membership just read
 * from the shard's leader: two operators cannot undo each other's change unseen. Asked again for a
 * change already made, it reports the membership and changes nothing.
 *
 * <pre>{@code
 * try (ClusterAdmin admin = ClusterAdmin.connect(ClusterFile.load(file), tls)) {
 *     admin.add(file.peer("c4"));        // c4 started on an empty data directory beforehand
 *     admin.remove("c2");
 *     admin.replace("c3", file.peer("c5"));
 *     admin.members().forEach(System.out::println);
 * }
 * }</pre>
 */
public final class ClusterAdmin implements AutoCloseable {
  /**
   * One shard's membership as its leader reports it.
   *
   * @param shard the shard
   * @param leader the leader's id
   * @param term the leader's term
   * @param members the voting members, sorted by id
   */
  public record ShardMembers(
      int shard, String leader, long term, List<ClusterConfig.Peer> members) {
    /** The members' ids. */
    public List<String> ids() {
      return members.stream().map(ClusterConfig.Peer::id).toList();
    }

    /** {@code shard 0: leader c1 (term 3); members c1 127.0.0.1:7071 https://..., ...}. */
    @Override
    public String toString() {
      StringBuilder b =
          new StringBuilder("shard " + shard + ": leader " + leader + " (term " + term + ")");
      for (ClusterConfig.Peer p : members) {
        b.append("\n  ")
            .append(p.id())
            .append(" raft ")
            .append(p.address())
            .append(p.http() == null ? "" : " http " + p.http());
      }
      return b.toString();
    }
  }

  private final ClusterConfig config;
  private final Parameters parameters;
  private final Duration changeTimeout;

  /** The peers this admin may ask, by id: the file's, then any learned from a membership. */
  private final Map<String, ClusterConfig.Peer> contacts = new LinkedHashMap<>();

  private ClusterAdmin(ClusterConfig config, PeerTls tls, Duration changeTimeout) {
    this.config = config;
    this.changeTimeout = changeTimeout;
    this.parameters = new Parameters();
    if (tls != null) {
      GrpcTlsConfig grpc = tls.grpc();
      GrpcConfigKeys.TLS.setConf(parameters, grpc);
      GrpcConfigKeys.Admin.setTlsConf(parameters, grpc);
      GrpcConfigKeys.Client.setTlsConf(parameters, grpc);
    }
    for (ClusterConfig.Peer p : config.peers()) contacts.put(p.id(), p);
  }

  /**
   * An admin of the cluster in {@code config} (its name and shard count; its peers are whom to ask
   * first: a stale list is fine while one of them is still a member).
   *
   * @param tls the certificate to present and the peers' trust, or {@code null} for a cluster that
   *     speaks plain text (loopback)
   */
  public static ClusterAdmin connect(ClusterConfig config, PeerTls tls) {
    GrpcLogging.quiet();
    return new ClusterAdmin(Objects.requireNonNull(config, "config"), tls, Duration.ofMinutes(2));
  }

  /** Every shard's members, as its leader reports them. */
  public List<ShardMembers> members() {
    List<ShardMembers> out = new ArrayList<>();
    for (int shard = 0; shard < config.shards(); shard++) out.add(read(shard).members);
    return out;
  }

  /**
   * Adds {@code peer} (started beforehand, on an empty data directory or its own old one) to every
   * shard. Returns the new membership.
   *
   * @throws IllegalArgumentException if it is a member already under another address, or its
   *     address is another member's
   * @throws IllegalStateException if a shard has no reachable leader or refuses the change
   */
  public List<ShardMembers> add(ClusterConfig.Peer peer) {
    Objects.requireNonNull(peer, "peer");
    return change(
        "add " + peer.id(),
        current -> {
          List<ClusterConfig.Peer> next = new ArrayList<>(current);
          for (ClusterConfig.Peer p : current) {
            if (p.id().equals(peer.id())) {
              if (p.address().equals(peer.address())) return current; // done already
              throw new IllegalArgumentException(
                  "peer " + peer.id() + " is a member already, at " + p.address());
            }
            if (p.address().equals(peer.address()))
              throw new IllegalArgumentException(
                  "raft address " + peer.address() + " is member " + p.id() + "'s");
          }
          next.add(peer);
          return next;
        });
  }

  /**
   * Removes member {@code id} from every shard (it may be down). If it leads a shard, it hands over
   * after the change. Returns the new membership.
   *
   * @throws IllegalArgumentException if it is the last member
   */
  public List<ShardMembers> remove(String id) {
    Objects.requireNonNull(id, "id");
    return change(
        "remove " + id,
        current -> {
          List<ClusterConfig.Peer> next = current.stream().filter(p -> !p.id().equals(id)).toList();
          if (next.isEmpty())
            throw new IllegalArgumentException("peer " + id + " is the last member");
          return next;
        });
  }

  /**
   * Replaces member {@code old} (typically dead) by {@code peer} (started beforehand on an empty
   * data directory) in one configuration change per shard: the number of members stays the same.
   * Returns the new membership.
   */
  public List<ShardMembers> replace(String old, ClusterConfig.Peer peer) {
    Objects.requireNonNull(old, "old");
    Objects.requireNonNull(peer, "peer");
    if (old.equals(peer.id()))
      throw new IllegalArgumentException(
          "replace "
              + old
              + " by itself: a peer that lost its disk rejoins under its id without a"
              + " membership change (docs/cluster.md)");
    return change(
        "replace " + old + " by " + peer.id(),
        current -> {
          boolean hasOld = current.stream().anyMatch(p -> p.id().equals(old));
          boolean hasNew = current.stream().anyMatch(p -> p.id().equals(peer.id()));
          if (!hasOld && hasNew) return current; // done already
          if (!hasOld)
            throw new IllegalArgumentException(
                "peer " + old + " is not a member (members: " + ids(current) + ")");
          if (hasNew)
            throw new IllegalArgumentException("peer " + peer.id() + " is a member already");
          List<ClusterConfig.Peer> next = new ArrayList<>();
          for (ClusterConfig.Peer p : current) next.add(p.id().equals(old) ? peer : p);
          return next;
        });
  }

  /** The membership change {@code what}, computed from each shard's current members. */
  private List<ShardMembers> change(
      String what, java.util.function.UnaryOperator<List<ClusterConfig.Peer>> next) {
    List<ShardMembers> out = new ArrayList<>();
    for (int shard = 0; shard < config.shards(); shard++) {
      Read current = read(shard);
      List<ClusterConfig.Peer> target = next.apply(current.members.members());
      if (sameIds(target, current.members.members())) {
        out.add(current.members);
        continue;
      }
      String leader = current.members.leader();
      if (target.stream().noneMatch(p -> p.id().equals(leader))) {
        // the leader leaves: hand its leadership to a peer that stays first, as a transfer (the
        // successor campaigns at once) instead of an election timeout after the leader steps down
        current = handOver(current, target);
      }
      List<RaftPeer> targetPeers = new ArrayList<>();
      for (ClusterConfig.Peer p : target) {
        RaftPeer known = current.raft.get(p.id());
        targetPeers.add(known != null ? known : RatisPeer.raftPeer(p));
      }
      RaftClientReply reply;
      try (RaftClient client = client(current, changeTimeout)) {
        reply =
            client
                .admin()
                .setConfiguration(
                    SetConfigurationRequest.Arguments.newBuilder()
                        .setServersInNewConf(targetPeers)
                        .setServersInCurrentConf(List.copyOf(current.raft.values()))
                        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
                        .build());
      } catch (IOException e) {
        reply = null;
        Read after = tryRead(shard);
        if (after == null || !sameIds(after.members.members(), target)) {
          Throwable cause = e;
          while (cause.getCause() != null) cause = cause.getCause();
          throw new IllegalStateException(
              "shard "
                  + shard
                  + ": "
                  + what
                  + " failed: "
                  + firstLine(cause)
                  + " (was the new peer started with --join, and can the leader reach it?)",
              e);
        }
      }
      if (reply != null && !reply.isSuccess()) {
        Read after = tryRead(shard);
        if (after == null || !sameIds(after.members.members(), target)) {
          throw new IllegalStateException(
              "shard " + shard + ": " + what + " was refused: " + reply.getException());
        }
      }
      for (ClusterConfig.Peer p : target) contacts.putIfAbsent(p.id(), p);
      out.add(read(shard).members);
    }
    return out;
  }

  /**
   * Transfers the shard's leadership from its leader, which {@code target} does not keep, to a
   * member that stays; returns the shard as read afterwards. Best effort: if no transfer succeeds,
   * the change goes on from the old leader, which steps down once it is committed.
   */
  private Read handOver(Read current, List<ClusterConfig.Peer> target) {
    for (ClusterConfig.Peer successor : target) {
      if (!current.raft.containsKey(successor.id())) continue; // a new peer: not caught up yet
      try (RaftClient client = client(current, Duration.ofSeconds(10))) {
        RaftClientReply reply =
            client.admin().transferLeadership(RaftPeerId.valueOf(successor.id()), 5_000);
        if (reply.isSuccess()) {
          Read after = tryRead(current.members.shard());
          if (after != null && !after.members.leader().equals(current.members.leader()))
            return after;
        }
      } catch (IOException | RuntimeException e) {
        // try the next one
      }
    }
    return current;
  }

  private static boolean sameIds(List<ClusterConfig.Peer> a, List<ClusterConfig.Peer> b) {
    return new java.util.TreeSet<>(ids(a)).equals(new java.util.TreeSet<>(ids(b)));
  }

  private static List<String> ids(List<ClusterConfig.Peer> peers) {
    return peers.stream().map(ClusterConfig.Peer::id).toList();
  }

  /** A shard's membership and the Raft records of its members (as the leader has them). */
  private record Read(ShardMembers members, Map<String, RaftPeer> raft) {}

  private Read tryRead(int shard) {
    try {
      return read(shard);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Asks the contacts, in turn, for the shard's group; the first that leads answers. A follower's
   * answer names its leader, which is asked next (it may be a peer the contacts do not list).
   */
  private Read read(int shard) {
    RaftGroupId group = RaftGroupId.valueOf(config.groupUuid(shard));
    List<String> failures = new ArrayList<>();
    java.util.Deque<ClusterConfig.Peer> toAsk = new java.util.ArrayDeque<>(contacts.values());
    java.util.Set<String> asked = new java.util.HashSet<>();
    while (!toAsk.isEmpty()) {
      ClusterConfig.Peer peer = toAsk.poll();
      if (!asked.add(peer.id())) continue;
      GroupInfoReply info;
      try (RaftClient client =
          client(RaftGroup.valueOf(group, RatisPeer.raftPeer(peer)), Duration.ofSeconds(5))) {
        info = client.getGroupManagementApi(RaftPeerId.valueOf(peer.id())).info(group);
      } catch (IOException | RuntimeException e) {
        failures.add(peer.id() + ": " + firstLine(e));
        continue;
      }
      Map<String, RaftPeer> raft = new LinkedHashMap<>();
      for (RaftPeer p : info.getGroup().getPeers()) raft.put(p.getId().toString(), p);
      for (RaftPeer p : raft.values())
        contacts.putIfAbsent(p.getId().toString(), RatisPeer.peerOf(p));
      RaftProtos.RoleInfoProto role = info.getRoleInfoProto();
      if (role.getRole() == RaftProtos.RaftPeerRole.LEADER) {
        List<ClusterConfig.Peer> members =
            raft.values().stream()
                .map(RatisPeer::peerOf)
                .sorted(Comparator.comparing(ClusterConfig.Peer::id))
                .toList();
        long term = role.hasLeaderInfo() ? role.getLeaderInfo().getTerm() : 0;
        return new Read(new ShardMembers(shard, peer.id(), term, members), raft);
      }
      failures.add(peer.id() + ": " + role.getRole().name().toLowerCase(java.util.Locale.ROOT));
      if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
        String leader = role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
        RaftPeer l = raft.get(leader);
        if (l != null && !asked.contains(leader)) toAsk.addFirst(RatisPeer.peerOf(l));
      }
      for (RaftPeer p : raft.values()) {
        if (!asked.contains(p.getId().toString())) toAsk.addLast(RatisPeer.peerOf(p));
      }
    }
    throw new IllegalStateException(
        "shard "
            + shard
            + " of cluster "
            + config.name()
            + ": no leader among the reachable peers ("
            + String.join("; ", failures)
            + ")");
  }

  private static String firstLine(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getMessage() == null) t = t.getCause();
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private RaftClient client(Read current, Duration timeout) {
    RaftGroupId group = RaftGroupId.valueOf(config.groupUuid(current.members.shard()));
    RaftClient.Builder b =
        builder(timeout)
            .setRaftGroup(RaftGroup.valueOf(group, current.raft.values()))
            .setLeaderId(RaftPeerId.valueOf(current.members.leader()));
    return b.build();
  }

  private RaftClient client(RaftGroup group, Duration timeout) {
    return builder(timeout).setRaftGroup(group).build();
  }

  private RaftClient.Builder builder(Duration timeout) {
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(timeout.toMillis(), TimeUnit.MILLISECONDS));
    ClientId id = ClientId.randomId();
    return RaftClient.newBuilder()
        .setClientId(id)
        .setProperties(properties)
        .setParameters(parameters)
        .setClientRpc(new GrpcFactory(parameters).newRaftClientRpc(id, properties))
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                3, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)));
  }

  /** The contacts (the file's peers and those learned since), for tests. */
  List<String> contacts() {
    return List.copyOf(contacts.keySet());
  }

  @Override
  public void close() {
    // each request uses a client of its own, closed after it
  }
}
