package io.anteroom.gateway.edge;

import io.anteroom.door.route.ClientAddress;
import io.anteroom.room.Ticket;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optional access log ({@code accessLog: true}): one INFO line per public request on the logger
 * {@value #LOGGER}, written when the response's body has been written out. The line:
 *
 * <pre>
 * client=203.0.113.7 method=GET path="/shop/cart" status=200 bytes=5120 micros=1834 room=shop
 * decision=admitted ticket=3fa2c1
 * </pre>
 *
 * <p>The same fields are attached as key-value pairs, so the JSON format ({@code
 * ANTEROOM_LOG_FORMAT=json}) carries them as data too. {@code client} is the address as resolved by
 * the trusted-proxy rules; {@code path} is the normalised path the room was chosen by (without the
 * query); {@code ticket} is the first 6 hex digits of the ticket's id, never the cookie. Every
 * value that comes from the client is escaped (quotes, backslash, control and non-ASCII characters
 * as {@code \\uXXXX}) and cut to {@value #MAX_VALUE} characters, so no request can start a line of
 * its own or forge a field. A response cut off by a closed connection is not logged.
 *
 * <p>Off, the gatekeeper holds no {@code AccessLog} and does no work for it. Thread safety: an
 * {@link Entry} belongs to its request's event loop.
 */
public final class AccessLog {

  /**
   * The logger's name: route it with your own logback configuration ({@code ANTEROOM_LOG_CONFIG}).
   */
  public static final String LOGGER = "anteroom.access";

  static final int MAX_VALUE = 256;

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  private final ClientAddress clients;

  AccessLog(ClientAddress clients) {
    this.clients = clients;
  }

  /** Starts the entry of {@code request}; its line is written when the response has been sent. */
  Entry begin(HttpServerRequest request) {
    Entry e = new Entry(request, System.nanoTime());
    request.response().bodyEndHandler(v -> write(e));
    return e;
  }

  /** What the gatekeeper learns about one request. */
  static final class Entry {
    private final HttpServerRequest request;
    private final long startedNanos;
    private String path;
    private String room;
    private String decision = "none";
    private String ticket;

    private Entry(HttpServerRequest request, long startedNanos) {
      this.request = request;
      this.startedNanos = startedNanos;
    }

    Entry path(String normalised) {
      this.path = normalised;
      return this;
    }

    /** The room (null: none) and what was decided: admitted, session, queued, bypass, .... */
    Entry decided(String roomId, String what) {
      this.room = roomId;
      this.decision = what;
      return this;
    }

    /** The ticket of the decision, or null (then the entry keeps none). */
    Entry ticket(Ticket t) {
      if (t != null) {
        this.ticket = String.format("%016x", t.id()).substring(0, 6);
      }
      return this;
    }
  }

  private void write(Entry e) {
    HttpServerResponse response = e.request.response();
    String client =
        clients.of(Gatekeeper.peer(e.request), () -> e.request.headers().getAll("X-Forwarded-For"));
    String method = e.request.method().name();
    String path = e.path != null ? e.path : pathOf(e.request.path());
    long micros = (System.nanoTime() - e.startedNanos) / 1000;
    String line =
        line(
            client,
            method,
            path,
            response.getStatusCode(),
            response.bytesWritten(),
            micros,
            e.room,
            e.decision,
            e.ticket);
    LOG.atInfo()
        .addKeyValue("client", safe(client))
        .addKeyValue("method", safe(method))
        .addKeyValue("path", safe(path))
        .addKeyValue("status", response.getStatusCode())
        .addKeyValue("bytes", response.bytesWritten())
        .addKeyValue("micros", micros)
        .addKeyValue("room", e.room == null ? "-" : safe(e.room))
        .addKeyValue("decision", e.decision)
        .addKeyValue("ticket", e.ticket == null ? "-" : e.ticket)
        .log(line);
  }

  private static String pathOf(String raw) {
    return raw == null ? "-" : raw;
  }

  /** The text line of one request; every value is {@link #safe}. */
  static String line(
      String client,
      String method,
      String path,
      int status,
      long bytes,
      long micros,
      String room,
      String decision,
      String ticket) {
    return "client="
        + safe(client)
        + " method="
        + safe(method)
        + " path=\""
        + safe(path)
        + "\" status="
        + status
        + " bytes="
        + bytes
        + " micros="
        + micros
        + " room="
        + (room == null ? "-" : safe(room))
        + " decision="
        + safe(decision)
        + " ticket="
        + (ticket == null ? "-" : safe(ticket));
  }

  /**
   * {@code value} as printable ASCII without quotes, backslashes or spaces: those and every other
   * character outside {@code !..~} are written as {@code \\uXXXX}; at most {@value #MAX_VALUE}
   * characters of the value are kept (then {@code ...}).
   */
  static String safe(String value) {
    if (value == null) {
      return "-";
    }
    boolean cut = value.length() > MAX_VALUE;
    String v = cut ? value.substring(0, MAX_VALUE) : value;
    StringBuilder b = null;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      boolean plain = c > ' ' && c <= '~' && c != '"' && c != '\\';
      if (plain) {
        if (b != null) {
          b.append(c);
        }
      } else {
        if (b == null) {
          b = new StringBuilder(v.length() + 16).append(v, 0, i);
        }
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    String out = b == null ? v : b.toString();
    return cut ? out + "..." : out;
  }
}
