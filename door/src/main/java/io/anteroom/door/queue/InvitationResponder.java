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

  /** The page. */
  public static String html(Refusal refused) {
    var scope = new LinkedHashMap<String, Object>();
    scope.put("refused", refused.jsonName());
    scope.put(
        "title", refused == Refusal.MISSING ? "By invitation only" : "Invitation not accepted");
    scope.put("message", message(refused));
    var out = new StringWriter(4096);
    PAGE.execute(out, scope);
    return out.toString();
  }

  /** The reason in a user's words. */
  static String message(Refusal refused) {
    return switch (refused) {
      case MISSING ->
          "This site is open to invited guests only right now. Please open the link from your"
              + " invitation.";
      case MALFORMED, FORGED ->
          "This invitation link is not valid. Please open the link exactly as you received it.";
      case EXPIRED -> "This invitation has expired.";
      case NOT_YET -> "This invitation is not valid yet. Please come back when the sale opens.";
      case OTHER_ROOM, OTHER_EVENT -> "This invitation is for another sale.";
      case REPLAYED ->
          "This invitation has already been used: each invitation gives one place in line. If"
              + " you joined already, go on in the browser you joined with.";
      case BUSY -> "Too many invitations are in use right now. Please try again in a minute.";
      case OTHER_ACCOUNT ->
          "This invitation was sent to another account. Please sign in with the account it was"
              + " sent to.";
    };
  }
}
