/**
 * Test support shared by every module's tests (a test-scope dependency only; production code never
 * depends on it, which the layering test checks; the benchmarks, which are not shipped, may):
 * {@link io.anteroom.testkit.ManualClock}, {@link io.anteroom.testkit.ChildProcess} for
 * multi-process tests, {@link io.anteroom.testkit.FreePorts} for servers whose address a test fixes
 * in advance, and {@link io.anteroom.testkit.TestCertificates} for TLS between test servers.
 */
package io.anteroom.testkit;
