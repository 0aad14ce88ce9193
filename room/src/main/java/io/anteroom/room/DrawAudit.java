package io.anteroom.room;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Checks a revealed draw: the secret against the commitment published before the draw, then every
 * receipt's place (a shuffle) or lot (random queueing) recomputed from the secret with the room's
 * own rules ({@link Draw#place}, {@link Draw#lot}). Pure arithmetic; {@code anteroom verify-draw}
 * only reads the files and prints the result.
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
   * The result: whether the secret is the committed one, the receipts that name another draw, and
   * every receipt recomputed (in the order given).
   */
  public record Result(
      boolean commitmentHolds, List<String> problems, List<Checked> checked, boolean allMatch) {

    /** True when the commitment holds, every receipt is of the draw and every value matches. */
    public boolean verified() {
      return commitmentHolds && problems.isEmpty() && allMatch;
    }
  }

  /**
   * Verifies {@code receipts} of {@code draw} against {@code secret} and {@code commitment} (hex).
   */
  public static Result verify(Draw draw, byte[] secret, String commitment, List<Receipt> receipts) {
    boolean holds =
        MessageDigest.isEqual(
            HexFormat.of().parseHex(Draw.commitment(secret)), parseHexOrEmpty(commitment));
    Lottery lottery = Draw.lotteryOf(secret);
    var problems = new ArrayList<String>();
    var checked = new ArrayList<Checked>();
    boolean allMatch = true;
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
        allMatch &= matches;
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
        allMatch &= matches;
        checked.add(new Checked(r, lot, matches));
      }
    }
    return new Result(holds, List.copyOf(problems), List.copyOf(checked), allMatch);
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

  private static byte[] parseHexOrEmpty(String hex) {
    try {
      return HexFormat.of().parseHex(hex.trim().toLowerCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      return new byte[0];
    }
  }
}
