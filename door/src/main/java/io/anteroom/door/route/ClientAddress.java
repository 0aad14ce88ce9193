package io.anteroom.door.route;

import io.anteroom.door.match.Cidr;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Who the client is. The connection's peer, unless the peer is one of the configured {@code
 * trustedProxies}: then the {@code X-Forwarded-For} chain it sent is walked from the right, over
 * addresses of trusted proxies, to the first address that is not one; an entry that is not an
 * address makes the client unknown ({@link #client}). A client that is not a trusted proxy cannot
 * name another address for itself: its {@code X-Forwarded-*} headers are ignored here (and replaced
 * when a proxy forwards the request).
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
   * The address the request is believed to come from (for {@code cidr} bypass rules, the access log
   * and proof-of-work answers), or null when it is unknown: an unknown client matches no address
   * rule. {@code peer} is the connection's peer IP (null if unknown), {@code forwardedFor} the
   * request's {@code X-Forwarded-For} header values, read only when the peer is a trusted proxy.
   * See {@link #client(String, List)}.
   */
  public String of(String peer, java.util.function.Supplier<List<String>> forwardedFor) {
    return trusted(peer) ? client(peer, forwardedFor.get()) : peer;
  }

  /**
   * The client of a request from {@code peer} that carried the {@code X-Forwarded-For} values
   * {@code forwardedFor} (in order): the peer itself unless it is a trusted proxy; otherwise the
   * chain is walked from the right over the addresses of trusted proxies, and the first address
   * that is not one is the client (the left-most, when all are).
   *
   * <p>An entry is an address with or without a port ({@code 203.0.113.9}, {@code
   * 203.0.113.9:4711}, {@code 2001:db8::9}, {@code [2001:db8::9]:4711}); the port is dropped. Any
   * other entry reached by the walk ({@code unknown}, as Squid writes, an obfuscated name, a host
   * name, an empty entry) was written by a trusted proxy that does not know or will not say the
   * client: the client is unknown (null), never the proxy's own address, which a {@code cidr} rule
   * covering the proxies' network would match. A trusted peer that sends no {@code X-Forwarded-For}
   * names no client either (a client can have some proxies drop the header, e.g. by naming it in
   * {@code Connection}).
   */
  String client(String peer, List<String> forwardedFor) {
    if (!trusted(peer)) {
      return peer;
    }
    String[] hops = String.join(",", forwardedFor).split(",", -1);
    String client = null;
    for (int i = hops.length - 1; i >= 0; i--) {
      client = address(hops[i].strip());
      if (client == null || !trusted(client)) {
        return client;
      }
    }
    return client;
  }

  /**
   * The IP literal of one {@code X-Forwarded-For} entry, without its port; null if the entry is not
   * an address (never resolved over DNS).
   */
  static String address(String entry) {
    String ip = entry;
    if (entry.startsWith("[")) { // [v6] or [v6]:port
      int close = entry.indexOf(']');
      if (close < 0 || !(close == entry.length() - 1 || isPort(entry, close + 1))) {
        return null;
      }
      ip = entry.substring(1, close);
      if (ip.indexOf(':') < 0) {
        return null;
      }
    } else if (entry.indexOf(':') == entry.lastIndexOf(':') && entry.indexOf(':') > 0) {
      int colon = entry.indexOf(':'); // v4:port (a v6 literal has at least two colons)
      if (!isPort(entry, colon)) {
        return null;
      }
      ip = entry.substring(0, colon);
      if (ip.indexOf('.') < 0) {
        return null;
      }
    }
    if (!Cidr.isLiteral(ip)) {
      return null;
    }
    if (ip.indexOf(':') < 0) { // dotted quad: each part at most 255
      for (String part : ip.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return null;
        }
      }
      return ip;
    }
    try {
      InetAddress.getByName(ip); // with a ':' always parsed as a literal, never looked up
      return ip;
    } catch (UnknownHostException e) {
      return null; // 1:2:3:4:5:6:7:8:9
    }
  }

  /** Whether {@code text} from {@code colon} (a ':') to its end is ":" and 1 to 5 digits. */
  private static boolean isPort(String text, int colon) {
    int digits = text.length() - colon - 1;
    if (text.charAt(colon) != ':' || digits < 1 || digits > 5) {
      return false;
    }
    for (int i = colon + 1; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return false;
      }
    }
    return Integer.parseInt(text, colon + 1, text.length(), 10) <= 65535;
  }
}
