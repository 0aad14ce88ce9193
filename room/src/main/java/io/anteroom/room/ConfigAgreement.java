package io.anteroom.room;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the gateways of a room agree on its configuration: each gateway reports a fingerprint (a
 * hash of its room settings) with its sync; this class decides which fingerprint is authoritative
 * and which gateways disagree. Pure and deterministic: time comes in as arguments.
 *
 * <p>The rule: among the gateways heard from within {@code window}, the authoritative fingerprint
 * is the one with the highest {@code generation}; among equal generations, the one that was
 * authoritative before stays (it is sticky), and otherwise the one first seen. So the first
 * gateway's configuration holds until a configuration of a newer generation arrives, or until no
 * live gateway reports it any more (the end of a rolling update). Every live gateway with another
 * fingerprint is reported as disagreeing; nothing is overwritten.
 *
 * <pre>{@code
 * var agreement = new ConfigAgreement(Duration.ofSeconds(60));
 * agreement.see(new Fingerprint("gw-a", "dublin", "3f2a…", 0), now);
 * agreement.see(new Fingerprint("gw-b", "nairobi", "9c11…", 0), now);
 * agreement.verdict(now).conflict(); // true: gw-b disagrees with gw-a, which was first
 * }</pre>
 *
 * <p>Not thread-safe: owned by one durable object.
 */
public final class ConfigAgreement {

  /**
   * One gateway's room configuration as it reported it.
   *
   * @param gateway the gateway's process id
   * @param dataCenter its data center
   * @param hash the fingerprint of its room settings (hex)
   * @param generation the room's generation in those settings
   */
  public record Fingerprint(String gateway, String dataCenter, String hash, long generation) {}

  /**
   * The outcome.
   *
   * @param authoritative the fingerprint the room's objects go by (null before any report)
   * @param disagreeing live gateways with another fingerprint, by gateway id; empty when all agree
   */
  public record Verdict(Fingerprint authoritative, List<Fingerprint> disagreeing) {
    public static final Verdict UNKNOWN = new Verdict(null, List.of());

    public Verdict {
      disagreeing = disagreeing == null ? List.of() : List.copyOf(disagreeing);
    }

    /** True when some live gateway disagrees with the authoritative fingerprint. */
    public boolean conflict() {
      return !disagreeing.isEmpty();
    }

    /** True when {@code hash} is not the authoritative fingerprint (and one is known). */
    public boolean disagrees(String hash) {
      return authoritative != null && hash != null && !authoritative.hash().equals(hash);
    }
  }

  private record Sighting(Fingerprint fingerprint, Instant firstSeen, Instant lastSeen) {}

  private final Duration window;
  private final Map<String, Sighting> byGateway = new LinkedHashMap<>();
  private String authoritativeHash;

  /** {@code window}: a gateway not heard from for this long no longer counts. */
  public ConfigAgreement(Duration window) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("config agreement: window must be positive");
    }
    this.window = window;
  }

  /** Records a gateway's fingerprint as reported at {@code now}. */
  public void see(Fingerprint f, Instant now) {
    Sighting old = byGateway.get(f.gateway());
    Instant first = old != null && old.fingerprint().equals(f) ? old.firstSeen() : now;
    byGateway.put(f.gateway(), new Sighting(f, first, now));
  }

  /** The authoritative fingerprint and the disagreeing gateways at {@code now}. */
  public Verdict verdict(Instant now) {
    byGateway.values().removeIf(s -> s.lastSeen().isBefore(now.minus(window)));
    if (byGateway.isEmpty()) {
      return Verdict.UNKNOWN;
    }
    long newest =
        byGateway.values().stream()
            .mapToLong(s -> s.fingerprint().generation())
            .max()
            .orElseThrow();
    List<Sighting> candidates =
        byGateway.values().stream().filter(s -> s.fingerprint().generation() == newest).toList();
    Sighting chosen =
        candidates.stream()
            .filter(s -> s.fingerprint().hash().equals(authoritativeHash))
            .findFirst()
            .orElseGet(
                () ->
                    candidates.stream()
                        .min(
                            Comparator.comparing(Sighting::firstSeen)
                                .thenComparing(s -> s.fingerprint().gateway()))
                        .orElseThrow());
    authoritativeHash = chosen.fingerprint().hash();
    var disagreeing = new ArrayList<Fingerprint>();
    for (Sighting s : byGateway.values()) {
      if (!s.fingerprint().hash().equals(authoritativeHash)) {
        disagreeing.add(s.fingerprint());
      }
    }
    disagreeing.sort(Comparator.comparing(Fingerprint::gateway));
    return new Verdict(chosen.fingerprint(), disagreeing);
  }
}
