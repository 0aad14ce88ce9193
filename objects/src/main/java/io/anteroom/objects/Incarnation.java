package io.anteroom.objects;

import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which instance of a runtime serves a group of objects: {@code group} names the objects that share
 * one runtime (a coordinator's objects, or one shard of a cluster), {@code id} is drawn anew
 * whenever a runtime for them is built. A caller that sees another id for the same group knows that
 * every object of the group was recreated since its last call (a coordinator restart, a new Raft
 * leader): their instances' memory is gone and calls in flight to the old one may have failed at
 * other callers.
 *
 * <p>An object server sends it with each reply ({@code Anteroom-Incarnation: group/id}); {@link
 * io.anteroom.objects.http.IncarnationWatch} counts the changes a client saw.
 *
 * @param group letters, digits, {@code -} and {@code _}, at most 32
 * @param id the runtime instance's random id
 */
public record Incarnation(String group, long id) {
  private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9_-]{1,32}");
  private static final int MAX_TEXT = 32 + 1 + 16;

  public Incarnation {
    Objects.requireNonNull(group, "group");
    if (!GROUP.matcher(group).matches()) {
      throw new IllegalArgumentException(
          "an incarnation's group is 1-32 letters, digits, - or _; got \"" + group + "\"");
    }
  }

  /** {@code group/id}, the id in 16 hex digits: what an object server sends. */
  @Override
  public String toString() {
    return group + "/" + HexFormat.of().toHexDigits(id);
  }

  /** The incarnation in {@code text} ({@link #toString}'s form); empty if it is not one. */
  public static Optional<Incarnation> parse(String text) {
    if (text == null || text.length() > MAX_TEXT) return Optional.empty();
    int slash = text.indexOf('/');
    if (slash < 0 || text.length() - slash - 1 != 16) return Optional.empty();
    String group = text.substring(0, slash);
    if (!GROUP.matcher(group).matches()) return Optional.empty();
    try {
      return Optional.of(
          new Incarnation(group, HexFormat.fromHexDigitsToLong(text.substring(slash + 1))));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
