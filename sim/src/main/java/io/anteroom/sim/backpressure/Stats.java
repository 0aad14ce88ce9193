package io.anteroom.sim.backpressure;

import java.util.Arrays;

/** Summary statistics of a measured series. */
final class Stats {
    private Stats() {
    }

    static double mean(double[] xs) {
        return Arrays.stream(xs).average().orElseThrow(() -> new IllegalArgumentException("mean of an empty series"));
    }

    static double max(double[] xs) {
        return Arrays.stream(xs).max().orElseThrow(() -> new IllegalArgumentException("max of an empty series"));
    }

    /** Nearest-rank percentile, {@code q} in (0, 1]. */
    static double percentile(double[] xs, double q) {
        if (xs.length == 0) {
            throw new IllegalArgumentException("percentile of an empty series");
        }
        double[] sorted = xs.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
