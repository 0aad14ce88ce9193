/**
 * Scheduled events and random queueing in the simulator: a pre-queue shuffled at the start, and
 * random against FIFO under the same traffic, through the real room core ({@link
 * io.anteroom.sim.events.EventExperiments}).
 */
package io.anteroom.sim.events;
