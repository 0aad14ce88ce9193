/**
 * Test support shared by every module's tests (a test-scope dependency only; production code never
 * depends on it, which the layering test checks): {@link io.anteroom.testkit.ManualClock}.
 */
package io.anteroom.testkit;
