package io.anteroom.objects;

/**
 * The object was reset before this call's outcome became durable (a flush failed, or a {@code
 * blockConcurrencyWhile} task failed or timed out): its writes are lost, nothing it did was
 * confirmed, and the next call starts a fresh instance from storage. Safe to retry.
 */
public class ObjectResetException extends RuntimeException {
  public ObjectResetException(String message) {
    super(message);
  }

  public ObjectResetException(String message, Throwable cause) {
    super(message, cause);
  }
}
