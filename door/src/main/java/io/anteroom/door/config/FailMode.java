package io.anteroom.door.config;

/**
 * What a room does with new and queued users while its coordinator is unreachable (room key {@code
 * failMode}); admitted users are always served.
 */
public enum FailMode {
  /** Decide from the last known state with even split (one fallback worker per process). */
  DEGRADE("degrade"),
  /** Let new users in (still counted). */
  OPEN("open"),
  /** Queue them. */
  CLOSED("closed");

  private final String configName;

  FailMode(String configName) {
    this.configName = configName;
  }

  /** The value in the YAML file and the admin API. */
  public String configName() {
    return configName;
  }
}
