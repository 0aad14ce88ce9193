package io.anteroom.room;

import java.time.Instant;

/**
 * The slots of one minute, fixed when the minute starts and refilled as the minute's sessions expire
 * ({@code waiting-room.md}, "The per-minute pool"):
 * <pre>
 * inFlight = ceil(admissionsPerMinute × (r_w + 2 × r_dc) / 60)
 * R   = T - activeUsers(minute start) - inFlight        (spec rules: T - Σ_{e ≥ m} H[e] - inFlight)
 * N_m = N - admitted(m)
 * E   = H[m]                                            (0 with published rules: no refill)
 * G(t) = max(0, min(N_m, R + floor(E × f)))
 * </pre>
 *
 * @param minute       the minute m
 * @param base         R
 * @param newUsersLeft N_m
 * @param expiring     E
 */
public record MinutePool(long minute, long base, long newUsersLeft, long expiring) {

    /** The pool of {@code minute} from a state held when the minute starts (or the coordinator's, within it). */
    static MinutePool of(long minute, RoomState state, RoomConfig config) {
        Rules rules = config.rules();
        long activeAtStart = Counting.activeUsers(state.activeByExpiryMinute(), Minutes.startOf(minute), rules);
        long inFlight = rules.inFlightMargin() ? inFlight(state.admissionsPerMinute(), config) : 0;
        long admitted = state.minute() == minute ? state.newUsersThisMinute() : 0;
        long expiring = rules.poolRefill() ? Math.max(0, state.activeByExpiryMinute().getOrDefault(minute, 0L)) : 0;
        return new MinutePool(minute, config.totalActiveUsers() - activeAtStart - inFlight,
                config.newUsersPerMinute() - admitted, expiring);
    }

    /** Admissions too recent to be in any state: {@code ceil(admissionsPerMinute × (r_w + 2 × r_dc) / 60)}. */
    static long inFlight(double admissionsPerMinute, RoomConfig config) {
        double seconds = config.workerReportInterval().toMillis() / 1000.0
                + 2 * config.dataCenterReportInterval().toMillis() / 1000.0;
        return (long) Math.ceil(admissionsPerMinute * seconds / 60.0 - 1e-9);
    }

    /** {@code G(t) = max(0, min(N_m, R + floor(E × f)))}. */
    public long available(Instant t) {
        return Math.max(0, Math.min(newUsersLeft, base + Minutes.floorTimesElapsed(expiring, t)));
    }
}
