package io.anteroom.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anteroom.door.admission.DrawSecrets;
import io.anteroom.door.queue.QueueResponder;
import io.anteroom.room.Draw;
import io.anteroom.room.DrawAudit;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code anteroom verify-draw}: checks a revealed draw with arithmetic only. The secret must hash
 * to the commitment the room published before the draw, and every receipt's place (a shuffle) or
 * lot (random queueing) must be what the secret gives ({@link DrawAudit}, the room core's own
 * rules). Needs no configuration, no key and no running room: anyone holding the published secret
 * and some receipts can run it.
 */
@Command(
    name = "verify-draw",
    mixinStandardHelpOptions = true,
    description =
        "Check a room's draw: the revealed secret against the commitment published before it, and"
            + " every receipt (one JSON a line, as the queue JSON's drawReceipt member or the whole"
            + " queue JSON) recomputed from the secret. Exit code 0: all match; 1: a mismatch;"
            + " 2: bad input.")
final class VerifyDrawCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(
      names = "--secret",
      required = true,
      paramLabel = "HEX",
      description = "the draw's secret, as the room revealed it after the draw")
  String secret;

  @Option(
      names = "--commitment",
      required = true,
      paramLabel = "HEX",
      description = "the draw's commitment, as the room published it before the draw")
  String commitment;

  @Option(
      names = "--receipts",
      required = true,
      paramLabel = "FILE",
      description = "the receipts: one JSON object a line")
  Path receipts;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    byte[] secretBytes;
    try {
      secretBytes = HexFormat.of().parseHex(secret.strip().toLowerCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--secret: not hex (" + e.getMessage() + ")");
    }
    if (secretBytes.length < 16) {
      throw new IllegalArgumentException(
          "--secret: " + secretBytes.length + " bytes; a draw's secret has 32");
    }
    List<DrawAudit.Receipt> list = read(receipts);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("--receipts " + receipts + ": no receipt in the file");
    }
    Draw draw = list.getFirst().draw();
    DrawSecrets.Audit audit = DrawSecrets.audit(draw, secretBytes, commitment, list);
    DrawAudit.Result result = audit.receipts();
    out.println(DrawAudit.describe(draw) + ": " + list.size() + " receipts");
    if (audit.commitmentHolds()) {
      out.println("commitment: holds (SHA-256 of the secret is the published commitment)");
    } else {
      out.println(
          "MISMATCH commitment: the secret hashes to "
              + DrawSecrets.commitment(secretBytes)
              + ", not to the published "
              + commitment.strip());
    }
    result.problems().forEach(p -> out.println("MISMATCH " + p));
    boolean shuffle = draw.kind() == Draw.Kind.SHUFFLE;
    out.println(shuffle ? "place  ticket  (receipt)" : "minute  ticket  lot  (receipt)");
    var rows = new ArrayList<>(result.checked());
    if (shuffle) {
      rows.sort(
          java.util.Comparator.comparingDouble(DrawAudit.Checked::recomputed)
              .thenComparing(c -> Long.toUnsignedString(c.receipt().ticketId())));
    }
    for (DrawAudit.Checked c : rows) {
      String ticket = Long.toUnsignedString(c.receipt().ticketId());
      String given =
          shuffle
              ? (c.receipt().place() == null ? "taken before the draw" : "" + c.receipt().place())
              : "" + c.receipt().lot();
      String verdict = c.matches() ? "" : "  MISMATCH: the receipt says " + given;
      out.println(
          shuffle
              ? String.format("%5d  %s%s", (int) c.recomputed(), ticket, verdict)
              : Instant.ofEpochSecond(c.receipt().minute() * 60)
                  + "  "
                  + ticket
                  + "  "
                  + c.recomputed()
                  + verdict);
    }
    out.flush();
    if (audit.verified()) {
      out.println(
          "verified: the commitment holds and all " + list.size() + " receipts match the secret");
      out.flush();
      return 0;
    }
    spec.commandLine()
        .getErr()
        .println(
            "anteroom verify-draw: the draw does not verify ("
                + (audit.commitmentHolds() ? "" : "the secret is not the committed one; ")
                + (result.checked().stream().filter(c -> !c.matches()).count()
                    + result.problems().size())
                + " receipts do not match)");
    spec.commandLine().getErr().flush();
    return 1;
  }

  /** The receipts of {@code file}: one JSON object a line (blank lines skipped). */
  static List<DrawAudit.Receipt> read(Path file) throws IOException {
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException("--receipts " + file + ": cannot read the file");
    }
    var out = new ArrayList<DrawAudit.Receipt>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        out.add(receipt(JSON.readTree(line)));
      } catch (IOException | IllegalArgumentException | NullPointerException e) {
        throw new IllegalArgumentException(
            file + " line " + n + ": not a draw receipt (" + e.getMessage() + ")");
      }
    }
    return out;
  }

  /** A receipt: the object itself, or the {@code drawReceipt} member of a queue JSON. */
  static DrawAudit.Receipt receipt(JsonNode j) {
    if (j.has(QueueResponder.ENVELOPE)) {
      j = j.get(QueueResponder.ENVELOPE);
    }
    if (j.has("drawReceipt")) {
      j = j.get("drawReceipt");
    }
    Draw.Kind kind = Draw.Kind.of(text(j, "kind"));
    if (kind == null) {
      throw new IllegalArgumentException("kind must be shuffle or random");
    }
    Draw draw =
        new Draw(
            text(j, "room"),
            kind,
            j.hasNonNull("event") ? j.get("event").asText() : null,
            instant(j, "from"),
            instant(j, "revealAt"));
    long ticket = Long.parseUnsignedLong(text(j, "ticket"));
    Integer place = j.hasNonNull("place") ? j.get("place").intValue() : null;
    Long minute = j.hasNonNull("minute") ? Draw.minuteOf(instant(j, "minute")) : null;
    Double lot = j.hasNonNull("lot") ? j.get("lot").doubleValue() : null;
    return new DrawAudit.Receipt(draw, ticket, place, minute, lot);
  }

  private static String text(JsonNode j, String field) {
    if (!j.hasNonNull(field)) {
      throw new IllegalArgumentException("no '" + field + "'");
    }
    return j.get(field).asText();
  }

  private static Instant instant(JsonNode j, String field) {
    try {
      return Instant.parse(text(j, field));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'" + field + "' is not an instant");
    }
  }
}
