package io.anteroom.bench.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;

/**
 * The benchmark's reference for the least a waiting-room filter must do on an admitted request,
 * without judging it: the request wrapped so the application sees one added header (as {@code
 * Anteroom-Pass}), the response wrapped so two headers are set just before it is committed (as the
 * throttle header and {@code Cache-Control: private}). No cookie is read and nothing is decided.
 * {@code bench/servlet/run.sh} measures it beside the bare application and the real filter ({@code
 * --bench.reference=wrappers}), to show how much of the filter's cost is the Servlet API's wrapping
 * and how much the door's work.
 */
final class WrappersOnly implements Filter {
  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    var out = new Completing((HttpServletResponse) response);
    try {
      chain.doFilter(new Added((HttpServletRequest) request), out);
    } finally {
      out.complete();
    }
  }

  private static final class Added extends HttpServletRequestWrapper {
    Added(HttpServletRequest request) {
      super(request);
    }

    @Override
    public String getHeader(String name) {
      return "anteroom-pass".equalsIgnoreCase(name) ? "reference" : super.getHeader(name);
    }
  }

  private static final class Completing extends HttpServletResponseWrapper {
    private boolean completed;
    private ServletOutputStream stream;

    Completing(HttpServletResponse response) {
      super(response);
    }

    void complete() {
      if (!completed) {
        completed = true;
        if (!isCommitted()) {
          setHeader("Anteroom-Throttle", "0");
          setHeader("Cache-Control", "private");
        }
      }
    }

    @Override
    public void flushBuffer() throws IOException {
      complete();
      super.flushBuffer();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (stream == null) {
        ServletOutputStream inner = super.getOutputStream();
        stream =
            new ServletOutputStream() {
              @Override
              public boolean isReady() {
                return inner.isReady();
              }

              @Override
              public void setWriteListener(WriteListener listener) {
                inner.setWriteListener(listener);
              }

              @Override
              public void write(int b) throws IOException {
                complete();
                inner.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) throws IOException {
                complete();
                inner.write(b, off, len);
              }

              @Override
              public void flush() throws IOException {
                complete();
                inner.flush();
              }
            };
      }
      return stream;
    }
  }
}
