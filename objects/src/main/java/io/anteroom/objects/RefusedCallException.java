package io.anteroom.objects;

/**
 * The server answered the call with an HTTP error status instead of the object's reply: the call
 * was refused (a bad signature: 401; an unknown object or method: 404; a body too large: 413) or
 * failed in the object (500). The status tells a caller which, without reading the message.
 */
public class RefusedCallException extends ObjectTransportException {
  private final int status;

  public RefusedCallException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** The HTTP status the server answered. */
  public int status() {
    return status;
  }

  /**
   * The status of the first {@link RefusedCallException} in {@code failure}'s causes, or 0 when
   * none (the call failed in the network, or for another reason).
   */
  public static int statusOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RefusedCallException refused) {
        return refused.status();
      }
    }
    return 0;
  }
}
