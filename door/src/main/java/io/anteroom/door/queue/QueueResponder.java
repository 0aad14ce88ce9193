package io.anteroom.door.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.anteroom.door.admission.RoomGate.QueueView;
import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.door.config.QueueingMethod;
import io.anteroom.door.config.RoomTemplates;
import io.anteroom.door.config.TemplateDirectory;
import io.anteroom.room.PlaceInLine;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Renders what a queued user gets: the HTML page (Mustache; the default ships in the jar, a room's
 * {@code template} replaces it) or, for {@code Accept: application/json}, the JSON body with the
 * field names of the best-known hosted waiting room's mobile JSON plus {@code throttle}. Both come
 * from the same field map, so the page and the JSON never disagree.
 *
 * <p>Thread safety: immutable after construction but for the last page rendered, which is one
 * volatile reference to an immutable pair (scope, bytes); a compiled {@link Mustache} is safe for
 * concurrent use.
 */
public final class QueueResponder {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  /** The room's page by language: its {@code template} (and its language variants) or built-in. */
  private final Map<String, Mustache> page;

  private final QueueingMethod queueingMethod;
  private final boolean jsonResponse;
  private final boolean jsonEnvelope;
  private final RoomSettings room;

  /** The pages of scheduled events with a {@code template} of their own: by event, by language. */
  private final Map<String, Map<String, Mustache>> eventPages = new java.util.HashMap<>();

  /** Picks the language of each page from the request's {@code Accept-Language}. */
  private final LanguageChooser languages;

  /**
   * At most this many pages are kept; the next one starts the set afresh. Room for the few states
   * of the moment (refresh jitter, throttle) in each of the room's languages.
   */
  static final int MAX_PAGES = 256;

