package io.anteroom.door.route;

import io.anteroom.door.config.GatewayConfig.Route;
import io.anteroom.door.match.RequestTarget;
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
public final class RoomRouter<R> {

  private record Entry<R>(String host, String path, R room) {}

  private final List<Entry<R>> entries;
  private final boolean hostScoped;

  private RoomRouter(List<Entry<R>> entries) {
    this.entries = entries;
    this.hostScoped = entries.stream().anyMatch(e -> !e.host().equals("*"));
  }

  public static <R> RoomRouter<R> of(
      List<R> rooms, java.util.function.Function<R, List<Route>> routes) {
    var all = new ArrayList<Entry<R>>();
    for (R room : rooms) {
      for (Route r : routes.apply(room)) {
        all.add(new Entry<>(routeHost(r.host()), r.path(), room));
      }
    }
    all.sort(
        Comparator.<Entry<R>, Boolean>comparing(e -> e.host().equals("*"))
            .thenComparing(e -> -e.path().length()));
    return new RoomRouter<>(List.copyOf(all));
  }

  /**
   * The room for this request, or null when no route matches (the request goes to the default
   * origin). {@code host} and {@code path} are a {@link RequestTarget}'s, already normalised; a
   * null host matches only {@code *} routes.
   */
  public R route(String host, String path) {
    for (Entry<R> e : entries) {
      if ((e.host().equals("*") || e.host().equals(host)) && path.startsWith(e.path())) {
        return e.room();
      }
    }
    return null;
  }

  /** Whether any route names a host: then a request without a host cannot be routed safely. */
  public boolean hostScoped() {
    return hostScoped;
  }

  /**
   * A configured route host as requests' hosts are normalised ({@code Shop.Example.com.} is {@code
   * shop.example.com}); the config loader has refused hosts that do not parse.
   */
  static String routeHost(String configured) {
    if (configured.equals("*")) {
      return configured;
    }
    if (RequestTarget.parse("/", configured, null) instanceof RequestTarget t && t.host() != null) {
      return t.host();
    }
    return configured.toLowerCase(Locale.ROOT);
  }
}
