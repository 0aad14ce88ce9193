package io.anteroom.gateway.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logback turbo filter for the replicated coordinator: when a peer's copy of a shard cannot be
 * written (a full disk), the peer says so in one line ({@code peer c3: shard 0 stops on this peer:
 * ...}) and one more when the shard runs again on it. Ratis meanwhile reports the same event with
 * stack traces: its state-machine thread's {@code caught a Throwable} (the {@code
 * ShardStoppedException}), and, for every message the other peers send the stopped shard until it
 * runs again (several a second), {@code Failed appendEntries*} or {@code Failed requestVote} with a
 * {@code ServerNotReadyException} ({@code is not in [STARTING, RUNNING]}) or a {@code
 * GroupMismatchException} ({@code not found}). This filter drops those; other Ratis lines pass
 * unchanged.
 *
 * <p>The exception is known by its class name ({@link #SHARD_STOPPED}): the gateway's module does
 * not carry Raft (module coordinator-server does), and a process without it never sees one.
 *
 * <pre>{@code
 * <configuration>
 *   <turboFilter class="io.anteroom.gateway.log.StoppedShards"/>
 *   ...
 * }</pre>
 *
 * <p>Installed by the shipped {@code logback.xml} and {@code logback-json.xml}.
 */
public final class StoppedShards extends TurboFilter {
  /** The exception a peer's shard stops with: {@code io.anteroom.objects.ratis}'s. */
  static final String SHARD_STOPPED = "io.anteroom.objects.ratis.ShardStoppedException";

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (format == null
        || level == null
        || !level.isGreaterOrEqual(Level.WARN)
        || !logger.getName().startsWith("org.apache.ratis")) {
      return FilterReply.NEUTRAL;
    }
    if (t == null
        && params != null
        && params.length > 0
        && params[params.length - 1] instanceof Throwable last) {
      t = last;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getClass().getName().equals(SHARD_STOPPED)) return FilterReply.DENY;
    }
    String message =
        params == null ? format : MessageFormatter.arrayFormat(format, params).getMessage();
    return notServing(message + (t == null ? "" : "\n" + causes(t)))
        ? FilterReply.DENY
        : FilterReply.NEUTRAL;
  }

  /**
   * Whether {@code text} (a Ratis line and its causes) tells of a message refused because this
   * peer's division of the shard does not run now (stopped, or starting again).
   */
  static boolean notServing(String text) {
    boolean refused =
        text.contains("Failed appendEntries*")
            || text.contains("Failed APPEND_ENTRIES")
            || text.contains("Failed requestVote")
            || text.contains("Failed REQUEST_VOTE");
    boolean notRunning =
        (text.contains("ServerNotReadyException") && text.contains("is not in ["))
            || (text.contains("GroupMismatchException") && text.contains("not found"));
    return refused && notRunning;
  }

  private static String causes(Throwable t) {
    StringBuilder b = new StringBuilder();
    int depth = 0;
    for (Throwable c = t; c != null && depth < 10; c = c.getCause(), depth++) {
      b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return b.toString();
  }
}
