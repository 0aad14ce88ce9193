package io.anteroom.room.violation;

import io.anteroom.objects.ObjectId;

/** A deliberate violation for {@code LayeringTest}: a "room core" class that uses the runtime. */
public final class CoreClassThatImportsObjects {
  private CoreClassThatImportsObjects() {}

  public static String describe(ObjectId id) {
    return id.toString();
  }
}
