package io.anteroom.door.route;

import io.anteroom.door.match.Cidr;
import java.util.List;

/**
 * Who the client is. The connection's peer, unless the peer is one of the configured {@code
 * trustedProxies}: then the {@code X-Forwarded-For} chain it sent is walked from the right, over
 * addresses of trusted proxies, to the first address that is not one. A client that is not a
 * trusted proxy cannot name another address for itself: its {@code X-Forwarded-*} headers are
 * ignored here (and replaced when a proxy forwards the request).
 *
 * <p>Behind a layer-4 load balancer speaking the PROXY protocol, the peer is the address its PROXY
 * header names, believed only when the connection's TCP peer is a trusted proxy ({@link
 * #mayNameClient}); the listener closes connections from any other peer before their requests are
 * read.
 *
 * <p>Immutable and thread-safe; never resolves a host name (only IP literals are compared).
 */
public final class ClientAddress {

  private final List<Cidr> trusted;

  public ClientAddress(List<String> trustedProxies) {
    this.trusted = trustedProxies.stream().map(Cidr::parse).toList();
  }

  /** Whether {@code ip} is a trusted proxy, whose {@code X-Forwarded-*} headers are believed. */
  public boolean trusted(String ip) {
    if (ip == null || trusted.isEmpty()) {
      return false;
    }
    for (Cidr c : trusted) {
      if (c.contains(ip)) {
        return true;
      }
    }
    return false;
  }

  /**
   * With the PROXY protocol on: whether a connection whose TCP peer is {@code tcpPeer} may name the
   * client's address in its PROXY header. Only trusted proxies may; a connection from anyone else
   * is refused (closed), since the listener then speaks only to its load balancers.
   */
  public boolean mayNameClient(String tcpPeer) {
    return trusted(tcpPeer);
  }

  /**
   * The address a request is believed to come from (for {@code cidr} bypass rules, the proof of
   * work's binding, the access log): {@code peer} is the connection's peer IP (null if unknown),
   * {@code forwardedFor} the request's {@code X-Forwarded-For} header values, read only when the
   * peer is a trusted proxy.
   */
  public String of(String peer, java.util.function.Supplier<List<String>> forwardedFor) {
    String client = peer;
    if (!trusted(client)) {
      return client;
    }
    List<String> values = forwardedFor.get();
    String[] hops = String.join(",", values).split(",");
    for (int i = hops.length - 1; i >= 0; i--) {
      String hop = hops[i].strip();
      if (!Cidr.isLiteral(hop)) {
        break; // garbage from the client's side of the chain: stop at the last believed hop
      }
      client = hop;
      if (!trusted(hop)) {
        break;
      }
    }
    return client;
  }
}
