package io.anteroom.coordinator;

import java.util.List;

/**
 * Where a deployment's webhooks go: the URLs every room state change is posted to, and the secret
 * their bodies are signed with ({@link io.anteroom.room.report.WebhookSignature}). Read from the
 * config's {@code webhooks} key by the process that hosts the room objects.
 *
 * @param urls http(s) URLs; empty: no webhooks (changes are still numbered and logged)
 * @param secret the HMAC key (the secret file's bytes, trimmed); empty when there are no URLs
 */
public record WebhookTargets(List<String> urls, byte[] secret) {

  public static final WebhookTargets NONE = new WebhookTargets(List.of(), new byte[0]);

  public WebhookTargets {
    urls = List.copyOf(urls);
    secret = secret.clone();
    if (!urls.isEmpty() && secret.length == 0) {
      throw new IllegalArgumentException("webhooks: URLs need a signing secret");
    }
  }

  @Override
  public byte[] secret() {
    return secret.clone();
  }
}
