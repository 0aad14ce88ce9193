/**
 * The room's coordinating durable objects: the data center object, the global object and the
 * counter objects, thin shells that feed the pure room core ({@code io.anteroom.room}) from the
 * objects runtime, with their RPC interfaces and {@link io.anteroom.coordinator.RoomObjects}, which
 * registers them.
 */
package io.anteroom.coordinator;
