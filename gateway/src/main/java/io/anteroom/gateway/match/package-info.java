/**
 * What requests are matched by, as pure values: the one normalised request target ({@link
 * io.anteroom.gateway.match.RequestTarget}: host, path and query that routing, bypass and
 * forwarding all use), linear-time globs ({@link io.anteroom.gateway.match.Glob}) and address
 * ranges ({@link io.anteroom.gateway.match.Cidr}). No I/O; the lowest package of the gateway, used
 * by the config (to check rules in normal form) and by the edge (to match requests).
 */
package io.anteroom.gateway.match;
