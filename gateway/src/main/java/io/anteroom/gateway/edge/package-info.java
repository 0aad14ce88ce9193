/**
 * The public side of the edge: listener, routing, bypass rules, the request handler, the reverse
 * proxy and the live set of rooms.
 */
package io.anteroom.gateway.edge;
