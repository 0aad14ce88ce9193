package io.anteroom.objects;

/**
 * Implemented by an object class (not its RPC interface) that uses {@link Storage#setAlarm}. The
 * runtime calls {@link #alarm()} as an event at or after the alarm's time. The alarm is deleted
 * when the handler returns unless it set a new one; a handler that throws is retried with
 * exponential backoff (2 s, doubling, 6 retries).
 *
 * <pre>{@code
 * class Reminder implements ReminderApi, AlarmHandler {
 *     public void alarm() { storage.put("fired", true); }
 * }
 * }</pre>
 */
public interface AlarmHandler {
  void alarm() throws Exception;
}
