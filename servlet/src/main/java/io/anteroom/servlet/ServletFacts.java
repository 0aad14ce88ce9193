package io.anteroom.servlet;

import io.anteroom.door.RequestFacts;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.List;

/**
 * A servlet request as the door's facts: the raw request-target ({@code getRequestURI}, not
 * decoded, and the query) and the {@code Host} header are normalised by {@link
 * RequestTarget#parse}, exactly as the proxy does it; several {@code Host} headers are refused.
 */
final class ServletFacts implements RequestFacts {
  private static final RequestTargetResult.Rejected SEVERAL_HOSTS =
      new RequestTargetResult.Rejected("several Host headers");

  private final HttpServletRequest request;
  private RequestTargetResult target;

  ServletFacts(HttpServletRequest request) {
    this.request = request;
  }

  @Override
  public RequestTargetResult target() {
    if (target == null) {
      List<String> hosts = headers("Host");
      if (hosts.size() > 1) {
        target = SEVERAL_HOSTS;
      } else {
        String query = request.getQueryString();
        String uri =
            query == null ? request.getRequestURI() : request.getRequestURI() + "?" + query;
        target = RequestTarget.parse(uri, hosts.isEmpty() ? null : hosts.getFirst(), null);
      }
    }
    return target;
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String header(String name) {
    return request.getHeader(name);
  }

  @Override
  public List<String> headers(String name) {
    var values = request.getHeaders(name);
    return values == null ? List.of() : Collections.list(values);
  }

  @Override
  public String peerAddress() {
    return request.getRemoteAddr();
  }
}
