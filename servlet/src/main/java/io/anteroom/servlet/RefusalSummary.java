package io.anteroom.servlet;

import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassRefusal;
import java.time.Clock;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The log of refused passes, summarised: the first refusal is one line at once, later ones are
 * counted by reason and said in one line at most every {@link #PERIOD_MILLIS} (a request without a
 * pass is routine for a site reachable around its gateway, and a flood of them must not flood the
 * log). A line never holds a pass, only the verifier's sentence of the last refusal.
 *
 * <p>Thread safety: counters are atomic; one caller wins each period's line.
 */
final class RefusalSummary {
  /** At most one line per this period. */
  static final long PERIOD_MILLIS = 60_000;

  private static final PassRefusal[] REASONS = PassRefusal.values();

  private final Clock clock;
  private final Consumer<String> log;
  private final String verb;
  private final AtomicLongArray counts = new AtomicLongArray(REASONS.length);
  private final AtomicLong nextLineAt = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong periodStart = new AtomicLong();
  private final AtomicReference<String> last = new AtomicReference<>("");

  /**
   * @param verb what happened to the requests: "refused" (strict) or "let through" (report only)
   */
  RefusalSummary(Clock clock, Consumer<String> log, String verb) {
    this.clock = clock;
    this.log = log;
    this.verb = verb;
  }

  /** Counts one refusal, and says the summary when a line is due. */
  void refused(PassCheck.Refused refused) {
    counts.incrementAndGet(refused.reason().ordinal());
    last.set(refused.reason() + ": " + refused.detail());
    long now = clock.millis();
    long due = nextLineAt.get();
    if (now >= due && nextLineAt.compareAndSet(due, now + PERIOD_MILLIS)) {
      flush(now, due == Long.MIN_VALUE);
    }
  }

  /** Says what was counted since the last line, if anything (at shutdown). */
  void flush() {
    flush(clock.millis(), false);
  }

  private void flush(long now, boolean first) {
    long total = 0;
    var reasons = new StringJoiner(", ");
    for (int i = 0; i < REASONS.length; i++) {
      long n = counts.getAndSet(i, 0);
      if (n > 0) {
        total += n;
        reasons.add(REASONS[i] + " " + n);
      }
    }
    long since = periodStart.getAndSet(now);
    if (total == 0) {
      return;
    }
    log.accept(
        "anteroom pass: "
            + verb
            + " "
            + total
            + (total == 1 ? " request" : " requests")
            + " without a valid pass"
            + (first ? "" : " in the last " + Math.max(1, (now - since) / 1000) + " s")
            + " ("
            + reasons
            + "); last: "
            + last.get()
            + (first ? " (further refusals are summed up once a minute)" : ""));
  }
}
