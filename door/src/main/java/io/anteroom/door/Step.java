package io.anteroom.door;

import java.util.concurrent.CompletionStage;

/**
 * One stage of a room's door, one job each (open the ticket, a bypass rule, the proof of work,
 * admission); a stage hands the visit to the next one or answers it. A room's stages are chained
 * once, when its settings are built ({@link RoomRuntime}): a feature the room does not use is a
 * stage that is not in its chain.
 */
interface Step {

  /** Handles {@code visit}: its answer, now or later. */
  CompletionStage<Answer> enter(Visit visit);
}
