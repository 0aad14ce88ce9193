/**
 * The waiting-room decision core: pure and deterministic, no I/O, no threads, no clock reads. The
 * slot strategies are in {@code io.anteroom.room.slots}; the durable objects that feed this core
 * are in the {@code coordinator} module.
 */
package io.anteroom.room;
