package io.anteroom.objects;

/**
 * A call could not be delivered or its reply could not be received (connection refused, timeout,
 * malformed reply). Whether the object ran the call is unknown: the transport does not retry.
 */
public class ObjectTransportException extends RuntimeException {
  public ObjectTransportException(String message) {
    super(message);
  }

  public ObjectTransportException(String message, Throwable cause) {
    super(message, cause);
  }
}
