package io.anteroom.bench.servlet;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.lang.reflect.Proxy;
import java.util.Collection;

/**
 * The least of an {@link HttpServletResponse} that the filter and {@link FilterCost}'s application
 * use: status, Tomcat-like headers ({@link LeanHeaders}), a body counted, not kept; committed on a
 * flush. Any other method fails (a proxy behind the wrapper throws). {@link #reset} recycles it.
 */
final class LeanResponse extends HttpServletResponseWrapper {
  final LeanHeaders headers = new LeanHeaders();
  private int status = 200;
  private boolean committed;
  private long written;
  private final ServletOutputStream out =
      new ServletOutputStream() {
        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}

        @Override
        public void write(int b) {
          written++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
          written += len;
        }
      };

  LeanResponse() {
    super(unsupported());
  }

  private static HttpServletResponse unsupported() {
    return (HttpServletResponse)
        Proxy.newProxyInstance(
            LeanResponse.class.getClassLoader(),
            new Class<?>[] {HttpServletResponse.class},
            (proxy, m, args) -> {
              throw new UnsupportedOperationException("LeanResponse." + m.getName());
            });
  }

  @Override
  public void reset() {
    headers.clear();
    status = 200;
    committed = false;
    written = 0;
  }

  @Override
  public void setStatus(int sc) {
    status = sc;
  }

  @Override
  public int getStatus() {
    return status;
  }

  @Override
  public void setHeader(String name, String value) {
    if (!committed) {
      headers.set(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if (!committed) {
      headers.add(name, value);
    }
  }

  @Override
  public String getHeader(String name) {
    return headers.get(name);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    return headers.all(name);
  }

  @Override
  public boolean containsHeader(String name) {
    return headers.contains(name);
  }

  @Override
  public void setContentType(String type) {
    setHeader("Content-Type", type);
  }

  @Override
  public void setContentLength(int len) {
    setHeader("Content-Length", Integer.toString(len));
  }

  @Override
  public ServletOutputStream getOutputStream() {
    return out;
  }

  @Override
  public boolean isCommitted() {
    return committed;
  }

  @Override
  public void flushBuffer() {
    committed = true;
  }
}
