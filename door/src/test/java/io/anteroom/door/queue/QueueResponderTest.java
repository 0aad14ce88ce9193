package io.anteroom.door.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.config.ConfigLoader;
import io.anteroom.door.config.TemplateDirectory;
import io.anteroom.room.PlaceInLine;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The queue page is rendered once per set of room figures, and anew as soon as one changes. */
class QueueResponderTest {

  private static final long AT = 1_790_000_000_000L;

  private final QueueResponder responder =
      new QueueResponder(
          ConfigLoader.parseRoom("{\"id\":\"shop\",\"totalActiveUsers\":10}"),
          new TemplateDirectory(Optional.empty()));

  private Map<String, Object> fields(int waitMinutes, long lastUpdated) {
    return fields(waitMinutes, lastUpdated, 20);
  }

  private Map<String, Object> fields(int waitMinutes, long lastUpdated, int refreshSeconds) {
    return responder.fields(
        true,
        new QueueView(true, waitMinutes, 1, waitMinutes, 9, lastUpdated),
        false,
        refreshSeconds,
        false);
  }

  private static String text(byte[] page) {
    return new String(page, StandardCharsets.UTF_8);
  }

  @Test
  void usersSeeingTheSameRoomFiguresGetThePageRenderedOnce() {
    byte[] first = responder.htmlBytes(fields(7, AT), AT);
    byte[] second = responder.htmlBytes(fields(7, AT), AT);

    assertThat(second).isSameAs(first);
    assertThat(text(first)).contains("7 minutes");
  }

  @Test
  void aChangedFigureIsRenderedAnewNeverServedFromTheLastPage() {
    byte[] before = responder.htmlBytes(fields(7, AT), AT);

    byte[] longerWait = responder.htmlBytes(fields(12, AT), AT);
    byte[] laterUpdate = responder.htmlBytes(fields(12, AT + 60_000), AT + 60_000);

    assertThat(text(longerWait)).contains("12 minutes").doesNotContain("7 minutes");
    assertThat(laterUpdate).isNotSameAs(longerWait);
    assertThat(text(laterUpdate)).isNotEqualTo(text(longerWait));
    assertThat(text(responder.htmlBytes(fields(7, AT), AT))).isEqualTo(text(before));
  }

  @Test
  void pagesAlternatingBetweenJitteredRefreshIntervalsAreEachRenderedOnce() {
    byte[] five = responder.htmlBytes(fields(7, AT, 5), AT);
    byte[] six = responder.htmlBytes(fields(7, AT, 6), AT);

    assertThat(responder.htmlBytes(fields(7, AT, 5), AT)).isSameAs(five);
    assertThat(responder.htmlBytes(fields(7, AT, 6), AT)).isSameAs(six);
    assertThat(text(five)).isNotEqualTo(text(six));
  }

  @Test
  void aPageFoundByItsFiguresIsThePageOfItsFieldsRenderedOnce() {
    var view = new QueueView(true, 7, 1, 7, 9, AT);
    byte[] page = responder.body(false, AT + 5, true, view, false, 6, false);

    assertThat(text(page))
        .isEqualTo(
            text(responder.htmlBytes(responder.fieldsAt(AT + 5, true, view, false, 6, false), AT)));
    assertThat(responder.body(false, AT + 9, true, view, false, 6, false)).isSameAs(page);
    assertThat(text(responder.body(false, AT + 9, true, view, false, 5, false)))
        .as("another refresh interval")
        .isNotEqualTo(text(page));
  }

  @Test
  void theJsonFoundByItsFiguresIsTheJsonOfItsFieldsWrittenOnce() {
    var view = new QueueView(true, 7, 1, 7, 9, AT);
    byte[] json = responder.body(true, AT + 5, true, view, false, 6, true);

    assertThat(text(json))
        .isEqualTo(responder.json(responder.fieldsAt(AT + 5, true, view, false, 6, true)));
    assertThat(responder.body(true, AT + 9, true, view, false, 6, true)).isSameAs(json);
    assertThat(text(responder.body(true, AT + 9, true, view, false, 6, false)))
        .as("another throttle")
        .contains("\"throttle\":false");
  }

  @Test
  void duringAScheduledEventThePageShowsTheEventAtThatInstant() {
    var withEvent =
        new QueueResponder(
            ConfigLoader.parseRoom(
                "{\"id\":\"shop\",\"totalActiveUsers\":10,\"events\":[{\"name\":\"launch\","
                    + "\"prequeueStartTime\":\"2026-12-01T17:30:00Z\","
                    + "\"eventStartTime\":\"2026-12-01T18:00:00Z\","
                    + "\"eventEndTime\":\"2026-12-01T20:00:00Z\"}]}"),
            new TemplateDirectory(Optional.empty()));
    long prequeue = java.time.Instant.parse("2026-12-01T17:45:00Z").toEpochMilli();
    var view = new QueueView(true, 7, 1, 7, 9, prequeue);

    byte[] during = withEvent.body(false, prequeue, true, view, false, 6, false);
    assertThat(text(during))
        .isEqualTo(
            text(
                withEvent.htmlBytes(
                    withEvent.fieldsAt(prequeue, true, view, false, 6, false), prequeue)));
    assertThat(text(withEvent.body(false, prequeue - 3_600_000, true, view, false, 6, false)))
        .as("before the pre-queue: no event")
        .isNotEqualTo(text(during));
  }

