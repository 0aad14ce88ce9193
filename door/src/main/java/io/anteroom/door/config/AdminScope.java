package io.anteroom.door.config;

import java.util.Locale;
import java.util.Optional;

/**
 * What an admin token may do, each scope including the ones before it: {@link #READ} reads (rooms,
 * status, analytics, events, the audit log, metrics), {@link #OPERATE} also flips a room's switches
 * ({@code suspended}, {@code queueAll}) and replaces its events, {@link #ADMIN} also changes
 * everything else (limits and the rest of a room, creating and deleting rooms).
 */
public enum AdminScope {
  READ,
  OPERATE,
  ADMIN;

  /** Whether a token of this scope may call an endpoint that needs {@code needed}. */
  public boolean allows(AdminScope needed) {
    return compareTo(needed) >= 0;
  }

  /** The scope's name in the config and the API: {@code read}, {@code operate}, {@code admin}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The scope named {@code key} (as written in the config), if there is one. */
  public static Optional<AdminScope> parse(String key) {
    for (AdminScope s : values()) {
      if (s.key().equals(key)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
