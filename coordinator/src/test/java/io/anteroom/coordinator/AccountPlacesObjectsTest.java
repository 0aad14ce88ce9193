package io.anteroom.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.objects.ManualScheduler;
import io.anteroom.objects.Runtime;
import io.anteroom.room.AccountPlaces.Place;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each account's one place at the room's global object, across a restart of the coordinator. */
class AccountPlacesObjectsTest {
  static final Instant START = Instant.parse("2026-01-01T10:00:00Z");
  static final String ALICE = "YWxpY2UtYWNjbnQh"; // 12 bytes, base64url
  static final String BOB = "Ym9iLWFjY291bnQh";

  static Place place(long id, boolean admitted) {
    return new Place(id, "sealed-" + id, START.plus(Duration.ofHours(24)).toEpochMilli(), admitted);
  }

  @Test
  void aRestartedCoordinatorKnowsEachAccountsPlaceAndItsOneAdmission(@TempDir Path dir) {
    try (Runtime runtime =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(START)).build()) {
      GlobalCoordinator global = RoomObjects.register(runtime).global("shop");
      assertThat(global.place(ALICE, place(1, false), 0).stored()).isTrue();
      assertThat(global.place(ALICE, place(1, true), 0).stored()).as("its admission").isTrue();
      assertThat(global.place(BOB, place(2, false), 0).stored()).isTrue();
    }

    try (Runtime restarted =
        Runtime.builder()
            .dataDir(dir)
            .scheduler(new ManualScheduler(START.plusSeconds(60)))
            .build()) {
      GlobalCoordinator global = RoomObjects.register(restarted).global("shop");

      assertThat(global.place(ALICE, null, 0).place()).isEqualTo(place(1, true));
      var second = global.place(ALICE, new Place(1, "elsewhere", Long.MAX_VALUE, true), 0);
      assertThat(second.stored()).as("a second admission of alice's place").isFalse();
      var newPlace = global.place(BOB, place(3, false), 0);
      assertThat(newPlace.stored()).as("a second place for bob").isFalse();
      assertThat(newPlace.place()).isEqualTo(place(2, false));
    }
  }

  @Test
  void aStoredPlaceIsForgottenOnceItExpires(@TempDir Path dir) {
    try (Runtime runtime =
        Runtime.builder().dataDir(dir).scheduler(new ManualScheduler(START)).build()) {
      RoomObjects.register(runtime).global("shop").place(ALICE, place(1, false), 0);
    }

    try (Runtime restarted =
        Runtime.builder()
            .dataDir(dir)
            .scheduler(new ManualScheduler(START.plus(Duration.ofHours(25))))
            .build()) {
      GlobalCoordinator global = RoomObjects.register(restarted).global("shop");

      assertThat(global.place(ALICE, null, 0).place()).isNull();
      assertThat(global.place(ALICE, place(4, false), 0).stored()).isTrue();
    }
  }

  @Test
  void expiredStoredPlacesAreDeletedByTheRoomsAlarm() {
    ManualScheduler time = new ManualScheduler(START);
    var storage = new io.anteroom.objects.storage.InMemoryStorageEngine();
    try (Runtime runtime = Runtime.builder().storage(storage).virtualTime(time).build()) {
      RoomObjects objects = RoomObjects.register(runtime);
      objects.global("shop").place(ALICE, place(1, false), 0); // for 24 hours
      objects.global("shop").place(BOB, place(2, false), 0);
      assertThat(storedKeys(storage)).contains(GlobalObject.PLACE_PREFIX + ALICE);

      time.advance(Duration.ofHours(23));
      long dayLater = time.clock().instant().plus(Duration.ofHours(24)).toEpochMilli();
      objects.global("shop").place(BOB, new Place(2, "sealed-2", dayLater, true), 0); // admitted
      time.advance(Duration.ofHours(2));
      Instant now = time.clock().instant();
      var activity = new java.util.TreeMap<Long, io.anteroom.room.history.MinuteActivity>();
      activity.put(
          io.anteroom.room.history.RoomHistory.minuteOf(now),
          new io.anteroom.room.history.MinuteActivity(0, 1, 0, 0, 0, null));
      objects
          .dataCenter("shop", "dublin")
          .report(
              RoomObjectsTest.CONFIG,
              new io.anteroom.room.WorkerReport(
                  "w", 1, "dublin", now, io.anteroom.room.Deltas.EMPTY, activity));

      assertThat(
              time.advanceUntil(
                  RoomObjectsTest.CONFIG.dataCenterReportInterval().plusSeconds(1),
                  5,
                  () -> !storedKeys(storage).contains(GlobalObject.PLACE_PREFIX + ALICE)))
          .as("alice's expired place deleted at an alarm of the room")
          .isTrue();
      assertThat(storedKeys(storage)).contains(GlobalObject.PLACE_PREFIX + BOB);
    }
  }

  /** The global object's committed keys. */
  private static java.util.Set<String> storedKeys(
      io.anteroom.objects.storage.InMemoryStorageEngine storage) {
    return storage
        .rows(
            RoomObjects.GLOBAL_NAMESPACE
                + "/"
                + io.anteroom.objects.ObjectId.fromName(RoomObjects.GLOBAL_NAMESPACE, "shop"))
        .keySet();
  }
}
