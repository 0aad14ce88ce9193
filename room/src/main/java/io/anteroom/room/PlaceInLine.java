package io.anteroom.room;

/**
 * A queued user's approximate place in line: how many people wait ahead of it, from what the room's
 * state counts (the waiting users per bucket), never from per-user state.
 *
 * <p>Buckets are admitted oldest first, and the users of one bucket in no particular order. So
 * everyone counted in an older bucket is ahead ({@code low}); of the user's own bucket, anyone may
 * be: {@code high = low + waiting(b)}. {@code ahead} is the middle, {@code low + waiting(b) / 2}:
 * the expected number ahead of a user placed at random in its bucket. A bucket the state does not
 * count yet (its first users' reports are on their way) has nobody of it counted: {@code high =
 * low}.
 *
 * <p>{@code approximate} says whether the middle may be shown as "about N": the bucket's spread on
 * either side is at most {@value #MAX_SPREAD_PERCENT} % of it ({@code (high - low) / 2 ≤ 0.2 ×
 * ahead}), or fewer than {@value #MIN_SPREAD_PEOPLE} people either way. Otherwise the honest answer
 * is the range {@code low..high}. The counts themselves are a few seconds old and still count users
 * who gave up within the last refreshes; how far the middle is from the truth is measured by the
 * simulator ({@code docs/simulation.md}, "Place in line").
 *
 * @param ahead the middle: people ahead of a user at a random place in its bucket
 * @param low people of older buckets (all of them are ahead)
 * @param high {@code low} plus everyone counted in the user's own bucket
 * @param approximate the range is narrow enough to show {@code ahead} as "about N"
 */
public record PlaceInLine(long ahead, long low, long high, boolean approximate) {

  /** The widest spread, either side of the middle, that is still shown as one number. */
  public static final int MAX_SPREAD_PERCENT = 20;

  /** A spread of fewer people than this either way is shown as one number whatever its share. */
  public static final int MIN_SPREAD_PEOPLE = 5;

  public PlaceInLine {
    if (low < 0 || high < low || ahead < low || ahead > high) {
      throw new IllegalArgumentException(
          "place in line: need 0 <= low <= ahead <= high, got " + low + ", " + ahead + ", " + high);
    }
  }

  /** The place of a queued user of {@code bucketId} in {@code state}. */
  public static PlaceInLine of(RoomState state, long bucketId) {
    long before = 0;
    long own = 0;
    for (BucketState b : state.buckets()) {
      if (b.bucketId() < bucketId) {
        before += b.waiting();
      } else if (b.bucketId() == bucketId) {
        own = b.waiting();
      }
    }
    return between(before, before + own);
  }

  /** The place of a user with {@code low..high} people ahead. */
  static PlaceInLine between(long low, long high) {
    long ahead = low + (high - low) / 2;
    long spread = high - ahead; // the larger half
    boolean approximate =
        spread < MIN_SPREAD_PEOPLE || spread * 100 <= (long) MAX_SPREAD_PERCENT * ahead;
    return new PlaceInLine(ahead, low, high, approximate);
  }
}
