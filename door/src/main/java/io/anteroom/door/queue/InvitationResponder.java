package io.anteroom.door.queue;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.anteroom.door.proof.Invitations;
import io.anteroom.door.proof.Invitations.Refusal;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a request gets when its room (or the running event) is invite-only and it brings no valid
 * invitation: the built-in page saying why in plain words, or for JSON clients an {@code
 * invitation} member with the reason's code ({@code refused}) and where a token goes. Never a
 * ticket. Stateless; the compiled page is safe for concurrent use.
 */
public final class InvitationResponder {

  private static final Mustache PAGE =
      new DefaultMustacheFactory()
          .compile(
              new InputStreamReader(
                  InvitationResponder.class.getResourceAsStream("invitation-page.mustache"),
                  StandardCharsets.UTF_8),
              "invitation");

  private InvitationResponder() {}

  /** The {@code invitation} member of the JSON answer. */
  public static Map<String, Object> json(Refusal refused) {
    var m = new LinkedHashMap<String, Object>();
    m.put("required", true);
    m.put("refused", refused.jsonName());
    m.put("queryParameter", Invitations.QUERY_PARAMETER);
    m.put("header", Invitations.HEADER);
    return m;
  }

  /** The page, in {@code language}. */
  public static String html(Refusal refused, String language) {
    PageTexts texts = PageTexts.of(language);
    var scope = texts.scope();
    scope.put("refused", refused.jsonName());
    scope.put(
        "title",
        texts.text(
            refused == Refusal.MISSING ? "invitationTitleMissing" : "invitationTitleRefused"));
    scope.put("message", texts.text(messageKey(refused)));
    var out = new StringWriter(4096);
    PAGE.execute(out, scope);
    return out.toString();
  }

  /** The key of the reason in a user's words. */
  static String messageKey(Refusal refused) {
    return switch (refused) {
      case MISSING -> "invitationMissing";
      case MALFORMED, FORGED -> "invitationInvalid";
      case EXPIRED -> "invitationExpired";
      case NOT_YET -> "invitationNotYet";
      case OTHER_ROOM, OTHER_EVENT -> "invitationOtherSale";
      case REPLAYED -> "invitationReplayed";
      case BUSY -> "invitationBusy";
    };
  }

  /** The reason in a user's words, in English. */
  static String message(Refusal refused) {
    return PageTexts.of("en").text(messageKey(refused));
  }
}
