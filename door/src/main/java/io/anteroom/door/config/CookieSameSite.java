package io.anteroom.door.config;

/** The ticket cookie's {@code SameSite} attribute (room key {@code cookieSameSite}). */
public enum CookieSameSite {
  STRICT("Strict"),
  /** The default. */
  LAX("Lax"),
  /** Needs {@code cookieSecure: true}: browsers drop {@code SameSite=None} cookies without it. */
  NONE("None");

  private final String configName;

  CookieSameSite(String configName) {
    this.configName = configName;
  }

  /** The value in the YAML file and the admin API, and the attribute value in Set-Cookie. */
  public String configName() {
    return configName;
  }
}
