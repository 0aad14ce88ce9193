package io.anteroom.room;

import io.anteroom.room.slots.StrategyKind;
import java.time.Duration;

/**
 * The limits and tuning of one room, validated on construction.
 *
 * <pre>{@code
 * RoomConfig shop = RoomConfig.builder("shop")
 *         .totalActiveUsers(1000)          // T
 *         .newUsersPerMinute(200)          // N
 *         .sessionDurationMinutes(10)      // S
 *         .build();                        // counters strategy, spec rules, documented defaults
 * RoomConfig literal = shop.withStrategy(StrategyKind.EVEN_SPLIT).withRules(Rules.published());
 * }</pre>
 *
 * @param roomId the room's identifier (non-blank)
 * @param totalActiveUsers T: users allowed on the site at once (≥ 1)
 * @param newUsersPerMinute N: users allowed in per minute (≥ 1)
 * @param sessionDurationMinutes S: minutes an admitted ticket stays valid after its last check-in
 *     (1..1440)
 * @param queueRefreshSeconds R: how often a waiting user's page refreshes (1..300, default 20)
 * @param queueTimeout a waiting ticket older than this loses its bucket (≥ R, ≤ 24 h, default 5
 *     min)
 * @param strategy how workers spend slots (default {@link StrategyKind#COUNTERS})
 * @param curveFactor exponent of the utilization multiplier (0 &lt; c ≤ 10, default 1)
 * @param historyLagMinutes traffic of minute {@code m - lag} splits the slots between data centers
 *     (1..10, default 2)
 * @param workerReportInterval r_w: a worker reports at least this often (1 s..30 s, default 5 s)
 * @param dataCenterReportInterval r_dc: a data center reports to the global object this often (1
 *     s..60 s, default 5 s)
 * @param rules spec or published rules (default {@link Rules#spec()})
 * @param sessionRenewal each request of an admitted user renews its session (default true); when
 *     false a session ends {@code S} after admission whatever the user does
 * @param queueOrder the order a full room lets waiting users in (default {@link QueueOrder#FIFO};
 *     null reads as FIFO, for configs stored before the field existed)
 * @param event the scheduled event whose settings this config carries (pre-queue, start, shuffle);
 *     null outside events
 */
