/**
 * Not API: types that the runtime in {@code io.anteroom.objects} uses across packages and that must
 * therefore be public. They may change or disappear in any release; object code and storage engines
 * must not use them.
 *
 * <p>{@link io.anteroom.objects.storage.internal.GroupCommitter}: the single group-commit writer of
 * a storage engine.
 */
package io.anteroom.objects.storage.internal;
