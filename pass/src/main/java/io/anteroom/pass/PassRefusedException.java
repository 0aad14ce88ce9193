package io.anteroom.pass;

/**
 * Thrown by {@link PassVerifier#requireValid} when a request carries no valid pass: answer it with
 * 403 (or 401) and serve nothing.
 */
public final class PassRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient PassCheck.Refused refusal;

  PassRefusedException(PassCheck.Refused refusal) {
    super("refused " + PassVerifier.HEADER + ": " + refusal.detail());
    this.refusal = refusal;
  }

  /** The rule the pass broke. */
  public PassRefusal reason() {
    return refusal.reason();
  }

  /** The refusal with its detail. */
  public PassCheck.Refused refusal() {
    return refusal;
  }
}
