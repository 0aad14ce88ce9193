/**
 * YAML configuration: validated immutable records, the one table of room keys, and the closed sets
 * of room values.
 */
package io.anteroom.door.config;
