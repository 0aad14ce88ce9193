/**
 * Anteroom's traffic simulator: replays scenarios ({@link io.anteroom.sim.Scenarios}) against the
 * slot strategies ({@link io.anteroom.sim.StrategyVariant}) of the real room core in virtual time,
 * and reports the figures of issue 3 against its targets, with charts.
 *
 * <p>Entry points: {@link io.anteroom.sim.Simulation#builder()} for one run from Java, and {@link
 * io.anteroom.sim.SimulateCommand} ({@code ./anteroom simulate}) for reports. Everything else is
 * package-private: {@code CoreRoom} wires the core's workers, ledgers and counters with simulated
 * delays, {@code TrafficRun} plays the users, {@code Observations} keeps the ground truth. See
 * {@code docs/simulation.md}.
 */
package io.anteroom.sim;
