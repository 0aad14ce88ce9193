package io.anteroom.sim;

import io.anteroom.sim.engine.EventLoop;

/** The real room core wired with simulated delays (pending the core's worker and coordinator API). */
final class CoreRoom {
  private CoreRoom() {}

  static RoomUnderTest<?> create(Scenario scenario, Strategy strategy, EventLoop loop) {
    throw new UnsupportedOperationException(
        "the room core's worker and coordinator classes are not on branch room yet; nothing to simulate");
  }
}
