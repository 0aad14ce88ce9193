package io.anteroom.door.queue;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.anteroom.door.proof.Accounts.Refusal;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a request gets when its room knows its users' accounts and the request's assertion of who
 * the user is was missing (a room that requires accounts) or not accepted: the built-in page saying
 * why in plain words (in the request's language), or for JSON clients an {@code account} member
 * with the reason's code ({@code refused}) and where the assertion goes. Never a ticket. Stateless;
 * the compiled page is safe for concurrent use.
 */
public final class AccountResponder {

  private static final Mustache PAGE =
      new DefaultMustacheFactory()
          .compile(
              new InputStreamReader(
                  AccountResponder.class.getResourceAsStream("account-page.mustache"),
                  StandardCharsets.UTF_8),
              "account");

  private AccountResponder() {}

  /** The {@code account} member of the JSON answer. */
  public static Map<String, Object> json(Refusal refused, boolean required, String header) {
    var m = new LinkedHashMap<String, Object>();
    m.put("required", required);
    m.put("refused", refused.jsonName());
    m.put("header", header);
    return m;
  }

  /** The page, in {@code language}. */
  public static String html(Refusal refused, String language) {
    PageTexts texts = PageTexts.of(language);
    var scope = texts.scope();
    scope.put("refused", refused.jsonName());
    scope.put(
        "title",
        texts.text(refused == Refusal.MISSING ? "accountTitleMissing" : "accountTitleRefused"));
    scope.put("message", texts.text(messageKey(refused)));
    var out = new StringWriter(4096);
    PAGE.execute(out, scope);
    return out.toString();
  }

  /** The key of the reason in a user's words. */
  static String messageKey(Refusal refused) {
    return switch (refused) {
      case MISSING -> "accountMissing";
      case EXPIRED, NOT_YET, UNKNOWN_KEY -> "accountStale";
      case MALFORMED, FORGED, OTHER_ISSUER, OTHER_AUDIENCE -> "accountInvalid";
    };
  }
}
