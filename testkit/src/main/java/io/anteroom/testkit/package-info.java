/**
 * Test support shared by every module's tests (a test-scope dependency only; production code never
 * depends on it, which the layering test checks): {@link io.anteroom.testkit.ManualClock}, {@link
 * io.anteroom.testkit.ChildProcess} for multi-process tests, and {@link
 * io.anteroom.testkit.FreePorts} for servers whose address a test fixes in advance.
 */
package io.anteroom.testkit;
