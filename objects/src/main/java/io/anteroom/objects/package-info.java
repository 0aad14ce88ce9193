/**
 * Durable Objects runtime for Java: single-threaded stateful objects with private durable
 * storage, one live instance per id, reached through typed stubs, locally or over HTTP.
 * See {@code shared/design/durable-objects.md} for the contract.
 */
package io.anteroom.objects;
