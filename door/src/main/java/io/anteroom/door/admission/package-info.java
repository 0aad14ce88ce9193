/**
 * The room side of the admission decision: the request path ({@link
 * io.anteroom.door.admission.RoomGate}) apart from room control ({@link
 * io.anteroom.door.admission.RoomControl}), the gate over the room core, the coordination seam,
 * fail modes, origin protection.
 */
package io.anteroom.door.admission;
