/**
 * Test support shared by every module's tests (a test-scope dependency only; production code never
 * depends on it, which the layering test checks): {@link io.anteroom.testkit.ManualClock}, and
 * {@link io.anteroom.testkit.ChildProcess} for multi-process tests.
 */
package io.anteroom.testkit;
