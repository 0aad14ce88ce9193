/**
 * The door's rooms wired to their coordination, shared by every server: the room's durable objects
 * embedded or remote ({@link io.anteroom.host.ObjectCoordination}), the gate factory and the rooms'
 * background ticks ({@link io.anteroom.host.RoomHost}).
 */
package io.anteroom.host;
