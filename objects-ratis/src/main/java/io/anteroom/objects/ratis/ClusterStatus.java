package io.anteroom.objects.ratis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every shard's Raft state on one peer, read at one moment: for {@code /health} and the Prometheus
 * text of a coordinator ({@link ClusterStatusServer}).
 *
 * @param peer this peer's id
 * @param shards one entry per shard
 */
public record ClusterStatus(String peer, List<Shard> shards) {

  /**
   * One shard on this peer.
   *
   * @param shard the shard number
   * @param role {@code LEADER}, {@code FOLLOWER} or {@code CANDIDATE}
   * @param leader the leader this peer knows of
   * @param serving this peer runs the shard's objects (ready leader with its runtime up)
   * @param term the current term
   * @param commitIndex the last index this peer knows committed
   * @param appliedIndex the last index applied to this peer's copy
   * @param logStartIndex the first index still in this peer's log (snapshots purge before it)
   * @param followerLag on the leader: per follower, the leader's commit index minus the follower's
   *     commit index as last reported to it (entries); empty on other peers
   * @param misdirected calls this peer's object server answered 421 for the shard since it started
   *     (it was not the shard's ready leader, or its runtime was not up)
   * @param fencings times a runtime of the shard on this peer was fenced on a leader change
   * @param fencedInstances live object instances those fencings reset
   * @param elections campaigns (pre-vote or election rounds) this peer ran for the shard since its
   *     Raft server started, won or not; {@code -1} if Ratis keeps no metrics
   * @param members the shard's voting members as this peer knows them now (the live membership,
   *     changed online by {@code anteroom cluster add/remove/replace}, not the cluster file's), by
   *     id
   */
  public record Shard(
      int shard,
      String role,
      Optional<String> leader,
      boolean serving,
      long term,
      long commitIndex,
      long appliedIndex,
      long logStartIndex,
      Map<String, Long> followerLag,
      long misdirected,
      long fencings,
      long fencedInstances,
      long elections,
      List<Member> members) {}

  /**
   * A member of a shard.
   *
   * @param id the peer's id
   * @param raft its Raft address ({@code host:port})
   * @param http its object server's URI, if known
   * @param role {@code LEADER} if it is the leader this peer knows of, else {@code FOLLOWER}; for
   *     this peer itself, its own role ({@code CANDIDATE} while it campaigns)
   */
  public record Member(String id, String raft, Optional<String> http, String role) {}

  /**
   * The role of a shard whose division on this peer is stopped after its copy or log could not be
   * written, until the peer starts it again ({@link RatisPeer}).
   */
  public static final String STOPPED = "STOPPED";

  static ClusterStatus of(ClusterNode node) {
    RatisPeer peer = node.peer();
    List<Boolean> serving = node.serving();
    List<Shard> shards = new ArrayList<>();
    for (int s = 0; s < peer.config().shards(); s++) {
      try {
        shards.add(shard(node, s, serving.get(s)));
      } catch (RuntimeException e) {
        // the shard's division is stopped (a storage failure) or the peer is closing
        var c = peer.counters(s);
        shards.add(
            new Shard(
                s,
                STOPPED,
                Optional.empty(),
                false,
                -1,
                -1,
                -1,
                -1,
                Map.of(),
                c.misdirectedCount(),
                c.fencingCount(),
                c.fencedInstanceCount(),
                -1,
                List.of()));
      }
    }
    return new ClusterStatus(peer.id(), List.copyOf(shards));
  }

  private static Shard shard(ClusterNode node, int s, boolean serving) {
    RatisPeer peer = node.peer();
    ReplicatedStorageEngine e = peer.engine(s);
    try {
      String role = e.role();
      long commit = e.commitIndex();
      Optional<String> leader = e.leader();
      Map<String, Long> lag = new TreeMap<>();
      if ("LEADER".equals(role)) {
        e.commitIndices()
            .forEach(
                (id, index) -> {
                  if (!id.equals(peer.id())) lag.put(id, Math.max(0, commit - index));
                });
      }
      List<Member> members = new ArrayList<>();
      for (ClusterConfig.Peer p : peer.members(s)) {
        String memberRole =
            p.id().equals(peer.id())
                ? role
                : leader.filter(p.id()::equals).isPresent() ? "LEADER" : "FOLLOWER";
        members.add(
            new Member(
                p.id(),
                p.address(),
                Optional.ofNullable(p.http()).map(Object::toString),
                memberRole));
      }
      return new Shard(
          s,
          role,
          leader,
          serving,
          e.term(),
          commit,
          e.appliedIndex(),
          e.logStartIndex(),
          Map.copyOf(lag),
          peer.counters(s).misdirectedCount(),
          peer.counters(s).fencingCount(),
          peer.counters(s).fencedInstanceCount(),
          e.elections(),
          List.copyOf(members));
    } finally {
      e.close();
    }
  }

  /** Every shard has a leader this peer knows of. */
  public boolean healthy() {
    return shards.stream().allMatch(s -> s.leader().isPresent());
  }

