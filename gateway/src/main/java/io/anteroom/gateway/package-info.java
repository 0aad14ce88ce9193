/**
 * Anteroom gateway: the HTTP edge of the waiting room. {@link io.anteroom.gateway.Main} (the CLI)
 * and {@link io.anteroom.gateway.Gateway} compose the sub-packages, one per role: {@code config}
 * (YAML, the room key table, closed sets of values), {@code edge} (listener, routing, bypass,
 * request handler, proxy, live rooms), {@code ticket} (the ticket cookie and its sealing), {@code
 * admission} (the seam to the room core's decision and the coordinating objects), {@code queue}
 * (queue page, JSON, polling back-pressure), {@code admin} (admin API, status page, metrics) and
 * {@code demo}.
 */
package io.anteroom.gateway;
