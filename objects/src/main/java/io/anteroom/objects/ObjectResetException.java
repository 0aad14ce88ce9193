package io.anteroom.objects;

/**
 * The object was reset before this call's outcome became durable (a flush failed, or a {@code
 * blockConcurrencyWhile} task failed or timed out, or the runtime was fenced by {@link
 * Runtime#resetAll}): nothing it did was confirmed, and the next call starts a fresh instance from
 * storage. With a local engine its writes are lost and a retry is safe. With a replicated engine
 * whose leader was deposed while the call's commit was in flight, a later leader may still commit
 * those writes (the engine's exception says so): retry then only a call whose effect is idempotent
 * or checked against storage.
 */
public class ObjectResetException extends RuntimeException {
  public ObjectResetException(String message) {
    super(message);
  }

  public ObjectResetException(String message, Throwable cause) {
    super(message, cause);
  }
}
