/**
 * The waiting room's door, for any server: {@link io.anteroom.door.Door} takes a request's {@link
 * io.anteroom.door.RequestFacts} and gives an {@link io.anteroom.door.Answer} (pass, or an answer
 * written here: queue, challenge, 429, 400). Its stages and answer writer are package-private.
 */
package io.anteroom.door;
