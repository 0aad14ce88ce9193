package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code anteroom verify-draw}: a revealed draw checked with arithmetic only, on fixed vectors (the
 * shuffle of event {@code launch} of room {@code shop}, pre-queue from 2030-12-01T17:30:00Z, under
 * the lottery key {@code "an example lottery key, not one of yours"}: the same as docs/events.md
 * shows). The vectors pin the rule: a change of the place function or the derivation fails here.
 */
class VerifyDrawCommandTest {
  @TempDir Path dir;

  static final String SECRET = "334168bdc50803a48f2d4cb9f5ce61c765bfb76b5a9c09504e8bef59387dcb55";
  static final String COMMITMENT =
      "a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43";

  static final String RECEIPTS =
      """
      {"room":"shop","kind":"shuffle","event":"launch","from":"2030-12-01T17:30:00Z","revealAt":"2030-12-01T18:00:00Z","commitment":"a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43","ticket":"4811305372081915235","place":12}
      {"room":"shop","kind":"shuffle","event":"launch","from":"2030-12-01T17:30:00Z","revealAt":"2030-12-01T18:00:00Z","commitment":"a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43","ticket":"771822064435781901","place":40}
      {"room":"shop","kind":"shuffle","event":"launch","from":"2030-12-01T17:30:00Z","revealAt":"2030-12-01T18:00:00Z","commitment":"a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43","ticket":"6120442919375624577","place":18}
      {"room":"shop","kind":"shuffle","event":"launch","from":"2030-12-01T17:30:00Z","revealAt":"2030-12-01T18:00:00Z","commitment":"a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43","ticket":"1548790123456789012","place":16}
      {"room":"shop","kind":"shuffle","event":"launch","from":"2030-12-01T17:30:00Z","revealAt":"2030-12-01T18:00:00Z","commitment":"a62470539ad53378b0dcb4c3b92ae039c5bbf3036ae123f77532ce4c1a605a43","ticket":"3311977650021448123","place":49}
      """;

  private record Outcome(int exit, String out, String err) {}

  private Outcome run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  private Outcome verify(String secret, String commitment, String receipts) throws Exception {
    Path file = dir.resolve("receipts.jsonl");
    Files.writeString(file, receipts);
    return run(
        "verify-draw",
        "--secret",
        secret,
        "--commitment",
        commitment,
        "--receipts",
        file.toString());
  }

  @Test
  void theRevealedSecretAndTheReceiptsVerifyAndEveryPlaceIsPrinted() throws Exception {
    Outcome o = verify(SECRET, COMMITMENT, RECEIPTS);
    assertThat(o.exit()).as(o.out() + o.err()).isZero();
    assertThat(o.out())
        .contains(
            "the shuffle of event 'launch' of room 'shop' (pre-queue from 2030-12-01T17:30:00Z): 5"
                + " receipts")
        .contains("commitment: holds")
        .contains("verified: the commitment holds and all 5 receipts match the secret");
    // in the order of the places
    assertThat(o.out())
        .containsSubsequence(
            "   12  4811305372081915235",
            "   16  1548790123456789012",
            "   18  6120442919375624577",
            "   40  771822064435781901",
            "   49  3311977650021448123");
  }

  @Test
  void aTamperedReceiptIsNamedAndTheExitCodeIsOne() throws Exception {
    Outcome o = verify(SECRET, COMMITMENT, RECEIPTS.replace("\"place\":40", "\"place\":3"));
    assertThat(o.exit()).isEqualTo(1);
    assertThat(o.out()).contains("   40  771822064435781901  MISMATCH: the receipt says 3");
    assertThat(o.err())
        .isEqualTo("anteroom verify-draw: the draw does not verify (1 receipts do not match)\n");
  }

  @Test
  void aSecretThatIsNotTheCommittedOneFails() throws Exception {
    String other = SECRET.substring(0, 63) + "4"; // the places stay (first 16 bytes), not the hash
    Outcome o = verify(other, COMMITMENT, RECEIPTS);
    assertThat(o.exit()).isEqualTo(1);
    assertThat(o.out()).contains("MISMATCH commitment: the secret hashes to ");
    assertThat(o.err()).contains("the secret is not the committed one");
    Outcome wrong = verify("00".repeat(32), COMMITMENT, RECEIPTS);
    assertThat(wrong.exit()).isEqualTo(1);
  }

  @Test
  void badInputIsOneClearLineAndExitCodeTwo() throws Exception {
    Outcome notHex = verify("zz", COMMITMENT, RECEIPTS);
    assertThat(notHex.exit()).isEqualTo(2);
    assertThat(notHex.err()).startsWith("anteroom: --secret: not hex");
    Outcome notJson = verify(SECRET, COMMITMENT, "{\"room\":\"shop\"}\nnot json\n");
    assertThat(notJson.exit()).isEqualTo(2);
    assertThat(notJson.err()).contains("line 1: not a draw receipt (no 'kind')");
    Outcome missing =
        run(
            "verify-draw",
            "--secret",
            SECRET,
            "--commitment",
            COMMITMENT,
            "--receipts",
            dir.resolve("none.jsonl").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("cannot read the file");
    assertThat(missing.err().lines()).hasSize(1);
  }

  @Test
  void aWholeQueueJsonIsReadAsItsReceipt() throws Exception {
    String first = RECEIPTS.lines().findFirst().orElseThrow().strip();
    Outcome o =
        verify(
            SECRET,
            COMMITMENT,
            "{\"cfWaitingRoom\":{\"inWaitingRoom\":true,\"drawReceipt\":" + first + "}}\n");
    assertThat(o.exit()).as(o.out() + o.err()).isZero();
  }
}
