package io.anteroom.door.violation;

import io.vertx.core.http.HttpServerRequest;

/** A deliberate violation for {@code LayeringTest}: a "door" class that reads a Vert.x request. */
public final class DoorClassThatImportsVertx {
  private DoorClassThatImportsVertx() {}

  public static String path(HttpServerRequest request) {
    return request.path();
  }
}
