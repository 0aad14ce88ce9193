package io.anteroom.objects.http;

import io.anteroom.objects.ObjectId;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * Which server may run calls to an object, for a cluster of coordinators where each object's shard
 * has one leader. {@link HttpObjectServer.Builder#leaderLookup} consults it for every authenticated
 * call, after the namespace check and before the call reaches the transport: a call to an object
 * this server does not lead is answered {@code 421 Misdirected Request}, with the leader's base URI
 * in the {@value HttpObjectServer#LEADER_HEADER} header when known, and is <em>not run</em>. {@link
 * RoutingObjectTransport} follows such answers.
 *
 * <p>Called on a Vert.x event loop: it must answer from memory, without blocking.
 *
 * <pre>{@code
 * HttpObjectServer.builder(runtime.transport())
 *     .leaderLookup((namespace, id) -> engine.isLeaderReady() ? Leader.SELF
 *         : engine.leader().map(coordinatorUris::get).map(Leader::at).orElse(Leader.UNKNOWN))
 * }</pre>
 */
@FunctionalInterface
public interface LeaderLookup {

  /** Who leads the shard of object {@code id} of {@code namespace}, as this server knows now. */
  Leader leaderOf(String namespace, ObjectId id);

  /**
   * The answer of a lookup.
   *
   * @param self this server leads the object's shard and runs the call
   * @param uri another server's base URI ({@code http(s)://host:port}) when it leads and is known;
   *     empty with {@code self} false while no leader is known (an election)
   */
  record Leader(boolean self, Optional<URI> uri) {
    /** This server leads. */
    public static final Leader SELF = new Leader(true, Optional.empty());

    /** No leader is known (yet). */
    public static final Leader UNKNOWN = new Leader(false, Optional.empty());

    public Leader {
      Objects.requireNonNull(uri, "uri");
      if (self && uri.isPresent()) {
        throw new IllegalArgumentException("a leader that is this server has no other URI");
      }
    }

    /** The server at {@code baseUri} leads. */
    public static Leader at(URI baseUri) {
      return new Leader(false, Optional.of(baseUri));
    }
  }
}
