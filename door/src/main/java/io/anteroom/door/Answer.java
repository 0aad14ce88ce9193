package io.anteroom.door;

import io.anteroom.door.match.RequestTarget;
import io.anteroom.room.Ticket;
import java.util.List;

/**
 * What the door decided for one request: let it through to the origin ({@link Pass}), or answer it
 * here ({@link Respond}: the queue page or JSON, a challenge, 429, 400). Either carries what the
 * access log writes: the room (null: none), the decision's word and the ticket of the decision.
 */
public sealed interface Answer {

  /** The room's id, or null when the request matched no room (or was refused before routing). */
  String roomId();

  /**
   * The decision, as the access log writes it: {@code admitted}, {@code session}, {@code
   * passthrough}, {@code queued}, {@code rejected}, {@code challenge}, {@code invitation}, {@code
   * bypass}, {@code suspended}, {@code no_room}, {@code bad_request}.
   */
  String decision();

  /** The ticket the decision is about (the new one, else the request's own), or null. */
  Ticket ticket();

  /** One response header. */
  record Header(String name, String value) {}

  /**
   * Let the request through: the proxy forwards it, the filter continues its chain. When the origin
   * has answered, the adapter hands its response to {@link Door#onOriginResponse} with this pass,
   * which seals the cookie ({@code seal}), ends a session the origin revokes ({@code session}) and
   * marks the response private.
   *
   * @param room the room (null: no room; the origin's response is only marked unthrottled)
   * @param target the normalised target the origin must receive
   * @param seal the ticket to set in the cookie, or null to leave the user's cookie as it is
   * @param session the admitted ticket an origin's {@code Anteroom-Command: revoke} ends, or null
   * @param setCookies {@code Set-Cookie} values to add to the response whatever the origin answers
   *     (the proof-of-work answer cookie, used once)
   * @param originHeaders the headers the door adds to the request for the origin (after removing
   *     any a client sent under {@link Door#RESERVED_REQUEST_HEADERS})
   * @param at when the door let the request through, epoch milliseconds: the request's one reading
   *     of the clock, or the admission's time when that is later (an admission decided after a call
   *     to the coordinator); {@link Door#onOriginResponse} adds the origin's time to it
   */
  record Pass(
      RoomRuntime room,
      RequestTarget target,
      Ticket seal,
      Ticket session,
      List<String> setCookies,
      List<Header> originHeaders,
      String decision,
      Ticket ticket,
      long at)
      implements Answer {

    @Override
    public String roomId() {
      return room == null ? null : room.settings().id();
    }
  }

  /**
   * An answer the door writes itself, whole: the adapter writes the status, the headers in order
   * and the body, drops any request body (it never reaches the origin), closes the connection when
   * asked to (HTTP/1 only: HTTP/2 has no connection-specific headers), then calls {@link
   * #written()}.
   */
  record Respond(
      int status,
      List<Header> headers,
      byte[] body,
      boolean closeConnection,
      String roomId,
      String decision,
      Ticket ticket,
      Runnable afterWrite)
      implements Answer {

    /** The first value of header {@code name} (case-insensitive), or null. */
    public String header(String name) {
      for (Header h : headers) {
        if (h.name().equalsIgnoreCase(name)) {
          return h.value();
        }
      }
      return null;
    }

    /** Called by the adapter once the answer is written (the queue's pacing times its own work). */
    public void written() {
      afterWrite.run();
    }
  }
}
