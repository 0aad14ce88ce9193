/** Anteroom backpressure module. */
package io.anteroom.backpressure;
