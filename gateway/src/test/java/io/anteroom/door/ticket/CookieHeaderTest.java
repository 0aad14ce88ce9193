package io.anteroom.door.ticket;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.config.CookieSameSite;
import io.vertx.core.http.Cookie;
import org.junit.jupiter.api.Test;

/** The gateway reads its one cookie and writes its Set-Cookie without Vert.x's cookie codec. */
class CookieHeaderTest {

  @Test
  void findsTheNamedCookieAmongOthers() {
    assertThat(TicketCookie.scan("a=1; __anteroom_shop=abc-_9; b=2", "__anteroom_shop"))
        .isEqualTo("abc-_9");
    assertThat(TicketCookie.scan("__anteroom_shop=x", "__anteroom_shop")).isEqualTo("x");
    assertThat(TicketCookie.scan("a=1;__anteroom_shop=x ;b=2", "__anteroom_shop")).isEqualTo("x");
  }

  @Test
  void aCookieWhoseNameOnlyStartsOrEndsLikeOursIsNotOurs() {
    assertThat(TicketCookie.scan("__anteroom_shop2=x; x__anteroom_shop=y", "__anteroom_shop"))
        .isNull();
    assertThat(TicketCookie.scan("__anteroom_sho=x", "__anteroom_shop")).isNull();
    assertThat(TicketCookie.scan("__anteroom_shop", "__anteroom_shop")).isNull();
    assertThat(TicketCookie.scan("", "__anteroom_shop")).isNull();
  }

  @Test
  void theFirstOfTwoWinsAndQuotesAreStripped() {
    assertThat(TicketCookie.scan("n=first; n=second", "n")).isEqualTo("first");
    assertThat(TicketCookie.scan("n=\"quoted\"", "n")).isEqualTo("quoted");
    assertThat(TicketCookie.scan("n=", "n")).isEmpty();
  }

  @Test
  void setCookieIsWhatVertxWouldHaveWritten() {
    for (boolean secure : new boolean[] {false, true}) {
      for (CookieSameSite sameSite : CookieSameSite.values()) {
        String vertx =
            Cookie.cookie("__anteroom_shop", "v4lue_-")
                .setPath("/")
                .setHttpOnly(true)
                .setSecure(secure)
                .setSameSite(
                    io.vertx.core.http.CookieSameSite.valueOf(sameSite.configName().toUpperCase()))
                .encode();
        assertThat(TicketCookie.setCookie("__anteroom_shop", "v4lue_-", secure, sameSite))
            .isEqualTo(vertx);
      }
    }
  }

  @Test
  void theCookieIsNamedAfterTheRoomAndItsSuffix() {
    var codec =
        new TicketCodec(
            java.util.List.of(
                new io.anteroom.door.config.GatewayConfig.TicketKey(1, new byte[16])));
    assertThat(new TicketCookie("sale", "_v2", true, CookieSameSite.NONE, codec).name())
        .isEqualTo("__anteroom_sale_v2");
  }

  @Test
  void aClearedCookieIsWhatVertxWouldHaveWrittenButExpiredInThePast() {
    var codec =
        new TicketCodec(
            java.util.List.of(
                new io.anteroom.door.config.GatewayConfig.TicketKey(1, new byte[16])));
    // Vert.x writes Expires as the moment it encoded the cookie; the door writes the epoch, which
    // is in the past for every client's clock
    String vertx =
        Cookie.cookie("__anteroom_shop", "")
            .setPath("/")
            .setHttpOnly(true)
            .setSecure(true)
            .setSameSite(io.vertx.core.http.CookieSameSite.STRICT)
            .setMaxAge(0)
            .encode()
            .replaceFirst("Expires=[^;]*;", "Expires=Thu, 01 Jan 1970 00:00:00 GMT;");
    assertThat(new TicketCookie("shop", "", true, CookieSameSite.STRICT, codec).clear())
        .isEqualTo(vertx);
  }
}
