package io.anteroom.bench.servlet;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Proxy;
import java.util.Enumeration;

/**
 * The least of an {@link HttpServletRequest} that the filter and {@link FilterCost}'s application
 * use, with Tomcat-like headers ({@link LeanHeaders}); any other method fails (a proxy behind the
 * wrapper throws), so the benchmark cannot silently measure a call it does not implement.
 */
final class LeanRequest extends HttpServletRequestWrapper {
  final LeanHeaders headers = new LeanHeaders();
  private final String method;
  private final String uri;
  private final String peer;

  LeanRequest(String method, String uri, String peer) {
    super(unsupported());
    this.method = method;
    this.uri = uri;
    this.peer = peer;
  }

  private static HttpServletRequest unsupported() {
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            LeanRequest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, m, args) -> {
              throw new UnsupportedOperationException("LeanRequest." + m.getName());
            });
  }

  @Override
  public String getMethod() {
    return method;
  }

  @Override
  public String getRequestURI() {
    return uri;
  }

  @Override
  public String getQueryString() {
    return null;
  }

  @Override
  public String getContextPath() {
    return "";
  }

  @Override
  public String getProtocol() {
    return "HTTP/1.1";
  }

  @Override
  public String getRemoteAddr() {
    return peer;
  }

  @Override
  public boolean isAsyncSupported() {
    return true;
  }

  @Override
  public String getHeader(String name) {
    return headers.get(name);
  }

  @Override
  public Enumeration<String> getHeaders(String name) {
    return headers.values(name);
  }

  @Override
  public Enumeration<String> getHeaderNames() {
    return headers.names();
  }
}
