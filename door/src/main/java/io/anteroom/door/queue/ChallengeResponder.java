package io.anteroom.door.queue;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.anteroom.door.proof.DoorCheck;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a new user in a room with {@code proofOfWork} gets before the room decides on them: the
 * built-in challenge page (its script solves and reloads; without JavaScript it says so), or for
 * JSON clients the queue JSON ({@code inWaitingRoom: true}) with a {@code proofOfWork} member. The
 * answer comes back in the {@value #ANSWER_HEADER} header or the room's answer cookie ({@link
 * #cookieName}). Stateless; the compiled page is safe for concurrent use.
 */
public final class ChallengeResponder {

  /** The request header a client answers in: {@code <challenge>.<counter>}. */
  public static final String ANSWER_HEADER = "Anteroom-Proof";

  private static final Mustache PAGE =
      new DefaultMustacheFactory()
          .compile(
              new InputStreamReader(
                  ChallengeResponder.class.getResourceAsStream("challenge-page.mustache"),
                  StandardCharsets.UTF_8),
              "challenge");

  private ChallengeResponder() {}

  /**
   * The cookie the page answers in: {@code __anteroom-proof_<room id><cookieSuffix>} (the {@code -}
   * keeps it apart from every room's ticket cookie, {@code __anteroom_...}).
   */
  public static String cookieName(String roomId, String cookieSuffix) {
    return "__anteroom-proof_" + roomId + cookieSuffix;
  }

  /** The {@code proofOfWork} member of the JSON answer. */
  public static Map<String, Object> json(DoorCheck.Challenge c, String cookieName, int ttlSeconds) {
    var m = new LinkedHashMap<String, Object>();
    m.put("challenge", c.challenge().text());
    m.put("difficulty", c.challenge().difficulty());
    m.put("algorithm", "sha256-leading-zero-bits");
    m.put("expiresAt", Instant.ofEpochSecond(c.challenge().expiresAtSeconds()).toString());
    m.put("answerHeader", ANSWER_HEADER);
    m.put("answerCookie", cookieName);
    m.put("ttlSeconds", ttlSeconds);
    if (c.refused() != null) {
      m.put("refused", c.refused().jsonName());
    }
    return m;
  }

  /** The challenge page in {@code language}. */
  public static String html(
      DoorCheck.Challenge c, String cookieName, int ttlSeconds, String language) {
    PageTexts texts = PageTexts.of(language);
    var scope = texts.scope();
    scope.put("challenge", c.challenge().text());
    scope.put("difficulty", c.challenge().difficulty());
    scope.put("cookieName", cookieName);
    scope.put("ttlSeconds", ttlSeconds);
    if (c.refused() != null) {
      scope.put("refused", c.refused().jsonName());
      scope.put("refusedText", texts.format("challengeRefused", c.refused().jsonName()));
    }
    var out = new StringWriter(8192);
    PAGE.execute(out, scope);
    return out.toString();
  }
}
