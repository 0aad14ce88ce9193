package io.anteroom.pass;

import java.util.Objects;

/** What {@link PassVerifier#verify} found: a valid {@link Pass}, or why the pass was refused. */
public sealed interface PassCheck {

  /** The pass verified: its signature, key, type, expiry and room. */
  record Valid(Pass pass) implements PassCheck {
    public Valid {
      Objects.requireNonNull(pass, "pass");
    }
  }

  /**
   * The pass was refused.
   *
   * @param reason the rule it broke
   * @param detail a sentence for logs naming what was found (never the pass itself)
   */
  record Refused(PassRefusal reason, String detail) implements PassCheck {
    public Refused {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }
}