  /** The status as a JSON object. */
  public String toJson() {
    StringBuilder b = new StringBuilder();
    b.append("{\"peer\":").append(quote(peer));
    b.append(",\"status\":").append(quote(healthy() ? "ok" : "no-leader"));
    b.append(",\"shards\":[");
    for (int i = 0; i < shards.size(); i++) {
      Shard s = shards.get(i);
      if (i > 0) b.append(',');
      b.append("{\"shard\":").append(s.shard());
      b.append(",\"role\":").append(quote(s.role()));
      b.append(",\"leader\":").append(s.leader().map(ClusterStatus::quote).orElse("null"));
      b.append(",\"serving\":").append(s.serving());
      b.append(",\"term\":").append(s.term());
      b.append(",\"commitIndex\":").append(s.commitIndex());
      b.append(",\"appliedIndex\":").append(s.appliedIndex());
      b.append(",\"logStartIndex\":").append(s.logStartIndex());
      b.append(",\"misdirected\":").append(s.misdirected());
      b.append(",\"fencings\":").append(s.fencings());
      b.append(",\"fencedInstances\":").append(s.fencedInstances());
      b.append(",\"elections\":").append(s.elections());
      b.append(",\"followerLag\":{");
      int j = 0;
      for (Map.Entry<String, Long> f : new TreeMap<>(s.followerLag()).entrySet()) {
        if (j++ > 0) b.append(',');
        b.append(quote(f.getKey())).append(':').append(f.getValue());
      }
      b.append("},\"members\":[");
      for (int j2 = 0; j2 < s.members().size(); j2++) {
        Member m = s.members().get(j2);
        if (j2 > 0) b.append(',');
        b.append("{\"id\":").append(quote(m.id()));
        b.append(",\"raft\":").append(quote(m.raft()));
        b.append(",\"http\":").append(m.http().map(ClusterStatus::quote).orElse("null"));
        b.append(",\"role\":").append(quote(m.role())).append('}');
      }
      b.append("]}");
    }
    return b.append("]}").toString();
  }

  /** The status in the Prometheus text format (version 0.0.4). */
  public String toPrometheus() {
    StringBuilder b = new StringBuilder();
    gauge(b, "anteroom_cluster_shard_leader", "1 if this peer leads the shard (ready or not)");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_leader", s, "LEADER".equals(s.role()));
    gauge(b, "anteroom_cluster_shard_serving", "1 if this peer runs the shard's objects now");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_serving", s, s.serving());
    gauge(b, "anteroom_cluster_shard_leader_known", "1 if this peer knows a leader of the shard");
    for (Shard s : shards)
      line(b, "anteroom_cluster_shard_leader_known", s, s.leader().isPresent());
    gauge(b, "anteroom_cluster_shard_leader_info", "the leader this peer knows of (value 1)");
    for (Shard s : shards) {
      s.leader()
          .ifPresent(
              l ->
                  b.append("anteroom_cluster_shard_leader_info{peer=")
                      .append(quote(peer))
                      .append(",shard=\"")
                      .append(s.shard())
                      .append("\",leader=")
                      .append(quote(l))
                      .append("} 1\n"));
    }
    gauge(
        b, "anteroom_cluster_shard_members", "the shard's voting members as this peer knows them");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_members", s, s.members().size());
    gauge(b, "anteroom_cluster_shard_term", "the shard's current Raft term");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_term", s, s.term());
    gauge(b, "anteroom_cluster_shard_commit_index", "last log index known committed");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_commit_index", s, s.commitIndex());
    gauge(b, "anteroom_cluster_shard_applied_index", "last log index applied to this peer's copy");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_applied_index", s, s.appliedIndex());
    gauge(b, "anteroom_cluster_shard_log_start_index", "first log index still kept");
    for (Shard s : shards) line(b, "anteroom_cluster_shard_log_start_index", s, s.logStartIndex());
    counter(
        b,
        "anteroom_cluster_misdirected_calls_total",
        "calls answered 421 because this peer did not serve the shard (not its ready leader)");
    for (Shard s : shards) line(b, "anteroom_cluster_misdirected_calls_total", s, s.misdirected());
    counter(
        b,
        "anteroom_cluster_fencings_total",
        "times a runtime of the shard on this peer was fenced on a leader change");
    for (Shard s : shards) line(b, "anteroom_cluster_fencings_total", s, s.fencings());
    counter(
        b,
        "anteroom_cluster_fenced_instances_total",
        "live object instances reset by those fencings");
    for (Shard s : shards)
      line(b, "anteroom_cluster_fenced_instances_total", s, s.fencedInstances());
    counter(
        b,
        "anteroom_cluster_elections_total",
        "campaigns this peer ran for the shard (pre-vote or election rounds), won or not");
    for (Shard s : shards) line(b, "anteroom_cluster_elections_total", s, s.elections());
    gauge(
        b,
        "anteroom_cluster_follower_lag_entries",
        "on the leader: its commit index minus the follower's last reported commit index");
    for (Shard s : shards) {
      for (Map.Entry<String, Long> f : new TreeMap<>(s.followerLag()).entrySet()) {
        b.append("anteroom_cluster_follower_lag_entries{peer=")
            .append(quote(peer))
            .append(",shard=\"")
            .append(s.shard())
            .append("\",follower=")
            .append(quote(f.getKey()))
            .append("} ")
            .append(f.getValue())
            .append('\n');
      }
    }
    return b.toString();
  }

  private static void gauge(StringBuilder b, String name, String help) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
  }

  private static void counter(StringBuilder b, String name, String help) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" counter\n");
  }

  private void line(StringBuilder b, String name, Shard s, boolean value) {
    line(b, name, s, value ? 1 : 0);
  }

  private void line(StringBuilder b, String name, Shard s, long value) {
    b.append(name)
        .append("{peer=")
        .append(quote(peer))
        .append(",shard=\"")
        .append(s.shard())
        .append("\"} ")
        .append(value)
        .append('\n');
  }

  /**
   * Ids are [A-Za-z0-9._-] (ClusterConfig), addresses host:port and URIs without quotes or
   * backslashes, so quoting needs no escapes.
   */
  private static String quote(String s) {
    return '"' + s + '"';
  }
}
