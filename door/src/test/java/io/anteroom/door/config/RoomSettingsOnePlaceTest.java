package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.anteroom.door.config.GatewayConfig.EventSettings;
import io.anteroom.door.config.GatewayConfig.OnRepeatedFailure;
import io.anteroom.door.config.GatewayConfig.ProofOfWork;
import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.EventWindow;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A room key lives in one table ({@link RoomKeys}) and one record (a component of {@link
 * RoomSettings} or of one of its groups, named like the key), and an event's overrides apply in one
 * place ({@link RoomSettings#during}). These tests look at the records by reflection, so a key or
 * an override added in one place but not the other fails here.
 */
class RoomSettingsOnePlaceTest {

  @TempDir static Path dir;

  /** A room that sets every key to a value other than its default. */
  static RoomSettings everyKeySet() throws Exception {
    Path key = dir.resolve("invitations.key");
    Files.writeString(key, "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=");
    return ConfigLoader.parseRoom(
        """
        id: every
        host: shop.example
        path: /sale/
        additionalRoutes: [ { host: m.shop.example, path: /m/ } ]
        origin: http://10.0.0.5:8080
        totalActiveUsers: 500
        newUsersPerMinute: 50
        sessionDurationMinutes: 10
        queueRefreshSeconds: 30
        queueTimeoutMinutes: 3
        strategy: evenSplit
        curveFactor: 2
        queueingMethod: reject
        queueAll: true
        suspended: true
        disableSessionRenewal: true
        cookieSuffix: _v2
        cookieSameSite: Strict
        cookieSecure: true
        generation: 7
        template: page.html
        jsonResponse: false
        jsonEnvelope: true
        languages: [ fr, de ]
        language: de
        queueingStatusCode: 429
        rules: [ { action: block, userAgent: "*bot*" } ]
        bypass: [ { path: /static/** } ]
        failMode: closed
        originProtection: { enabled: true, maxLatencyMillis: 200 }
        queueStatusMaxQps: 100
        queueStatusMaxLatencyMillis: 50
        maxQueueRefreshSeconds: 600
        proofOfWork: { enabled: true, difficulty: 20 }
        addressLimit: { newIdentitiesPerMinute: 30 }
        humanCheck: { siteKey: site-key }
        invitations: { keyFile: %s }
        account: { header: X-Account }
        events:
          - { name: launch, eventStartTime: 2026-12-01T18:00:00Z,
              eventEndTime: 2026-12-01T20:00:00Z, totalActiveUsers: 5000 }
        """
            .formatted(key));
  }

  static RoomSettings defaults() {
    return ConfigLoader.parseRoom("id: defaults");
  }

  @Test
  void everyRoomKeyIsExactlyOneComponentOfTheSettingsOrOfOneOfItsGroups() {
    List<String> keys = RoomKeys.ALL.stream().map(RoomKeys.Key::name).sorted().toList();
    List<String> components = new ArrayList<>(leaves(defaults()).keySet());
    components.sort(null);
    assertThat(components).containsExactlyElementsOf(keys);
  }

  @Test
  void everyRoomKeyRoundTripsThroughTheComponentOfItsName() throws Exception {
    RoomSettings every = everyKeySet();
    RoomSettings base = defaults();
    Map<String, Object> expectedBase = leaves(base);
    Map<String, Object> given = leaves(every);
    for (RoomKeys.Key<?> k : RoomKeys.ALL) {
      assertThat(given.get(k.name()))
          .as("the test room sets %s to a value other than its default", k.name())
          .isNotEqualTo(expectedBase.get(k.name()));
      assertThat(k.field().get().apply(every))
          .as("%s is read from the component of its name", k.name())
          .isEqualTo(given.get(k.name()));
      var expected = new LinkedHashMap<>(expectedBase);
      expected.put(k.name(), given.get(k.name()));
      assertThat(leaves(copy(k, every, base)))
          .as("%s is set on the component of its name, and only there", k.name())
          .isEqualTo(expected);
    }
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(every).toString())).isEqualTo(every);
  }

  @Test
  void everyOverrideOfAnEventIsAppliedByTheOnePlaceAndChangesOnlyItsKey() throws Exception {
    RoomSettings room = defaults();
    Map<String, Object> before = leaves(room);
    RecordComponent[] overrides = EventSettings.class.getRecordComponents();
    for (int i = 1; i < overrides.length; i++) { // 0 is the window
      String name = overrides[i].getName();
      Object sample = sample(overrides[i]);
      Object[] args = new Object[overrides.length];
      args[0] = new EventWindow("e", null, Instant.EPOCH, Instant.EPOCH.plusSeconds(60), false);
      for (int j = 1; j < args.length; j++) {
        args[j] = j == i ? Optional.of(sample) : Optional.empty();
      }
      var event =
          (EventSettings)
              EventSettings.class
                  .getDeclaredConstructor(
                      java.util.Arrays.stream(overrides)
                          .map(RecordComponent::getType)
                          .toArray(Class<?>[]::new))
                  .newInstance(args);
      Map<String, Object> after = leaves(room.during(event));
      var changed = new ArrayList<String>();
      before.forEach(
          (k, v) -> {
            if (!v.equals(after.get(k))) {
              changed.add(k);
            }
          });
      String key = name.equals("invitationsRequired") ? "invitations" : name;
      assertThat(changed).as("the keys the override %s changes", name).containsExactly(key);
      Object applied =
          name.equals("invitationsRequired")
              ? room.during(event).protection().invitations().required()
              : after.get(key) instanceof Optional<?> o ? o.orElseThrow() : after.get(key);
      assertThat(applied).as("the value of %s in force", name).isEqualTo(sample);
    }
  }

  @Test
  void theSettingsDuringAnEventHaveNoEventsAndAreTheRoomsOtherwise() throws Exception {
    RoomSettings every = everyKeySet();
    RoomSettings in = every.during(every.events().getFirst());
    assertThat(in.events()).isEmpty();
    assertThat(in.limits().totalActiveUsers()).isEqualTo(5000);
    RoomSettings.Builder back = in.toBuilder().events(every.events());
    back.limits().totalActiveUsers(every.limits().totalActiveUsers());
    assertThat(back.build()).isEqualTo(every);
  }

  private static <T> RoomSettings copy(RoomKeys.Key<T> k, RoomSettings from, RoomSettings to) {
    RoomSettings.Builder b = to.toBuilder();
    k.field().set().accept(b, k.field().get().apply(from));
    return b.build();
  }

  /** A value for an event's override other than the defaults room's own. */
  private static Object sample(RecordComponent c) {
    Type t = ((ParameterizedType) c.getGenericType()).getActualTypeArguments()[0];
    if (t == Integer.class) {
      return 7;
    } else if (t == Boolean.class) {
      return true;
    } else if (t == String.class) {
      return "event.html";
    } else if (t == QueueingMethod.class) {
      return QueueingMethod.RANDOM;
    } else if (t == ProofOfWork.class) {
      return new ProofOfWork(true, 20, 60, OnRepeatedFailure.NONE);
    }
    return fail("no sample value for the override " + c.getName() + " (" + t + "): add one here");
  }

  /**
   * Every key's value by the name of its component: the components of {@link RoomSettings} that are
   * not groups, and those of its groups (its nested records).
   */
  static Map<String, Object> leaves(RoomSettings s) {
    var values = new LinkedHashMap<String, Object>();
    try {
      for (RecordComponent c : RoomSettings.class.getRecordComponents()) {
        Object v = c.getAccessor().invoke(s);
        if (c.getType().isRecord() && c.getType().getEnclosingClass() == RoomSettings.class) {
          for (RecordComponent g : c.getType().getRecordComponents()) {
            Object old = values.put(g.getName(), g.getAccessor().invoke(v));
            assertThat(old).as("%s is in one group only", g.getName()).isNull();
          }
        } else {
          values.put(c.getName(), v);
        }
      }
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
    return values;
  }
}
