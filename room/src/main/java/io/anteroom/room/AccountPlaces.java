package io.anteroom.room;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Each account's one place in a room: account key to the place's ticket (its id and its sealed
 * cookie value, opaque here), so that every browser of an account gets the same place. The room's
 * global object keeps one for the whole deployment; each gateway keeps one per room for when the
 * coordinator cannot answer.
 *
 * <p>{@link #place} is one atomic step: look the account's place up and, when an offer is given,
 * store it if the account has no live place, if its place is the one the caller names as replaced
 * (the caller found it over, or renews the same admitted place), or if the offer is that waiting
 * place's first admission (the same id, admitted, where the stored place still waits). Of two
 * browsers of one account that both make a new place at once, the first offer wins and the second
 * is answered the first's place; of two gateways that both let the account's one waiting place in,
 * the first admission wins and the second is answered the first's (so one account holds one
 * session).
 *
 * <p>Invariants: a live place is never forgotten early; when the memory is full of live places a
 * new account's offer is not stored and the answer says so ({@link Reply#full}): the caller keeps
 * its own place then. Memory is bounded by {@code capacity}. Serialized by this object's monitor.
 * Deterministic: time is given.
 */
public final class AccountPlaces {

  /**
   * An account's place.
   *
   * @param ticketId the place's ticket id
   * @param sealed the place's ticket cookie value
   * @param expiresAtMillis when it is forgotten
   * @param admitted whether the ticket is admitted (a session), not waiting
   */
  public record Place(long ticketId, String sealed, long expiresAtMillis, boolean admitted) {}

  /**
   * The answer of {@link #place}.
   *
   * @param place the account's place now (null: none)
   * @param stored whether the offer is now the account's place
   * @param full the memory was full of live places: the offer was not stored
   */
  public record Reply(Place place, boolean stored, boolean full) {}

  private final int capacity;

  private final LinkedHashMap<String, Place> places = new LinkedHashMap<>();

  private long lastSweepMillis = Long.MIN_VALUE / 2;

  /**
   * @param capacity the most places remembered at once
   */
  public AccountPlaces(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    this.capacity = capacity;
  }

  /**
   * Looks up account {@code key}'s place and, with an {@code offer}, stores it when the account has
   * no live place, when its place's ticket id is {@code replacesId}, or when the offer admits the
   * account's waiting place (same ticket id): a second admission of that place (its stored place is
   * admitted already, and {@code replacesId} does not name it) is refused.
   *
   * @param offer the caller's place, or null to look up only
   * @param replacesId the ticket id of the place the offer replaces (0: none)
   */
  public synchronized Reply place(String key, Place offer, long replacesId, long nowMillis) {
    Place current = places.get(key);
    if (current != null && current.expiresAtMillis() <= nowMillis) {
      places.remove(key);
      current = null;
    }
    if (offer == null) {
      return new Reply(current, false, false);
    }
    if (current != null
        && (replacesId == 0 || current.ticketId() != replacesId)
        && !(offer.admitted() && !current.admitted() && offer.ticketId() == current.ticketId())) {
      return new Reply(current, false, false);
    }
    if (current == null && places.size() >= capacity) {
      sweep(nowMillis);
      if (places.size() >= capacity) {
        return new Reply(null, false, true);
      }
    }
    places.remove(key); // re-inserted at the tail: the most recently changed last
    places.put(key, offer);
    return new Reply(offer, true, false);
  }

  /**
   * Remembers {@code place} as account {@code key}'s (what the coordinator answered), unless the
   * memory is full of other live places.
   */
  public synchronized void remember(String key, Place place, long nowMillis) {
    if (!places.containsKey(key) && places.size() >= capacity) {
      sweep(nowMillis);
      if (places.size() >= capacity) {
        return;
      }
    }
    places.remove(key);
    places.put(key, place);
  }

  /** Whether account {@code key} has an entry (live or not yet swept). */
  public synchronized boolean knows(String key) {
    return places.containsKey(key);
  }

  /** How many places are remembered (live or not yet swept). */
  public synchronized int size() {
    return places.size();
  }

  /** Sweeps expired places, at most once a second (a full memory costs one scan a second). */
  private void sweep(long nowMillis) {
    if (nowMillis - lastSweepMillis < 1000) {
      return;
    }
    lastSweepMillis = nowMillis;
    for (Iterator<Place> it = places.values().iterator(); it.hasNext(); ) {
      if (it.next().expiresAtMillis() <= nowMillis) {
        it.remove();
      }
    }
  }
}
