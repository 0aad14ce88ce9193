/** Routing to rooms, bypass rules and the client's address (trusted proxies): pure values. */
package io.anteroom.door.route;
