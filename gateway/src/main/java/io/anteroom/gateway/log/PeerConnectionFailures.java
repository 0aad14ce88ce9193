package io.anteroom.gateway.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logback turbo filter for the replicated coordinator: while a peer is down, Ratis logs each
 * failed attempt to reach it ({@code WARN GrpcLogAppender ... Failed appendEntries ... UNAVAILABLE:
 * io exception}, with its causes over three lines, and a {@code Follower failed ... retry} line)
 * several times a second. This filter drops those and logs instead, under {@value #LOGGER}, one
 * line at the first failure of a link ({@code peer c1 -> peer c2}), one line a minute with the
 * count while it fails, and one line once failures stopped; never a stack trace. A connection
 * failure is a refused, unreachable or reset connection, or gRPC's {@code UNAVAILABLE} or {@code
 * CANCELLED} (a peer stopping), a request that got no answer in time ({@code Timed out HEARTBEAT
 * appendEntries}, gRPC's {@code DEADLINE_EXCEEDED}: a peer cut off by a partition, whose packets
 * are dropped) and gRPC's connection to such a peer that could not be closed in time (summarised as
 * {@code connections to ADDRESS}). A follower's refusal of an append that raced another of its
 * leader's appends, which Ratis logs as an error with its stack trace though the leader sends it
 * again, becomes one line. A leader's appenders stopping with their peer (interrupted, or their
 * client already closed) are dropped: the peer's stop and its elections have lines of their own.
 * Other Ratis lines pass unchanged.
 *
 * <pre>{@code
 * <configuration>
 *   <turboFilter class="io.anteroom.gateway.log.PeerConnectionFailures"/>
 *   ...
 * }</pre>
 *
 * <p>Installed by the shipped {@code logback.xml} and {@code logback-json.xml}; an operator's own
 * configuration ({@code ANTEROOM_LOG_CONFIG}) adds the line above to have it too.
 */
public final class PeerConnectionFailures extends TurboFilter {
  /** The logger the summary lines are written to. */
  public static final String LOGGER = "io.anteroom.cluster.PeerConnections";

  /** How often a count is logged while a link keeps failing. */
  static final Duration EVERY = Duration.ofMinutes(1);

  /** How long without a failure before a link counts as no longer failing. */
  static final Duration QUIET = Duration.ofSeconds(10);

  /**
   * {@code c1@group-0123456789AB->c2-GrpcLogAppender} or {@code ...->c2-AppendLogResponseHandler}:
   * Ratis' names of a leader's appender to a follower.
   */
  private static final Pattern LINK = Pattern.compile("(\\S+?)@group-\\w+->(\\S+?)-[A-Z]\\w*");

  /** A line about one peer: {@code c2: APPEND_ENTRIES onError ...} or {@code c2@group-...}. */
  private static final Pattern SELF = Pattern.compile("^([\\w.-]+?)(?:@group-\\w+)?[:\\s]");

  /** The appender's line after each failed attempt, which says nothing more. */
  private static final Pattern FOLLOWER_FAILED = Pattern.compile("Follower failed \\(request=");

  /** Ratis' own repetition count: {@code (Repeated 63 times in the last 5.004s)}. */
  private static final Pattern REPEATED = Pattern.compile("\\(Repeated (\\d+) times");

  private static final Pattern ADDRESS =
      Pattern.compile(
          "(Connection refused|No route to host|Connection reset)[^\\n]*?:\\s*(/?[\\w.:\\[\\]-]+)");

  private static final Pattern STATUS =
      Pattern.compile("(UNAVAILABLE|CANCELLED|DEADLINE_EXCEEDED)(: [^\\n]*)?");

  /**
   * A heartbeat or an append that got no answer in time: a peer cut off whose packets are dropped
   * (a partition: nothing refuses), which Ratis logs for every request it had in flight.
   */
  private static final Pattern TIMED_OUT =
      Pattern.compile("Timed out (?:HEARTBEAT )?appendEntries");

  /**
   * gRPC closing a connection to such a peer (a connection replaced while the peer stays silent),
   * which times out too: {@code Timed out gracefully shutting down connection: ...target=ADDR}.
   */
  private static final Pattern CLOSING =
      Pattern.compile("Timed out \\w+ shutting down connection:.*?target=([^}\\s,]+)");

  /**
   * A follower refusing an append because another append from its leader is still running on its
   * log ({@code c5@group-...: Failed appendEntries* ...}, an {@code IllegalStateException: ...
   * Already running a method by ...}): Ratis logs it as an error with its whole stack trace, though
   * the leader only sends it again (seen at a new leader's first appends, 2026-12-01).
   */
  private static final Pattern APPEND_RACE =
      Pattern.compile("^([\\w.-]+?)(?:@group-\\w+)?: Failed appendEntries\\*");

  private static final String RUNNING = "Already running a method";

  /**
   * A leader's appenders stopping, as the peer stops or steps down: {@code
   * c2@group-...->c1-GrpcLogAppender is interrupted: java.lang.InterruptedException}, and {@code
   * Failed to resetClient for c1} with an {@code AlreadyClosedException} (and its stack trace). The
   * peer's stop and its elections have Anteroom's own lines; these say nothing more.
   */
  private static final Pattern APPENDER_STOPPING =
      Pattern.compile("-GrpcLogAppender(?: is interrupted|: Failed to resetClient for )");

