/**
 * The simulator's one deterministic discrete-event engine: {@link io.anteroom.sim.engine.EventLoop}
 * and its {@link io.anteroom.sim.engine.VirtualClock}. The room simulations and the back-pressure
 * models both run on it.
 */
package io.anteroom.sim.engine;
