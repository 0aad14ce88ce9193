/**
 * The deployment's rooms as documents kept at the coordinator: each room's configuration,
 * versioned, and the rule that orders create, replace, delete and import.
 */
package io.anteroom.room.documents;
