package io.anteroom.bench.servlet;

import io.anteroom.door.OriginResponse;
import java.util.HashMap;
import java.util.Map;

/** The application's response to a passed request, its headers in a map (200, no body). */
final class AppResponse implements OriginResponse {
  final Map<String, String> headers = new HashMap<>(8);

  @Override
  public int status() {
    return 200;
  }

  @Override
  public String header(String name) {
    return headers.get(name);
  }

  @Override
  public void set(String name, String value) {
    headers.put(name, value);
  }

  @Override
  public void add(String name, String value) {
    headers.putIfAbsent(name, value);
  }

  @Override
  public void remove(String name) {
    headers.remove(name);
  }
}
