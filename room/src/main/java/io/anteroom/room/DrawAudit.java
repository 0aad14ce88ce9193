package io.anteroom.room;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks the receipts of a revealed draw: every receipt's place (a shuffle) or lot (random
 * queueing) recomputed from the draw's lottery (seeded by its revealed secret) with the room's own
 * rules ({@link Draw#place}, {@link Draw#lot}). Pure arithmetic; the secret's commitment is checked
 * by the caller (the gateway's {@code DrawSecrets}), and {@code anteroom verify-draw} only reads
 * the files and prints the result.
 */
public final class DrawAudit {
  private DrawAudit() {}

  /**
   * What a user's queue page showed: the draw, its ticket id (the draw's input) and what the room
   * gave it, its place ({@link Draw.Kind#SHUFFLE}; null on a receipt taken before the draw) or its
   * lot of minute {@code minute} ({@link Draw.Kind#RANDOM}).
   */
  public record Receipt(Draw draw, long ticketId, Integer place, Long minute, Double lot) {}

  /** One receipt recomputed: the value the secret gives, and whether the receipt said the same. */
  public record Checked(Receipt receipt, double recomputed, boolean matches) {}

  /**
   * The result: the receipts that name another draw (or no minute of it), and every other receipt
   * recomputed (in the order given).
   */
  public record Result(List<String> problems, List<Checked> checked) {

    /** True when every receipt is of the draw and every value matches. */
    public boolean allMatch() {
      return problems.isEmpty() && checked.stream().allMatch(Checked::matches);
    }
  }

  /** Recomputes {@code receipts} of {@code draw} with {@code lottery}, the draw's. */
  public static Result verify(Draw draw, Lottery lottery, List<Receipt> receipts) {
    var problems = new ArrayList<String>();
    var checked = new ArrayList<Checked>();
    for (int i = 0; i < receipts.size(); i++) {
      Receipt r = receipts.get(i);
      if (!sameDraw(draw, r.draw())) {
        problems.add(
            "receipt "
                + (i + 1)
                + " (ticket "
                + Long.toUnsignedString(r.ticketId())
                + ") is of "
                + describe(r.draw())
                + ", not of "
                + describe(draw));
        continue;
      }
      if (draw.kind() == Draw.Kind.SHUFFLE) {
        int place = draw.place(lottery, r.ticketId());
        boolean matches = r.place() == null || r.place() == place;
        checked.add(new Checked(r, place, matches));
      } else {
        if (r.minute() == null || r.lot() == null || !draw.hasMinute(r.minute())) {
          problems.add(
              "receipt "
                  + (i + 1)
                  + " (ticket "
                  + Long.toUnsignedString(r.ticketId())
                  + ") names no minute of "
                  + describe(draw));
          continue;
        }
        double lot = draw.lot(lottery, r.ticketId(), r.minute());
        boolean matches = lot == r.lot();
        checked.add(new Checked(r, lot, matches));
      }
    }
    return new Result(List.copyOf(problems), List.copyOf(checked));
  }

  /**
   * A draw as a line names it: {@code shuffle of event 'launch' in room 'shop' (pre-queue from
   * ...)}.
   */
  public static String describe(Draw d) {
    return d.kind() == Draw.Kind.SHUFFLE
        ? "the shuffle of event '"
            + d.event()
            + "' of room '"
            + d.roomId()
            + "' (pre-queue from "
            + d.from()
            + ")"
        : "random queueing of room '" + d.roomId() + "' from " + d.from() + " to " + d.revealAt();
  }

  /** Same draw: the fields its secret is derived from (room, kind, event, from). */
  private static boolean sameDraw(Draw a, Draw b) {
    return a.roomId().equals(b.roomId())
        && a.kind() == b.kind()
        && java.util.Objects.equals(a.event(), b.event())
        && a.from().equals(b.from());
  }
}