  private static final String CLOSED = "AlreadyClosedException";

  private final FailureSummary summary;
  private final boolean timer;
  private ScheduledExecutorService ticks;

  /** As logback builds it: the system clock, a tick every second. */
  public PeerConnectionFailures() {
    this(Clock.systemUTC(), true);
  }

  /** For tests: {@code clock} and no timer ({@link #tick} by hand). */
  PeerConnectionFailures(Clock clock, boolean timer) {
    this.summary = new FailureSummary(clock, EVERY, QUIET);
    this.timer = timer;
  }

  @Override
  public void start() {
    if (timer) {
      ticks =
          Executors.newSingleThreadScheduledExecutor(
              r -> Thread.ofPlatform().daemon().name("anteroom-log-summary").unstarted(r));
      ticks.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
    }
    super.start();
  }

  @Override
  public void stop() {
    if (ticks != null) ticks.shutdownNow();
    super.stop();
  }

  /** Logs the lines time made due (counts, recoveries). */
  void tick() {
    summary.tick().forEach(this::log);
  }

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
    String message =
        params == null ? format : MessageFormatter.arrayFormat(format, params).getMessage();
    String link = link(message, logger.getName());
    if (FOLLOWER_FAILED.matcher(message).find()) {
      // the appender's echo of a failure, which says nothing the failure's own line does not:
      // dropped, also when Ratis' threads log it before that line (a connection failure is then
      // summarised as it comes; any other failure passes with its own line)
      return FilterReply.DENY;
    }
    if (APPENDER_STOPPING.matcher(message).find()
        && (message.contains("InterruptedException")
            || (t != null && causes(t).contains(CLOSED)))) {
      return FilterReply.DENY;
    }
    Matcher race = APPEND_RACE.matcher(message);
    if (race.find() && t != null && causes(t).contains(RUNNING)) {
      log(
          new FailureSummary.Line(
              false,
              "peer "
                  + race.group(1)
                  + ": refused an append from its leader while another of its appends was being"
                  + " written (the leader sends it again)"));
      return FilterReply.DENY;
    }
    Optional<String> detail = connectionFailure(message + (t == null ? "" : "\n" + causes(t)));
    if (detail.isEmpty()) {
      return FilterReply.NEUTRAL;
    }
    Matcher repeated = REPEATED.matcher(message);
    long times = repeated.find() ? Long.parseLong(repeated.group(1)) : 1;
    summary.failed(link, detail.get(), times).ifPresent(this::log);
    return FilterReply.DENY;
  }

  private void log(FailureSummary.Line line) {
    org.slf4j.Logger out =
        getContext() instanceof LoggerContext context
            ? context.getLogger(LOGGER)
            : LoggerFactory.getLogger(LOGGER);
    if (line.warning()) out.warn(line.text());
    else out.info(line.text());
  }

  /** Every throwable of the chain as {@code Class: message}, one a line. */
  private static String causes(Throwable t) {
    StringBuilder b = new StringBuilder();
    int depth = 0;
    for (Throwable c = t; c != null && depth < 10; c = c.getCause(), depth++) {
      b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return b.toString();
  }

  /**
   * What failed, if {@code text} (a Ratis line with its causes) tells of a peer that cannot be
   * reached: no answer in time, the refused address, or gRPC's status.
   */
  static Optional<String> connectionFailure(String text) {
    if (TIMED_OUT.matcher(text).find()) {
      return Optional.of("no answer in time");
    }
    if (CLOSING.matcher(text).find()) {
      return Optional.of("no answer in time while closing");
    }
    Matcher address = ADDRESS.matcher(text);
    if (address.find()) {
      return Optional.of(address.group(1) + ": " + address.group(2));
    }
    if (text.contains("java.net.ConnectException")
        || text.contains("java.net.NoRouteToHostException")) {
      return Optional.of("cannot connect");
    }
    // gRPC's words for a peer that is gone or going: unreachable, or the call cut off as it stopped
    Matcher status = STATUS.matcher(text);
    return status.find() ? Optional.of(status.group().strip()) : Optional.empty();
  }

  /**
   * {@code peer c1 -> peer c2} from Ratis' appender name; else {@code peer c2
   * (GrpcServerProtocolService)} from a line that starts with the peer's id ({@code c2:} or {@code
   * c2@group-...}); else the logger's short name.
   */
  static String link(String message, String logger) {
    Matcher m = LINK.matcher(message);
    if (m.find()) {
      return "peer " + m.group(1) + " -> peer " + m.group(2);
    }
    Matcher closing = CLOSING.matcher(message);
    if (closing.find()) {
      return "connections to " + closing.group(1);
    }
    String source = logger.substring(logger.lastIndexOf('.') + 1);
    Matcher self = SELF.matcher(message);
    return self.find() ? "peer " + self.group(1) + " (" + source + ")" : source;
  }
}
