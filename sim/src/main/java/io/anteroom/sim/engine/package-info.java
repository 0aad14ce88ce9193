/**
 * The deterministic discrete-event engine under the simulator: {@link
 * io.anteroom.sim.engine.EventLoop} and its {@link io.anteroom.sim.engine.VirtualClock}. Public so
 * that other simulations in this module can run on the same clock.
 */
package io.anteroom.sim.engine;
