package io.anteroom.servlet;

import io.anteroom.door.RequestFacts;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * A servlet request as the door's facts: the raw request-target ({@code getRequestURI}, not
 * decoded, and the query) and the {@code Host} header are normalised by {@link
 * RequestTarget#parse}, exactly as the proxy does it; several {@code Host} headers are refused.
 *
 * <p>On every request: reads the container's own header values, copies no header and builds no list
 * unless the door asks for every value of a header.
 */
final class ServletFacts implements RequestFacts {
  private static final RequestTargetResult.Rejected SEVERAL_HOSTS =
      new RequestTargetResult.Rejected("several Host headers");

  private final HttpServletRequest request;
  private final String uri;
  private RequestTargetResult target;

  /** The facts of {@code request}, whose {@code getRequestURI()} is {@code uri}. */
  ServletFacts(HttpServletRequest request, String uri) {
    this.request = request;
    this.uri = uri;
  }

  @Override
  public RequestTargetResult target() {
    if (target == null) {
      String host = null;
      Enumeration<String> hosts = request.getHeaders("Host");
      if (hosts != null && hosts.hasMoreElements()) {
        host = hosts.nextElement();
        if (hosts.hasMoreElements()) {
          return target = SEVERAL_HOSTS;
        }
      }
      String query = request.getQueryString();
      target = RequestTarget.parse(query == null ? uri : uri + "?" + query, host, null);
    }
    return target;
  }

  @Override
  public String header(String name) {
    return request.getHeader(name);
  }

  @Override
  public List<String> headers(String name) {
    Enumeration<String> values = request.getHeaders(name);
    if (values == null || !values.hasMoreElements()) {
      return List.of();
    }
    String first = values.nextElement();
    if (!values.hasMoreElements()) {
      return List.of(first);
    }
    var all = new ArrayList<String>(4);
    all.add(first);
    while (values.hasMoreElements()) {
      all.add(values.nextElement());
    }
    return all;
  }

  @Override
  public String peerAddress() {
    return request.getRemoteAddr();
  }
}
