/**
 * The proof-of-work check at the door: signed, single-use hash puzzles a new user solves before the
 * room decides on them ({@link io.anteroom.door.proof.DoorCheck}), their codec, the work rule, and
 * the bounded memories of used challenges and repeated failures. Pure and deterministic: time and
 * randomness are given.
 */
package io.anteroom.door.proof;
