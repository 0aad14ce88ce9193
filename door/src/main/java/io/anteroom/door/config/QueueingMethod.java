package io.anteroom.door.config;

/** What a room does with a user it cannot let in now (room key {@code queueingMethod}). */
public enum QueueingMethod {
  /** Queue in arrival order (by bucket): the queue page. The default. */
  FIFO("fifo"),
  /** Everyone goes through; still counted. */
  PASSTHROUGH("passthrough"),
  /** Over the limit: 429 with {@code Retry-After}. */
  REJECT("reject"),
  /**
   * The queue page, but while the room is full every waiting user has the same chance at each
   * minute's admissions, whatever its arrival time (room core {@code QueueOrder.RANDOM}).
   */
  RANDOM("random");

  private final String configName;

  QueueingMethod(String configName) {
    this.configName = configName;
  }

  /** The value in the YAML file, the admin API and the queue JSON. */
  public String configName() {
    return configName;
  }
}
