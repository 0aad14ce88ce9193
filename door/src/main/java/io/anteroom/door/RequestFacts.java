package io.anteroom.door;

import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import java.util.List;

/**
 * What the door needs to know of one request, as its server's adapter reads it. The door asks for
 * each fact only when a stage needs it (most requests never make it read {@code X-Forwarded-For}),
 * so an adapter answers from its server's own request object instead of copying it.
 *
 * <p>The target is parsed by the adapter with {@link RequestTarget#parse} (it knows where its
 * server keeps the raw request-target, the {@code Host} headers and an HTTP/2 {@code :authority});
 * several {@code Host} headers are {@link RequestTargetResult.Rejected}.
 *
 * <pre>{@code
 * RequestFacts facts = new RequestFacts() {
 *   public RequestTargetResult target() { return RequestTarget.parse(uri, host, null); }
 *   public String method() { return request.getMethod(); }
 *   public String header(String name) { return request.getHeader(name); }
 *   public List<String> headers(String name) { return request.getHeaders(name); }
 *   public String peerAddress() { return request.getRemoteAddr(); }
 * };
 * }</pre>
 */
public interface RequestFacts {

  /** The one normalised target (host, path, query), or why it is refused. */
  RequestTargetResult target();

  /** The request method as sent (e.g. {@code GET}), for rules on the method. */
  String method();

  /** The first value of header {@code name} (case-insensitive), or null. */
  String header(String name);

  /** Every value of header {@code name} (case-insensitive), in order; empty when none. */
  List<String> headers(String name);

  /** The IP address of the connection's peer, or null when unknown. */
  String peerAddress();
}
