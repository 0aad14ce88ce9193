/**
 * Measures the back-pressure library in virtual time: the synchronous Chiu–Jain model, an event
 * model of periodic clients against a server with a {@code ThresholdMonitor}, and the reference
 * text's experiment. Every run is deterministic for its seed and drives the real classes of {@code
 * io.anteroom.backpressure}, on the simulator's one engine ({@code io.anteroom.sim.engine}), with
 * its shared charts and statistics ({@code io.anteroom.sim.report}). Entry point: {@link
 * io.anteroom.sim.backpressure.BackpressureExperiments}.
 */
package io.anteroom.sim.backpressure;
