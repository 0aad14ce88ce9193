/**
 * Anteroom gateway: the waiting room as a Vert.x server, one adapter of the door (module {@code
 * door}). {@link io.anteroom.gateway.Main} (the CLI) and {@link io.anteroom.gateway.Gateway}
 * compose the sub-packages, one per role: {@code edge} (listener, the door's Vert.x adapter, proxy,
 * access log), {@code admin} (admin API, status page, metrics) and {@code demo}. The rules of the
 * request path are the door's; the coordination's wiring is module {@code host}'s.
 */
package io.anteroom.gateway;
