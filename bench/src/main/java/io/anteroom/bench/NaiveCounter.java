package io.anteroom.bench;

import io.anteroom.objects.ObjectContext;
import io.anteroom.objects.Storage;

/** The naive counter of the spec, exactly as a developer would write it: get, put, return. */
final class NaiveCounter implements Counter {
  private final Storage storage;

  NaiveCounter(ObjectContext ctx) {
    this.storage = ctx.storage();
  }

  @Override
  public long next() {
    long v = storage.get("counter", Long.class).orElse(0L);
    storage.put("counter", v + 1);
    return v;
  }
}
