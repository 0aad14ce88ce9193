/**
 * What the shipped logging configuration adds to logback: repeated peer-connection failures of the
 * replicated coordinator summarised ({@link io.anteroom.gateway.log.PeerConnectionFailures}).
 */
package io.anteroom.gateway.log;
