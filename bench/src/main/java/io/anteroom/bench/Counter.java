package io.anteroom.bench;

/** The RPC interface of the benchmarked counter (public: remote stubs are proxies of it). */
public interface Counter {
  /** Returns the current number and stores the next one. */
  long next();
}
