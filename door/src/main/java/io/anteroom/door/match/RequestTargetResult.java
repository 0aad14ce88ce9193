package io.anteroom.door.match;

import java.util.Objects;

/**
 * What {@link RequestTarget#parse} makes of a request: the normalised {@link RequestTarget}, or a
 * {@link Rejected} request that must be answered with 400 and never routed, bypassed or forwarded.
 *
 * <pre>{@code
 * switch (RequestTarget.parse(request.uri(), request.getHeader("Host"), null)) {
 *     case RequestTarget t -> route(t.host(), t.path(), t.pathAndQuery());
 *     case RequestTargetResult.Rejected r -> request.response().setStatusCode(400).end(r.reason());
 * }
 * }</pre>
 */
public sealed interface RequestTargetResult permits RequestTarget, RequestTargetResult.Rejected {

  /**
   * A request target or host that is ambiguous or malformed; {@code reason} is safe to show the
   * client.
   */
  record Rejected(String reason) implements RequestTargetResult {
    public Rejected {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
