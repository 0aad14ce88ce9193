package io.anteroom.door.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.DrawSecrets;
import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.QueueingMethod;
import io.anteroom.room.Draw;
import io.anteroom.room.EventWindow;
import io.anteroom.room.Ticket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the room publishes of its draws, so that anyone can audit them: the public list ({@link
 * #DRAWS_PATH}: every draw's commitment from the start, its secret once the draw is over) and each
 * queued user's receipt ({@link #receipt}: its ticket id, the draw's input, and the place or lot
 * the room gave it). The secrets and the rules are the room core's ({@link Draw}, {@link
 * DrawSecrets}).
 */
public final class DrawResponder {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The public path of the draws of a host's rooms, on every host the door judges. */
  public static final String DRAWS_PATH = "/.well-known/anteroom/draws.json";

  /** How far back the hours of random queueing are listed (with their secrets). */
  static final Duration RANDOM_HISTORY = Duration.ofHours(24);

  private DrawResponder() {}

  /**
   * Whether the room draws anything (a shuffled event, random queueing of its own or an event's).
   */
  public static boolean draws(RoomSettings s) {
    return drawsAtRandom(s) || s.events().stream().anyMatch(e -> e.window().shuffle());
  }

  private static boolean drawsAtRandom(RoomSettings s) {
    return s.limits().queueingMethod() == QueueingMethod.RANDOM
        || s.events().stream()
            .anyMatch(e -> e.queueingMethod().orElse(null) == QueueingMethod.RANDOM);
  }

  /**
   * The draws of one room at {@code now}: every shuffled event's (past and future), and the hours
   * of random queueing from {@link #RANDOM_HISTORY} ago to the next one; each with its commitment,
   * and its secret once it may be revealed.
   */
  public static List<Map<String, Object>> list(RoomSettings s, DrawSecrets draws, Instant now) {
    var out = new ArrayList<Map<String, Object>>();
    for (EventSettings e : s.events()) {
      if (e.window().shuffle()) {
        out.add(entry(Draw.shuffle(s.id(), e.window()), draws, now));
      }
    }
    if (drawsAtRandom(s)) {
      Draw hour = Draw.randomAt(s.id(), now.minus(RANDOM_HISTORY));
      Instant last = Draw.randomAt(s.id(), now).revealAt(); // the start of the next hour
      while (!hour.from().isAfter(last)) {
        out.add(entry(hour, draws, now));
        hour = Draw.randomAt(s.id(), hour.revealAt());
      }
    }
    return out;
  }

  /** The public list's JSON: {@code {"draws": [...]}} over {@code rooms}. */
  public static byte[] listJson(List<Map<String, Object>> draws) {
    try {
      return JSON.writeValueAsBytes(Map.of("draws", draws));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Object> entry(Draw d, DrawSecrets draws, Instant now) {
    Map<String, Object> m = identity(d);
    m.put("commitment", draws.commitment(d));
    m.put("secret", draws.revealed(d, now).map(b -> HexFormat.of().formatHex(b)).orElse(null));
    return m;
  }

  /** The fields that name a draw, in receipts and in the list. */
  private static Map<String, Object> identity(Draw d) {
    var m = new LinkedHashMap<String, Object>();
    m.put("room", d.roomId());
    m.put("kind", d.kind().label());
    if (d.event() != null) {
      m.put("event", d.event());
    }
    m.put("from", d.from().toString());
    m.put("revealAt", d.revealAt().toString());
    return m;
  }

  /**
   * The receipt of a queued user at {@code now}, or null when no draw concerns it: during a
   * shuffled event, a ticket of the pre-queue (its ticket id; after the start also the place its
   * ticket carries, never before, when a place would tell a client which of its tickets to keep);
   * under random queueing, the ticket's lot of the current minute (the one it was judged by).
   */
  public static Map<String, Object> receipt(
      RoomSettings s, DrawSecrets draws, Ticket ticket, Instant now) {
    if (ticket == null || ticket.admitted() || draws == null) {
      return null;
    }
    var event = s.eventAt(now);
    if (event.isPresent() && event.get().window().shuffle()) {
      EventWindow w = event.get().window();
      long place = ticket.bucketId() - w.prequeueBucket() - 1;
      boolean prequeued =
          ticket.bucketId() == w.prequeueBucket()
              || place >= 0 && place < EventWindow.SHUFFLE_PLACES;
      if (prequeued) {
        Draw d = Draw.shuffle(s.id(), w);
        Map<String, Object> m = identity(d);
        m.put("commitment", draws.commitment(d));
        m.put("ticket", Long.toUnsignedString(ticket.id()));
        if (!w.prequeueAt(now) && ticket.bucketId() != w.prequeueBucket()) {
          m.put("place", (int) place);
        }
        return m;
      }
    }
    QueueingMethod method =
        event.flatMap(EventSettings::queueingMethod).orElse(s.limits().queueingMethod());
    if (method == QueueingMethod.RANDOM) {
      long minute = Draw.minuteOf(now);
      Draw d = Draw.randomOfMinute(s.id(), minute);
      Map<String, Object> m = identity(d);
      m.put("commitment", draws.commitment(d));
      m.put("ticket", Long.toUnsignedString(ticket.id()));
      m.put("minute", Instant.ofEpochSecond(minute * 60).toString());
      m.put("lot", d.lot(draws.lottery(d), ticket.id(), minute));
      return m;
    }
    return null;
  }
}
