package io.anteroom.objects;

/**
 * The object already has too many events waiting for its input gate; the call was not delivered.
 * Back off and retry later.
 */
public class ObjectOverloadedException extends RuntimeException {
  public ObjectOverloadedException(String message) {
    super(message);
  }
}
