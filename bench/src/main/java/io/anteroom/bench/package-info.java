/** Anteroom bench module. */
package io.anteroom.bench;