  @Test
  void theStringPageIsTheSameAsTheBytes() {
    Map<String, Object> f = fields(3, AT);
    assertThat(responder.html(f, AT)).isEqualTo(text(responder.htmlBytes(f, AT)));
  }

  @Test
  void thePlaceInLineIsOneRoundedNumberWithinItsBoundAndARangeBeyondIt() {
    var narrow = new QueueView(true, 7, 1, 7, 9, AT, new PlaceInLine(1234, 1180, 1288, true));
    var wide = new QueueView(true, 7, 1, 7, 9, AT, new PlaceInLine(82, 52, 112, false));

    Map<String, Object> one = responder.fields(true, narrow, false, 20, false);
    Map<String, Object> range = responder.fields(true, wide, false, 20, false);

    assertThat(one)
        .containsEntry("placeKnown", true)
        .containsEntry("peopleAhead", 1234L)
        .containsEntry("peopleAheadLow", 1180L)
        .containsEntry("peopleAheadHigh", 1288L)
        .containsEntry("peopleAheadApproximate", true)
        .containsEntry("peopleAheadFormatted", "About 1200 people ahead of you");
    assertThat(range)
        .containsEntry("peopleAheadApproximate", false)
        .containsEntry("peopleAheadFormatted", "Between 52 and 112 people ahead of you");
    assertThat(text(responder.htmlBytes(one, AT))).contains("About 1200 people ahead of you");
    assertThat(responder.json(range)).contains("\"peopleAhead\":82");
  }

  @Test
  void withoutAPlaceOrInARandomQueueNoPlaceIsShown() {
    var random =
        new QueueResponder(
            ConfigLoader.parseRoom(
                "{\"id\":\"shop\",\"totalActiveUsers\":10,\"queueingMethod\":\"random\"}"),
            new TemplateDirectory(Optional.empty()));
    var placed = new QueueView(true, 7, 1, 7, 9, AT, new PlaceInLine(950, 900, 1000, true));

    assertThat(random.fields(true, placed, false, 20, false))
        .containsEntry("placeKnown", false)
        .containsEntry("peopleAheadFormatted", "");
    Map<String, Object> unknown = fields(7, AT);
    assertThat(unknown).containsEntry("placeKnown", false).containsEntry("peopleAhead", 0L);
    assertThat(text(responder.htmlBytes(unknown, AT))).contains("<p id=\"place\" hidden>");
  }

  @Test
  void placesAreRoundedToTwoSignificantDigitsFromAHundredOn() {
    assertThat(PageTexts.roughly(99)).isEqualTo(99);
    assertThat(PageTexts.roughly(1234)).isEqualTo(1200);
    assertThat(PageTexts.roughly(1250)).isEqualTo(1300);
    assertThat(PageTexts.roughly(98_765)).isEqualTo(99_000);
    assertThat(QueueResponder.formatPlace(new PlaceInLine(0, 0, 1, true)))
        .isEqualTo("Nobody is ahead of you");
    assertThat(QueueResponder.formatPlace(new PlaceInLine(1, 0, 3, true)))
        .isEqualTo("About 1 person ahead of you");
    assertThat(PageTexts.of("fr").place(new PlaceInLine(950, 900, 1000, true)))
        .isEqualTo("Environ 950 personnes devant vous");
    assertThat(PageTexts.of("ar").place(new PlaceInLine(2, 0, 4, true)))
        .isEqualTo("حوالي شخصين أمامك");
  }

  @Test
  void thePlaceInLineIsInThePagesLanguage() {
    var view = new QueueView(true, 7, 1, 7, 9, AT, new PlaceInLine(82, 52, 112, false));

    assertThat(text(responder.body(false, "de", AT, true, view, false, 6, false)))
        .contains("Zwischen 52 und 112 Personen vor Ihnen");
  }

  @Test
  void aCustomTemplatesLanguageVariantServesThatLanguageAndTheTemplateTheOthers(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Files.writeString(
        dir.resolve("page.html"), "<html lang=\"{{lang}}\" dir=\"{{dir}}\">{{t.queueTitle}}");
    java.nio.file.Files.writeString(dir.resolve("page.fr.html"), "français: {{waitTimeFormatted}}");
    var custom =
        new QueueResponder(
            ConfigLoader.parseRoom("{ id: shop, template: page.html }"),
            new TemplateDirectory(Optional.of(dir)));
    var view = new QueueView(true, 7, 1, 7, 9, AT);

    assertThat(text(custom.body(false, "fr", AT, true, view, false, 6, false)))
        .isEqualTo("français: 7 minutes");
    assertThat(text(custom.body(false, "ar", AT, true, view, false, 6, false)))
        .isEqualTo("<html lang=\"ar\" dir=\"rtl\">أنت في قائمة الانتظار");
    assertThat(QueueResponder.languageVariant("queue", "de")).isEqualTo("queue.de");
    assertThat(QueueResponder.languageVariant("pages/q.mustache", "ja"))
        .isEqualTo("pages/q.ja.mustache");
  }

  @Test
  void theSameFiguresInTwoLanguagesAreTwoPages() {
    var view = new QueueView(true, 7, 1, 7, 9, AT);
    byte[] en = responder.body(false, "en", AT, true, view, false, 6, false);
    byte[] ko = responder.body(false, "ko", AT, true, view, false, 6, false);

    assertThat(text(en)).contains("7 minutes");
    assertThat(text(ko)).contains("7분").contains("lang=\"ko\"");
    assertThat(responder.body(false, "ko", AT, true, view, false, 6, false)).isSameAs(ko);
  }
}
