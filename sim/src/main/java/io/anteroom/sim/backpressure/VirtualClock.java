package io.anteroom.sim.backpressure;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** Simulated time in nanoseconds from the epoch; only the simulation loop moves it, never backwards. */
final class VirtualClock extends Clock {
    private long nanos;

    long nanos() {
        return nanos;
    }

    void advanceTo(long nanos) {
        if (nanos < this.nanos) {
            throw new IllegalArgumentException("virtual time cannot go back from " + this.nanos + " ns to " + nanos + " ns");
        }
        this.nanos = nanos;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochSecond(0, nanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the virtual clock is UTC only");
    }
}
