/**
 * The gateway side of the admission decision: the room gate over the room core, coordination with
 * the durable objects, fail modes, origin protection.
 */
package io.anteroom.gateway.admission;
