package io.anteroom.room;

import static io.anteroom.room.Fixtures.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MinutePoolTest {
    static final Instant START = at("2026-01-01T10:00:00Z");
    static final long M = Minutes.minuteOf(START);

    /** A state from the previous minute: 60 sessions expire during M, 800 later; 60 admissions per minute lately. */
    static RoomState previousMinuteState() {
        TreeMap<Long, Long> h = new TreeMap<>();
        h.put(M, 60L);
        h.put(M + 5, 800L);
        Instant asOf = START.minusSeconds(2);
        return new RoomState("dc", asOf, M - 1, h, 860, 0, 0, List.of(), new TreeMap<>(), 1, 1, 60, 0, 0, null);
    }

    @Test
    void inFlightMarginHoldsBackAdmissionsTooRecentToBeInAnyState() {
        RoomConfig config = Fixtures.room(1000, 500).build();   // r_w 5 s, r_dc 5 s: 15 s of admissions

        assertThat(MinutePool.inFlight(60, config)).isEqualTo(15);
        MinutePool pool = MinutePool.of(M, previousMinuteState(), config);
        assertThat(pool.base()).isEqualTo(1000 - 860 - 15);
        assertThat(pool.available(START)).isEqualTo(125);
    }

    @Test
    void poolIsRefilledAsTheMinutesSessionsExpire() {
        MinutePool pool = MinutePool.of(M, previousMinuteState(), Fixtures.room(1000, 500).build());

        assertThat(pool.available(START.plusSeconds(30))).isEqualTo(125 + 30);
        assertThat(pool.available(START.plusSeconds(59))).isEqualTo(125 + 59);
    }

    @Test
    void poolNeverExceedsTheNewUsersLeftThisMinute() {
        MinutePool pool = MinutePool.of(M, previousMinuteState(), Fixtures.room(1000, 100).build());

        assertThat(pool.available(START.plusSeconds(50))).isEqualTo(100);
    }

    @Test
    void publishedPoolIsFixedAtTheMinuteStartWithoutRefillOrMargin() {
        RoomConfig published = Fixtures.room(1000, 500).rules(Rules.published()).build();
        MinutePool pool = MinutePool.of(M, previousMinuteState(), published);

        // sessions expiring during M already count as gone: T - 800
        assertThat(pool.available(START)).isEqualTo(200);
        assertThat(pool.available(START.plusSeconds(59))).isEqualTo(200);
    }

    @Test
    void aStateOfTheSameMinuteSubtractsItsAdmissionsFromTheMinutesNewUsers() {
        RoomState state = new RoomState("dc", START.plusSeconds(3), M, new TreeMap<>(), 0, 40, 0, List.of(),
                new TreeMap<>(), 1, 1, 0, 0, 0, null);

        assertThat(MinutePool.of(M, state, Fixtures.room(1000, 100).build()).available(START.plusSeconds(3)))
                .isEqualTo(60);
    }
}
