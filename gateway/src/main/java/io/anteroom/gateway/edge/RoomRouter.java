package io.anteroom.gateway.edge;

import io.anteroom.gateway.config.GatewayConfig.Route;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Maps host + path to a room. Immutable: a configuration change builds a new router and swaps it
 * in, so the event loops read it without locks. The most specific route wins: an exact host before
 * {@code *}, then the longest path prefix.
 *
 * @param <R> what a route leads to (a room's runtime)
 */
final class RoomRouter<R> {

  private record Entry<R>(String host, String path, R room) {}

  private final List<Entry<R>> entries;

  private RoomRouter(List<Entry<R>> entries) {
    this.entries = entries;
  }

  static <R> RoomRouter<R> of(List<R> rooms, java.util.function.Function<R, List<Route>> routes) {
    var all = new ArrayList<Entry<R>>();
    for (R room : rooms) {
      for (Route r : routes.apply(room)) {
        all.add(new Entry<>(r.host().toLowerCase(Locale.ROOT), r.path(), room));
      }
    }
    all.sort(Comparator.<Entry<R>, Boolean>comparing(e -> e.host().equals("*"))
        .thenComparing(e -> -e.path().length()));
    return new RoomRouter<>(List.copyOf(all));
  }

  /** The room for this request, or null when no route matches (the request is proxied as is). */
  R route(String hostHeader, String path) {
    String host = hostOnly(hostHeader);
    for (Entry<R> e : entries) {
      if ((e.host().equals("*") || e.host().equals(host)) && path.startsWith(e.path())) {
        return e.room();
      }
    }
    return null;
  }

  /** {@code Example.com:8080} → {@code example.com}; {@code [::1]:80} → {@code [::1]}. */
  static String hostOnly(String hostHeader) {
    if (hostHeader == null) {
      return "";
    }
    int colon = hostHeader.lastIndexOf(':');
    int bracket = hostHeader.lastIndexOf(']');
    String host = colon > bracket ? hostHeader.substring(0, colon) : hostHeader;
    return host.toLowerCase(Locale.ROOT);
  }
}
