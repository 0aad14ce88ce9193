package io.anteroom.room;

/**
 * The estimated wait of a queued user, in minutes.
 *
 * <p>{@code minutes} is the spec's {@code wait(b)}, which counts the user's whole bucket as ahead
 * of it. Users of one bucket are admitted in no particular order, so the user's own place in its
 * bucket is uniform over the bucket's not-yet-eligible users; {@code p25}/{@code p50}/{@code p75}
 * are the waits at the 25/50/75 % points of that place (the same formula with {@code ahead =
 * waitingBefore + q × (waiting(b) - eligible(b))}). For a user whose bucket is not in the state yet
 * the spread collapses to one value.
 *
 * @param known false when nobody was admitted in the last 3 minutes ({@code admissionsPerMinute ==
 *     0})
 * @param ahead {@code ahead(b)}: users of this and older buckets not yet reached by free slots
 * @param minutes {@code wait(b)}; 0 when unknown
 * @param p25 wait at the 25 % point of the user's place in its bucket
 * @param p50 median
 * @param p75 wait at the 75 % point
 * @param place the user's approximate place in line ({@link PlaceInLine}), known also while the
 *     wait is not
 */
public record WaitEstimate(
    boolean known,
    long ahead,
    double minutes,
    double p25,
    double p50,
    double p75,
    PlaceInLine place) {

  static WaitEstimate unknown(long ahead, PlaceInLine place) {
    return new WaitEstimate(false, ahead, 0, 0, 0, 0, place);
  }
}
