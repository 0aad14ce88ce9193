package io.anteroom.door;

/**
 * The origin's response to a passed request, as the adapter is about to send it to the client
 * (proxy) or as the application has set it so far (filter): its status and the headers the door
 * reads and edits ({@link Door#onOriginResponse}).
 */
public interface OriginResponse {

  /** The status the origin answered. */
  int status();

  /** The first value of header {@code name}, or null. */
  String header(String name);

  /** Sets header {@code name} to {@code value}, replacing any value it had. */
  void set(String name, String value);

  /** Adds a value of header {@code name} (for {@code Set-Cookie}). */
  void add(String name, String value);

  /** Removes header {@code name}. */
  void remove(String name);
}
