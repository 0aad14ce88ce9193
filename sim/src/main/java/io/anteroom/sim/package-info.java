/** Anteroom sim module. */
package io.anteroom.sim;
