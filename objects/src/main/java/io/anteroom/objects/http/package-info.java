/**
 * Durable objects between processes over HTTP: {@link io.anteroom.objects.http.HttpObjectServer}
 * serves a runtime's exported namespaces, {@link io.anteroom.objects.http.HttpObjectTransport} and
 * {@link io.anteroom.objects.http.RemoteObjects} give stubs that call it, and {@link
 * io.anteroom.objects.http.RoutingObjectTransport} follows the leader among several coordinators.
 * Every call between hosts is signed with a shared secret ({@link
 * io.anteroom.objects.http.SharedSecret}, HMAC-SHA256 with a replay window) and may run over TLS.
 */
package io.anteroom.objects.http;