  /**
   * The pages rendered, by the scope they were rendered from. A page shows only the room's figures
   * (wait estimates, last update, refresh interval, switches, the running event), never anything of
   * one user, so every queued user of the room gets the same page while they stay as they are.
   * Several are kept, not only the last one: the announced refresh interval carries the pacing's
   * jitter, so consecutive responses alternate between a few intervals (5 and 6 s at 5 s ± 10 %),
   * and a single page was rendered again on about every other response.
   */
  private final Map<Map<String, Object>, byte[]> pages =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * What a page shows outside scheduled events: its whole scope follows from these figures (and
   * this responder's room), so its page is found without building the scope.
   */
  private record Figures(
      String language,
      boolean inWaitingRoom,
      QueueView queue,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {}

  /** The pages outside scheduled events, by their figures (at most {@link #MAX_PAGES}). */
  private final Map<Figures, byte[]> plainPages = new java.util.concurrent.ConcurrentHashMap<>();

  /** The JSON bodies outside scheduled events, by their figures (at most {@link #MAX_PAGES}). */
  private final Map<Figures, byte[]> plainJson = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The room's page: its {@code template} from {@code templates} (with the variants per language
   * found next to it, {@link #languageVariant}), or the built-in one.
   */
  public QueueResponder(RoomSettings room, TemplateDirectory templates) {
    this(room, RoomTemplates.of(templates));
  }

  /**
   * The room's page: its {@code template} from {@code templates} (kept with the room's document,
   * else from {@code templatesDir}; with the variants per language found there, {@link
   * #languageVariant}), or the built-in one.
   */
  public QueueResponder(RoomSettings room, RoomTemplates templates) {
    this.room = room;
    this.languages = new LanguageChooser(room.queuePage().languages(), room.queuePage().language());
    this.page = compileAll(room.queuePage().template(), templates, room.queuePage().languages());
    for (EventSettings e : room.events()) {
      if (e.template().isPresent()) {
        eventPages.put(
            e.window().name(), compileAll(e.template(), templates, room.queuePage().languages()));
      }
    }
    this.queueingMethod = room.limits().queueingMethod();
    this.jsonResponse = room.queuePage().jsonResponse();
    this.jsonEnvelope = room.queuePage().jsonEnvelope();
  }

  /**
   * Compiles the room's template or the default; a broken or refused template is a config error.
   * Partials ({@code {{> name}}}) resolve like the template itself (kept with the room's document,
   * else inside the template directory only); the built-in page has none and may include none.
   */
  static Mustache compile(RoomSettings room, TemplateDirectory templates) {
    return compile(room.queuePage().template(), RoomTemplates.of(templates));
  }

  /**
   * The template by language: under {@code ""} the template itself (or the built-in page), and for
   * each offered language whose variant exists, that variant.
   */
  private static Map<String, Mustache> compileAll(
      Optional<String> template, RoomTemplates templates, java.util.List<String> offered) {
    var all = new java.util.HashMap<String, Mustache>();
    all.put("", compile(template, templates));
    if (template.isPresent()) {
      for (String language : offered) {
        String variant = languageVariant(template.get(), language);
        if (templates.exists(variant)) {
          all.put(language, compile(Optional.of(variant), templates));
        }
      }
    }
    return Map.copyOf(all);
  }

  /**
   * The name of a template's variant for {@code language}: the tag before the last extension
   * ({@code queue.html} → {@code queue.fr.html}; {@code queue} → {@code queue.fr}).
   */
  public static String languageVariant(String template, String language) {
    return RoomTemplates.languageVariant(template, language);
  }

  /** The language of a page for a request whose {@code Accept-Language} is {@code header}. */
  public String language(String acceptLanguage) {
    return languages.choose(acceptLanguage);
  }

  /** The room's own language (its {@code language}). */
  public String defaultLanguage() {
    return room.queuePage().language();
  }

  private static Mustache compile(Optional<String> template, RoomTemplates templates) {
    if (template.isPresent()) {
      try {
        templates.resolve(template.get());
        return templates.compile(template.get());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("template: " + e.getMessage(), e);
      }
    }
    try (Reader reader =
        new InputStreamReader(
            QueueResponder.class.getResourceAsStream("queue-page.mustache"),
            StandardCharsets.UTF_8)) {
      return new DefaultMustacheFactory().compile(reader, "default");
    } catch (IOException e) {
      throw new UncheckedIOException("the built-in queue page is missing from the jar", e);
    }
  }

  public boolean wantsJson(String acceptHeader) {
    return jsonResponse && acceptHeader != null && acceptHeader.contains("application/json");
  }

  /**
   * The JSON/template fields, in the documented order, outside scheduled events, in the room's own
   * language.
   */
  public Map<String, Object> fields(
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    return fields(
        room.queuePage().language(), inWaitingRoom, q, queueAll, refreshIntervalSeconds, throttle);
  }

  /** The JSON/template fields, in the documented order, outside scheduled events. */
  public Map<String, Object> fields(
      String language,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    return fields(
        language, Optional.empty(), inWaitingRoom, q, queueAll, refreshIntervalSeconds, throttle);
  }

  /**
   * The fields at {@code nowMillis}: during a scheduled event (from its pre-queue to its end) also
   * {@code eventName}, {@code eventStartTime}, {@code eventEndTime}, {@code isPrequeue} (before the
   * start: nobody is admitted yet) and {@code secondsUntilEventStart}, and the event's {@code
   * queueingMethod}.
   */
  public Map<String, Object> fieldsAt(
      long nowMillis,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    return fieldsAt(
        room.queuePage().language(),
        nowMillis,
        inWaitingRoom,
        q,
        queueAll,
        refreshIntervalSeconds,
        throttle);
  }

  /** {@link #fieldsAt} with the texts in {@code language}. */
  public Map<String, Object> fieldsAt(
      String language,
      long nowMillis,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    Instant now = Instant.ofEpochMilli(nowMillis);
    Map<String, Object> f =
        fields(
            language,
            room.eventAt(now),
            inWaitingRoom,
            q,
            queueAll,
            refreshIntervalSeconds,
            throttle);
    room.eventAt(now)
        .ifPresent(
            e -> {
              f.put("eventName", e.window().name());
              f.put("eventStartTime", e.window().opensAt().toString());
              f.put("eventEndTime", e.window().closesAt().toString());
              f.put("eventStartFormatted", CLOCK.format(e.window().opensAt()));
              boolean prequeue = e.window().prequeueAt(now);
              f.put("isPrequeue", prequeue);
              f.put(
                  "secondsUntilEventStart",
                  prequeue
                      ? Math.max(
                          0, java.time.Duration.between(now, e.window().opensAt()).toSeconds())
                      : 0);
            });
    return f;
  }

  private Map<String, Object> fields(
      String language,
      Optional<EventSettings> event,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    QueueingMethod queueingMethod =
        event.flatMap(EventSettings::queueingMethod).orElse(this.queueingMethod);
    var f = new LinkedHashMap<String, Object>();
    f.put("inWaitingRoom", inWaitingRoom);
    f.put("waitTimeKnown", q.waitTimeKnown());
    f.put("waitTime", q.waitTimeMinutes());
    f.put("waitTime25Percentile", q.waitTime25Percentile());
    f.put("waitTime50Percentile", q.waitTime50Percentile());
    f.put("waitTime75Percentile", q.waitTime75Percentile());
    f.put(
        "waitTimeFormatted",
        PageTexts.of(language).waitTime(q.waitTimeKnown(), q.waitTimeMinutes()));
    f.put("queueIsFull", q.queueIsFull());
    f.put("queueAll", queueAll);
    f.put("lastUpdated", Instant.ofEpochMilli(q.lastUpdatedMillis()).toString());
    f.put("refreshIntervalSeconds", refreshIntervalSeconds);
    f.put("queueingMethod", queueingMethod.configName());
    f.put("isFIFOQueue", queueingMethod == QueueingMethod.FIFO);
    f.put("isRandomQueue", queueingMethod == QueueingMethod.RANDOM);
    f.put("isPassthroughQueue", queueingMethod == QueueingMethod.PASSTHROUGH);
    f.put("isRejectQueue", queueingMethod == QueueingMethod.REJECT);
    f.put("throttle", throttle);
    // the place in line means nothing in a random queue: everyone has the same chance
    PlaceInLine place = queueingMethod == QueueingMethod.RANDOM ? null : q.place();
    f.put("placeKnown", place != null);
    f.put("peopleAhead", place == null ? 0 : place.ahead());
    f.put("peopleAheadLow", place == null ? 0 : place.low());
    f.put("peopleAheadHigh", place == null ? 0 : place.high());
    f.put("peopleAheadApproximate", place != null && place.approximate());
    f.put("peopleAheadFormatted", PageTexts.of(language).place(place));
    return f;
  }

  /**
   * The JSON body: the fields, or with {@code jsonEnvelope} the fields as the one member {@value
   * #ENVELOPE} (the shape of the hosted room's JSON, so apps written against it read it unchanged).
   */
  public String json(Map<String, Object> fields) {
    ObjectNode node = JSON.valueToTree(fields);
    return jsonEnvelope ? JSON.createObjectNode().set(ENVELOPE, node).toString() : node.toString();
  }

  /** The one member of the JSON body with {@code jsonEnvelope: true}. */
  public static final String ENVELOPE = "cfWaitingRoom";

  /** The HTML page of {@code fields}, in the room's own language. */
  public String html(Map<String, Object> fields, long lastUpdatedMillis) {
    return html(fields, lastUpdatedMillis, room.queuePage().language());
  }

  /** The HTML page of {@code fields} in {@code language}. */
  public String html(Map<String, Object> fields, long lastUpdatedMillis, String language) {
    return new String(htmlBytes(fields, lastUpdatedMillis, language), StandardCharsets.UTF_8);
  }

  /** {@link #htmlBytes(Map, long, String)} in the room's own language. */
  public byte[] htmlBytes(Map<String, Object> fields, long lastUpdatedMillis) {
    return htmlBytes(fields, lastUpdatedMillis, room.queuePage().language());
  }

  /**
   * The HTML page of {@code fields} in {@code language}, UTF-8 encoded: the same array as an
   * earlier call's when the fields are equal (rendered once, then reused), so callers must never
   * write into it. Besides the fields, the scope has {@code lang}, {@code dir} ({@code ltr} or
   * {@code rtl}), {@code t} (the language's texts by key), {@code lastUpdatedFormatted} and, during
   * a pre-queue, {@code prequeueTitle}.
   */
  public byte[] htmlBytes(Map<String, Object> fields, long lastUpdatedMillis, String language) {
    Map<String, Object> scope = scope(fields, lastUpdatedMillis, language);
    return kept(pages, scope, () -> render(scope, language));
  }

  /** The template scope of the page of {@code fields}: see {@link #htmlBytes}. */
  private static Map<String, Object> scope(
      Map<String, Object> fields, long lastUpdatedMillis, String language) {
    PageTexts texts = PageTexts.of(language);
    var scope = new LinkedHashMap<>(fields);
    scope.put("lastUpdatedFormatted", CLOCK.format(Instant.ofEpochMilli(lastUpdatedMillis)));
    scope.put("lang", language);
    scope.put("dir", texts.dir());
    scope.put("t", texts.templateTexts());
    if (fields.containsKey("eventName")) {
      scope.put(
          "prequeueTitle",
          texts.format(
              "prequeueTitle", fields.get("eventName"), fields.get("eventStartFormatted")));
    }
    return scope;
  }

  /** The page of {@code scope} in {@code language}'s template (the event's, if it has one). */
  private byte[] render(Map<String, Object> scope, String language) {
    var out = new StringWriter(4096);
    Map<String, Mustache> byLanguage = eventPages.getOrDefault(scope.get("eventName"), page);
    byLanguage.getOrDefault(language, byLanguage.get("")).execute(out, scope);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The page kept in {@code pages} under {@code key}, rendered and kept first if there is none; the
   * pages are dropped once {@link #MAX_PAGES} are kept (the figures moved on: the pages of older
   * states are not shown again).
   */
  private static <K> byte[] kept(
      Map<K, byte[]> pages, K key, java.util.function.Supplier<byte[]> render) {
    byte[] kept = pages.get(key);
    if (kept != null) {
      return kept;
    }
    byte[] utf8 = render.get();
    if (pages.size() >= MAX_PAGES) {
      pages.clear();
    }
    byte[] raced = pages.putIfAbsent(key, utf8);
    return raced != null ? raced : utf8;
  }

  /**
   * The body at {@code nowMillis}, UTF-8 encoded: the JSON ({@link #json}) or the HTML page ({@link
   * #htmlBytes}, with the queue's last update) of {@link #fieldsAt}. Outside scheduled events it is
   * looked up by its figures, without building its fields first: a queued user's refresh, or an
   * app's status poll, is the gateway's most frequent request in a sale. The array may be shared:
   * callers must never write into it.
   */
  public byte[] body(
      boolean json,
      long nowMillis,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    return body(
        json,
        room.queuePage().language(),
        nowMillis,
        inWaitingRoom,
        q,
        queueAll,
        refreshIntervalSeconds,
        throttle);
  }

  /**
   * {@link #body(boolean, long, boolean, QueueView, boolean, int, boolean)} in {@code language}.
   */
  public byte[] body(
      boolean json,
      String language,
      long nowMillis,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle) {
    return byFigures(
        json ? plainJson : plainPages,
        nowMillis,
        new Figures(language, inWaitingRoom, q, queueAll, refreshIntervalSeconds, throttle),
        json
            ? fields -> json(fields).getBytes(StandardCharsets.UTF_8)
            : fields -> htmlBytes(fields, q.lastUpdatedMillis(), language));
  }

  /**
   * {@link #body} with a queued user's draw receipt ({@link DrawResponder#receipt}) as the member
   * {@code drawReceipt} (and on the page): rendered for this user alone, never kept; without a
   * receipt, {@link #body}.
   */
  public byte[] body(
      boolean json,
      String language,
      long nowMillis,
      boolean inWaitingRoom,
      QueueView q,
      boolean queueAll,
      int refreshIntervalSeconds,
      boolean throttle,
      Map<String, Object> receipt) {
    if (receipt == null) {
      return body(
          json, language, nowMillis, inWaitingRoom, q, queueAll, refreshIntervalSeconds, throttle);
    }
    Map<String, Object> fields =
        fieldsAt(language, nowMillis, inWaitingRoom, q, queueAll, refreshIntervalSeconds, throttle);
    fields.put("drawReceipt", receipt);
    if (json) {
      return json(fields).getBytes(StandardCharsets.UTF_8);
    }
    Map<String, Object> scope = scope(fields, q.lastUpdatedMillis(), language);
    scope.put("drawReceiptJson", json(receipt));
    return render(scope, language);
  }

  /**
   * {@code render} of the fields of {@code figures} at {@code nowMillis}: kept in {@code cache} by
   * the figures outside scheduled events, rendered each time during one (its fields then depend on
   * the instant).
   */
  private byte[] byFigures(
      Map<Figures, byte[]> cache,
      long nowMillis,
      Figures f,
      java.util.function.Function<Map<String, Object>, byte[]> render) {
    if (!room.events().isEmpty() && room.eventAt(Instant.ofEpochMilli(nowMillis)).isPresent()) {
      return render.apply(
          fieldsAt(
              f.language(),
              nowMillis,
              f.inWaitingRoom(),
              f.queue(),
              f.queueAll(),
              f.refreshIntervalSeconds(),
              f.throttle()));
    }
    return kept(
        cache,
        f,
        () ->
            render.apply(
                fields(
                    f.language(),
                    Optional.empty(),
                    f.inWaitingRoom(),
                    f.queue(),
                    f.queueAll(),
                    f.refreshIntervalSeconds(),
                    f.throttle())));
  }

  /** {@code peopleAheadFormatted} in English (the tests' reference). */
  static String formatPlace(PlaceInLine place) {
    return PageTexts.of("en").place(place);
  }

  /** {@code waitTimeFormatted} in English (the tests' reference). */
  static String formatWait(boolean known, int minutes) {
    return PageTexts.of("en").waitTime(known, minutes);
  }
}
