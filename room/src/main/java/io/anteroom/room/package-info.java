/** Anteroom room module. */
package io.anteroom.room;
