package io.anteroom.bench.servlet;

import io.anteroom.door.RequestFacts;
import io.anteroom.door.match.RequestTarget;
import io.anteroom.door.match.RequestTargetResult;
import java.util.List;

/**
 * An admitted user's {@code GET /hello} as a server adapter reads it, for the benchmarks that call
 * the door without a server ({@link DoorCost}, {@link FilterCost}): only the {@code Cookie} header,
 * which a benchmark may replace when the door re-seals it.
 */
final class AdmittedGet implements RequestFacts {
  String cookie;

  AdmittedGet(String cookie) {
    this.cookie = cookie;
  }

  @Override
  public RequestTargetResult target() {
    return RequestTarget.parse("/hello", "127.0.0.1:8080", null);
  }

  @Override
  public String method() {
    return "GET";
  }

  @Override
  public String header(String name) {
    return name.equalsIgnoreCase("Cookie") ? cookie : null;
  }

  @Override
  public List<String> headers(String name) {
    String v = header(name);
    return v == null ? List.of() : List.of(v);
  }

  @Override
  public String peerAddress() {
    return "127.0.0.1";
  }
}
