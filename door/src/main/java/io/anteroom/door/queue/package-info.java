/** Queue answers (HTML page, JSON, 429) and the pacing of queue polling. */
package io.anteroom.door.queue;