public record RoomConfig(
    String roomId,
    int totalActiveUsers,
    int newUsersPerMinute,
    int sessionDurationMinutes,
    int queueRefreshSeconds,
    Duration queueTimeout,
    StrategyKind strategy,
    double curveFactor,
    int historyLagMinutes,
    Duration workerReportInterval,
    Duration dataCenterReportInterval,
    Rules rules,
    boolean sessionRenewal,
    QueueOrder queueOrder,
    EventWindow event) {

  /** A worker counts as active while it reported within this window (spec: 30 s). */
  public static final Duration WORKER_ACTIVE_WINDOW = Duration.ofSeconds(30);

  public RoomConfig {
    String where = "room '" + roomId + "': ";
    if (roomId == null || roomId.isBlank()) {
      throw new IllegalArgumentException("room config: roomId must be a non-blank string");
    }
    requireRange(where, "totalActiveUsers", totalActiveUsers, 1, 100_000_000);
    requireRange(where, "newUsersPerMinute", newUsersPerMinute, 1, 100_000_000);
    requireRange(where, "sessionDurationMinutes", sessionDurationMinutes, 1, 1440);
    requireRange(where, "queueRefreshSeconds", queueRefreshSeconds, 1, 300);
    requireNonNull(where, "queueTimeout", queueTimeout);
    if (queueTimeout.compareTo(Duration.ofSeconds(queueRefreshSeconds)) < 0
        || queueTimeout.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException(
          where
              + "queueTimeout is "
              + readable(queueTimeout)
              + "; allowed: at least queueRefreshSeconds ("
              + queueRefreshSeconds
              + " s) and at most 24 h");
    }
    requireNonNull(where, "strategy", strategy);
    if (!(curveFactor > 0 && curveFactor <= 10)) {
      throw new IllegalArgumentException(
          where + "curveFactor is " + curveFactor + "; allowed: 0 < curveFactor <= 10");
    }
    requireRange(where, "historyLagMinutes", historyLagMinutes, 1, 10);
    requireDuration(where, "workerReportInterval", workerReportInterval, Duration.ofSeconds(30));
    requireDuration(
        where, "dataCenterReportInterval", dataCenterReportInterval, Duration.ofSeconds(60));
    requireNonNull(where, "rules", rules);
    if (queueOrder == null) {
      queueOrder = QueueOrder.FIFO;
    }
  }

  /** A builder with the documented defaults; T, N and S must be set. */
  public static Builder builder(String roomId) {
    return new Builder(roomId);
  }

  /** A builder holding this config, to change some of its fields. */
  public Builder toBuilder() {
    Builder b = new Builder(roomId);
    b.totalActiveUsers = totalActiveUsers;
    b.newUsersPerMinute = newUsersPerMinute;
    b.sessionDurationMinutes = sessionDurationMinutes;
    b.queueRefreshSeconds = queueRefreshSeconds;
    b.queueTimeout = queueTimeout;
    b.strategy = strategy;
    b.curveFactor = curveFactor;
    b.historyLagMinutes = historyLagMinutes;
    b.workerReportInterval = workerReportInterval;
    b.dataCenterReportInterval = dataCenterReportInterval;
    b.rules = rules;
    b.sessionRenewal = sessionRenewal;
    b.queueOrder = queueOrder;
    b.event = event;
    return b;
  }

  public RoomConfig withStrategy(StrategyKind s) {
    return toBuilder().strategy(s).build();
  }

  /** This config during {@code e} (null: outside events). */
  public RoomConfig withEvent(EventWindow e) {
    return toBuilder().event(e).build();
  }

  public RoomConfig withRules(Rules r) {
    return toBuilder().rules(r).build();
  }

  /**
   * {@code W = r_w + 2 × r_dc}: the longest an admission takes to reach every data center's state
   * (a worker's report, its data center's sync with the global object, and the other data centers'
   * sync).
   */
  public Duration propagationWindow() {
    return workerReportInterval.plus(dataCenterReportInterval.multipliedBy(2));
  }

  /**
   * Whether the counters carry the previous minute's late admissions into the next minute's limits
   * ({@link MinuteCounter#take(long, long, java.time.Instant, java.time.Instant)}), in place of the
   * pool's in-flight margin: with the spec's rules, under the counters strategy. The other
   * strategies count on each worker and keep the margin; the published rules keep the spec's
   * formula.
   */
  public boolean countersCarryLateAdmissions() {
    return rules.inFlightMargin() && strategy == StrategyKind.COUNTERS;
  }

  /** S as a duration. */
  public Duration sessionDuration() {
    return Duration.ofMinutes(sessionDurationMinutes);
  }

  private static void requireRange(String where, String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          where + field + " is " + value + "; allowed: " + min + ".." + max);
    }
  }

  private static void requireNonNull(String where, String field, Object value) {
    if (value == null) {
      throw new IllegalArgumentException(where + field + " is missing");
    }
  }

  private static void requireDuration(String where, String field, Duration value, Duration max) {
    requireNonNull(where, field, value);
    if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          where + field + " is " + readable(value) + "; allowed: 1 s.." + max.toSeconds() + " s");
    }
  }

  /** A duration as a person writes it ("90 s", "5 min", "250 ms"), not ISO-8601's "PT1M30S". */
  static String readable(Duration d) {
    if (d.isZero()) return "0 s";
    if (d.toMillis() % 1000 != 0 || d.toNanos() % 1_000_000 != 0) return d.toMillis() + " ms";
    long seconds = d.toSeconds();
    return seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
  }

  /** Builds a {@link RoomConfig}; unset optional fields take the defaults listed on the record. */
  public static final class Builder {
    private final String roomId;
    private int totalActiveUsers = -1;
    private int newUsersPerMinute = -1;
    private int sessionDurationMinutes = -1;
    private int queueRefreshSeconds = 20;
    private Duration queueTimeout = Duration.ofMinutes(5);
    private StrategyKind strategy = StrategyKind.COUNTERS;
    private double curveFactor = 1.0;
    private int historyLagMinutes = 2;
    private Duration workerReportInterval = Duration.ofSeconds(5);
    private Duration dataCenterReportInterval = Duration.ofSeconds(5);
    private Rules rules = Rules.spec();
    private boolean sessionRenewal = true;
    private QueueOrder queueOrder = QueueOrder.FIFO;
    private EventWindow event;

    private Builder(String roomId) {
      this.roomId = roomId;
    }

    public Builder totalActiveUsers(int t) {
      this.totalActiveUsers = t;
      return this;
    }

    public Builder newUsersPerMinute(int n) {
      this.newUsersPerMinute = n;
      return this;
    }

    public Builder sessionDurationMinutes(int s) {
      this.sessionDurationMinutes = s;
      return this;
    }

    public Builder queueRefreshSeconds(int r) {
      this.queueRefreshSeconds = r;
      return this;
    }

    public Builder queueTimeout(Duration d) {
      this.queueTimeout = d;
      return this;
    }

    /**
     * The same as {@code queueTimeout(Duration.ofMinutes(minutes))}: the config file's {@code
     * queueTimeoutMinutes}.
     */
    public Builder queueTimeoutMinutes(int minutes) {
      this.queueTimeout = Duration.ofMinutes(minutes);
      return this;
    }

    public Builder strategy(StrategyKind s) {
      this.strategy = s;
      return this;
    }

    public Builder curveFactor(double c) {
      this.curveFactor = c;
      return this;
    }

    public Builder historyLagMinutes(int lag) {
      this.historyLagMinutes = lag;
      return this;
    }

    public Builder workerReportInterval(Duration d) {
      this.workerReportInterval = d;
      return this;
    }

    public Builder dataCenterReportInterval(Duration d) {
      this.dataCenterReportInterval = d;
      return this;
    }

    public Builder rules(Rules r) {
      this.rules = r;
      return this;
    }

    public Builder sessionRenewal(boolean renew) {
      this.sessionRenewal = renew;
      return this;
    }

    public Builder queueOrder(QueueOrder order) {
      this.queueOrder = order;
      return this;
    }

    public Builder event(EventWindow e) {
      this.event = e;
      return this;
    }

    public RoomConfig build() {
      return new RoomConfig(
          roomId,
          totalActiveUsers,
          newUsersPerMinute,
          sessionDurationMinutes,
          queueRefreshSeconds,
          queueTimeout,
          strategy,
          curveFactor,
          historyLagMinutes,
          workerReportInterval,
          dataCenterReportInterval,
          rules,
          sessionRenewal,
          queueOrder,
          event);
    }
  }
}
