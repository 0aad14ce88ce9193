package io.anteroom.objects;

/**
 * An exception thrown by an object whose type cannot be re-created on the caller's side (unknown
 * class, checked and undeclared, or no {@code (String)} constructor). Carries the type name and
 * message; {@link #getMessage()} is {@code "type: message"}.
 */
public class ObjectException extends RuntimeException {
  private final String type;
  private final String remoteMessage;

  public ObjectException(String type, String message) {
    super(type + ": " + message);
    this.type = type;
    this.remoteMessage = message;
  }

  /** The fully qualified class name of the exception the object threw. */
  public String type() {
    return type;
  }

  /** The message of the exception the object threw (may be {@code null}). */
  public String remoteMessage() {
    return remoteMessage;
  }
}
