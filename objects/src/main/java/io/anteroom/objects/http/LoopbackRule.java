package io.anteroom.objects.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The deployment's one rule for traffic nobody authenticates: "a secret unless loopback". An
 * endpoint without authentication (an object server or a gateway's link without the deployment's
 * shared secret, a Raft port without mutual TLS) is allowed only on an address that names this
 * machine alone, where no other host can reach it. The coordinator's and the gateway's commands,
 * the gateway's coordinator link and the object server all ask here, each refusing in its own
 * words.
 */
public final class LoopbackRule {
  private LoopbackRule() {}

  /**
   * Whether {@code host} names only this machine ({@code 127.0.0.0/8}, {@code ::1} with or without
   * brackets, {@code localhost}): every address it resolves to is a loopback address. An empty or
   * unresolvable name is not.
   */
  public static boolean isLoopback(String host) {
    Objects.requireNonNull(host, "host");
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (h.isEmpty()) return false;
    try {
      InetAddress[] all = InetAddress.getAllByName(h);
      for (InetAddress a : all) {
        if (!a.isLoopbackAddress()) return false;
      }
      return all.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * The rule: an endpoint on {@code host} without authentication ({@code authenticated} false) is
   * refused unless {@code host} is a loopback address ({@link #isLoopback}).
   *
   * @throws IllegalArgumentException with {@code refusal}'s words when the endpoint is refused
   */
  public static void require(boolean authenticated, String host, Supplier<String> refusal) {
    if (!authenticated && !isLoopback(host)) {
      throw new IllegalArgumentException(refusal.get());
    }
  }
}
