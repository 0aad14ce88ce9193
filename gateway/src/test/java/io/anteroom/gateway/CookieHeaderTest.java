package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import org.junit.jupiter.api.Test;

/** The gateway reads its one cookie and writes its Set-Cookie without Vert.x's cookie codec. */
class CookieHeaderTest {

  @Test
  void findsTheNamedCookieAmongOthers() {
    assertThat(Gatekeeper.cookieValue("a=1; __anteroom_shop=abc-_9; b=2", "__anteroom_shop"))
        .isEqualTo("abc-_9");
    assertThat(Gatekeeper.cookieValue("__anteroom_shop=x", "__anteroom_shop")).isEqualTo("x");
    assertThat(Gatekeeper.cookieValue("a=1;__anteroom_shop=x ;b=2", "__anteroom_shop"))
        .isEqualTo("x");
  }

  @Test
  void aCookieWhoseNameOnlyStartsOrEndsLikeOursIsNotOurs() {
    assertThat(Gatekeeper.cookieValue("__anteroom_shop2=x; x__anteroom_shop=y", "__anteroom_shop"))
        .isNull();
    assertThat(Gatekeeper.cookieValue("__anteroom_sho=x", "__anteroom_shop")).isNull();
    assertThat(Gatekeeper.cookieValue("__anteroom_shop", "__anteroom_shop")).isNull();
    assertThat(Gatekeeper.cookieValue("", "__anteroom_shop")).isNull();
  }

  @Test
  void theFirstOfTwoWinsAndQuotesAreStripped() {
    assertThat(Gatekeeper.cookieValue("n=first; n=second", "n")).isEqualTo("first");
    assertThat(Gatekeeper.cookieValue("n=\"quoted\"", "n")).isEqualTo("quoted");
    assertThat(Gatekeeper.cookieValue("n=", "n")).isEmpty();
  }

  @Test
  void setCookieIsWhatVertxWouldHaveWritten() {
    for (boolean secure : new boolean[] {false, true}) {
      for (String sameSite : new String[] {"Lax", "Strict", "None"}) {
        String vertx = Cookie.cookie("__anteroom_shop", "v4lue_-").setPath("/").setHttpOnly(true)
            .setSecure(secure).setSameSite(CookieSameSite.valueOf(sameSite.toUpperCase()))
            .encode();
        assertThat(Gatekeeper.setCookie("__anteroom_shop", "v4lue_-", secure, sameSite))
            .isEqualTo(vertx);
      }
    }
  }
}
