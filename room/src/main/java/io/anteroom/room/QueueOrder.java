package io.anteroom.room;

/**
 * In what order a full room lets its waiting users in.
 *
 * <ul>
 *   <li>{@link #FIFO}: by bucket (the minute of first arrival), oldest first.
 *   <li>{@link #RANDOM}: while anyone waits, every waiting user gets one draw per minute with the
 *       same chance, whatever its arrival time ({@link Lottery}); the winners draw slots like new
 *       users, so the limits hold exactly as with FIFO.
 * </ul>
 */
public enum QueueOrder {
  FIFO,
  RANDOM
}
