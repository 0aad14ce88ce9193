package io.anteroom.door;

import static io.anteroom.door.DoorTest.enter;
import static io.anteroom.door.DoorTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.admission.RoomGate.Outcome;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.admission.RoomGate.Verdict;
import io.anteroom.room.Ticket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The door's own answers speak the visitor's language (Accept-Language within the room's {@code
 * languages}, else the room's {@code language}) and say which ({@code Content-Language}, {@code
 * Vary}); the queue answer's status is the room's {@code queueingStatusCode}.
 */
class PageLanguageDoorTest {

  private final DoorTest t = new DoorTest();

  private Door queueing(String room) {
    Door door = t.door("rooms: [ " + room + " ]");
    t.room.verdict =
        new Verdict(
            Outcome.QUEUE,
            new Ticket("shop", 8, 1, DoorTest.NOW, null, 3),
            new QueueView(true, 3, 1, 3, 5, 0));
    return door;
  }

  private static String body(Answer.Respond r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void theQueuePageIsInTheBrowsersLanguageAndSaysSo() {
    Door door = queueing("{ id: shop, totalActiveUsers: 1 }");

    var fr = (Answer.Respond) enter(door, request("/", "Accept-Language", "fr-CH, en;q=0.5"));
    var ar = (Answer.Respond) enter(door, request("/", "Accept-Language", "ar-EG"));
    var none = (Answer.Respond) enter(door, request("/"));

    assertThat(fr.header("Content-Language")).isEqualTo("fr");
    assertThat(fr.header("Vary")).contains("Accept-Language");
    assertThat(body(fr))
        .contains("<html lang=\"fr\" dir=\"ltr\">")
        .contains("<title>Vous êtes dans la file d’attente</title>")
        .contains("3 minutes");
    assertThat(ar.header("Content-Language")).isEqualTo("ar");
    assertThat(body(ar)).contains("<html lang=\"ar\" dir=\"rtl\">").contains("3 دقائق");
    assertThat(none.header("Content-Language")).isEqualTo("en");
    assertThat(body(none)).contains("You are in line");
  }

  @Test
  void theJsonTextIsInTheBrowsersLanguage() {
    Door door = queueing("{ id: shop, totalActiveUsers: 1 }");

    var de =
        (Answer.Respond)
            enter(door, request("/", "Accept", "application/json", "Accept-Language", "de"));

    assertThat(de.header("Content-Language")).isEqualTo("de");
    assertThat(body(de)).contains("\"waitTimeFormatted\":\"3 Minuten\"");
  }

  @Test
  void theRoomsLanguageServesBrowsersAskingForNoneOfItsLanguages() {
    Door door = queueing("{ id: shop, totalActiveUsers: 1, language: de }");

    var nl = (Answer.Respond) enter(door, request("/", "Accept-Language", "nl, sv;q=0.5"));
    var none = (Answer.Respond) enter(door, request("/"));
    var es = (Answer.Respond) enter(door, request("/", "Accept-Language", "es"));

    assertThat(nl.header("Content-Language")).isEqualTo("de");
    assertThat(none.header("Content-Language")).isEqualTo("de");
    assertThat(body(none)).contains("Sie sind in der Warteschlange");
    assertThat(es.header("Content-Language")).isEqualTo("es");
  }

  @Test
  void aRoomWithOneLanguageAlwaysSpeaksIt() {
    Door door = queueing("{ id: shop, totalActiveUsers: 1, languages: [ja] }");

    var en = (Answer.Respond) enter(door, request("/", "Accept-Language", "en-US,en;q=0.9"));

    assertThat(en.header("Content-Language")).isEqualTo("ja");
    assertThat(body(en)).contains("順番待ちの列に並んでいます");
  }

  @Test
  void aRejectionAndA400AreInTheBrowsersLanguage() {
    Door door = t.door("rooms: [ { id: shop, totalActiveUsers: 1 } ]");
    t.room.verdict = new Verdict(Outcome.REJECT, null, null);

    var es = (Answer.Respond) enter(door, request("/", "Accept-Language", "es-MX"));
    var bad = (Answer.Respond) enter(door, request("/a/%2e%2e%2fb", "Accept-Language", "ja"));

    assertThat(es.status()).isEqualTo(429);
    assertThat(es.header("Content-Language")).isEqualTo("es");
    assertThat(body(es))
        .isEqualTo(
            "429 Too Many Requests: El sitio está lleno en este momento. Inténtalo de nuevo en 20"
                + " segundos.\n");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.header("Content-Language")).isEqualTo("ja");
    assertThat(body(bad)).startsWith("400 Bad Request: リクエストを理解できませんでした。 (");
  }

  @Test
  void theQueueAnswersWithTheRoomsStatusCode() {
    var plain = (Answer.Respond) enter(queueing("{ id: shop, totalActiveUsers: 1 }"), request("/"));
    var accepted =
        (Answer.Respond)
            enter(
                queueing("{ id: shop, totalActiveUsers: 1, queueingStatusCode: 202 }"),
                request("/"));
    var tooMany =
        (Answer.Respond)
            enter(
                queueing("{ id: shop, totalActiveUsers: 1, queueingStatusCode: 429 }"),
                request("/", "Accept", "application/json"));

    assertThat(plain.status()).isEqualTo(200);
    assertThat(plain.header("Retry-After")).isNull();
    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.header("Retry-After")).isNull();
    assertThat(accepted.header("Cache-Control")).isEqualTo("no-store");
    assertThat(tooMany.status()).isEqualTo(429);
    assertThat(tooMany.header("Retry-After")).as("the refresh interval").isEqualTo("20");
    assertThat(tooMany.header("Cache-Control")).isEqualTo("no-store");
    assertThat(body(tooMany)).contains("\"inWaitingRoom\":true");
  }

  @Test
  void anAdmittedUsersStatusPollIsA200WhateverTheQueuesStatusCode() {
    Door door = t.door("rooms: [ { id: shop, totalActiveUsers: 1, queueingStatusCode: 429 } ]");
    t.room.verdict =
        new Verdict(Outcome.ADMIT, new Ticket("shop", 8, 1, DoorTest.NOW, null, 3), null);

    var poll =
        (Answer.Respond)
            enter(door, request("/", "Accept", "application/json", "Anteroom-Poll", "1"));

    assertThat(poll.status()).isEqualTo(200);
    assertThat(body(poll)).contains("\"inWaitingRoom\":false");
  }
}
