/**
 * The ticket cookie: its name, reading and writing it, AES-GCM sealing, keys and the ticket layout.
 */
package io.anteroom.door.ticket;
