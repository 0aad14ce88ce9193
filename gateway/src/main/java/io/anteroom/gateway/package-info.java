/** Anteroom gateway module. */
package io.anteroom.gateway;
