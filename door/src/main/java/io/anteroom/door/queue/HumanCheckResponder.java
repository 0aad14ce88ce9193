package io.anteroom.door.queue;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.anteroom.door.config.GatewayConfig.HumanCheck;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a new user in a room with {@code humanCheck} gets before the room decides on them: the
 * built-in page with the provider's widget (when it is done, the page's script puts the token in
 * the room's answer cookie and reloads), or for JSON clients the queue JSON with a {@code
 * humanCheck} member. The token comes back in the {@value #ANSWER_HEADER} header or the answer
 * cookie ({@link #cookieName}). Stateless; the compiled page is safe for concurrent use.
 */
public final class HumanCheckResponder {

  /** The request header a client sends the widget's token in. */
  public static final String ANSWER_HEADER = "Anteroom-Human";

  private static final Mustache PAGE =
      new DefaultMustacheFactory()
          .compile(
              new InputStreamReader(
                  HumanCheckResponder.class.getResourceAsStream("human-page.mustache"),
                  StandardCharsets.UTF_8),
              "human");

  private HumanCheckResponder() {}

  /** The cookie the page answers in: {@code __anteroom-human_<room id><cookieSuffix>}. */
  public static String cookieName(String roomId, String cookieSuffix) {
    return "__anteroom-human_" + roomId + cookieSuffix;
  }

  /** The {@code humanCheck} member of the JSON answer; {@code refused} may be null. */
  public static Map<String, Object> json(HumanCheck h, String cookieName, String refused) {
    var m = new LinkedHashMap<String, Object>();
    m.put("provider", h.provider().configName());
    m.put("siteKey", h.siteKey());
    m.put("scriptUrl", h.scriptUrl().toString());
    m.put("answerHeader", ANSWER_HEADER);
    m.put("answerCookie", cookieName);
    if (refused != null) {
      m.put("refused", refused);
    }
    return m;
  }

  /** The page with the widget, in {@code language}. */
  public static String html(HumanCheck h, String cookieName, String refused, String language) {
    PageTexts texts = PageTexts.of(language);
    var scope = texts.scope();
    scope.put("widgetClass", h.provider().widgetClass());
    scope.put("siteKey", h.siteKey());
    scope.put("scriptUrl", h.scriptUrl().toString());
    scope.put("cookieName", cookieName);
    if (refused != null) {
      scope.put("refused", refused);
      scope.put("refusedText", texts.format("humanRefused", refused));
    }
    var out = new StringWriter(4096);
    PAGE.execute(out, scope);
    return out.toString();
  }
}
