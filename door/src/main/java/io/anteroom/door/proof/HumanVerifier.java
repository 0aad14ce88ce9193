package io.anteroom.door.proof;

import java.util.concurrent.CompletionStage;

/**
 * Verifies, server-side, the token a human-check widget gave a browser. Pluggable: {@link
 * SiteVerify} speaks the siteverify protocol that Cloudflare Turnstile, hCaptcha and reCAPTCHA
 * share; another provider is another implementation.
 */
public interface HumanVerifier {

  /** What the provider said. */
  enum Outcome {
    /** A valid, unused token for this site. */
    PASSED,
    /** The provider refused the token (invalid, expired, used before, another site). */
    FAILED,
    /** No usable answer: the endpoint is down, slow, or answered something else. */
    UNAVAILABLE
  }

  /** The outcome and, for the log, a short detail (the provider's error codes, the failure). */
  record Result(Outcome outcome, String detail) {}

  /**
   * Verifies {@code token} for a client at {@code remoteIp} (null when unknown). Never fails the
   * stage: a failure to ask is {@link Outcome#UNAVAILABLE}.
   */
  CompletionStage<Result> verify(String token, String remoteIp);
}
