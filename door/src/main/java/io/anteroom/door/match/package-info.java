/**
 * What requests are matched by, as pure values: the one normalised request target ({@link
 * io.anteroom.door.match.RequestTarget}: host, path and query that routing, bypass and forwarding
 * all use), linear-time globs ({@link io.anteroom.door.match.Glob}) and address ranges ({@link
 * io.anteroom.door.match.Cidr}). No I/O; the lowest package of the gateway, used by the config (to
 * check rules in normal form) and by the edge (to match requests).
 */
package io.anteroom.door.match;
