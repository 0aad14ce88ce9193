package io.anteroom.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import io.anteroom.door.OriginResponse;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * The application's response to a passed request. The door completes it ({@link
 * Door#onOriginResponse}: throttle header, the ticket cookie, a revocation, a private {@code
 * Cache-Control}) once, just before it can be committed: before the first byte of the body, a
 * flush, an error or a redirect, or when the application returns without writing. The application's
 * {@code Anteroom-Command} header is kept here for the door, never sent to the client.
 *
 * <p>Belongs to one request thread (as the servlet response does).
 */
final class PassedResponse extends HttpServletResponseWrapper implements OriginResponse {
  private final Door door;
  private final Answer.Pass pass;
  private final long started = System.nanoTime();
  private String command;
  private boolean completed;
  private ServletOutputStream stream;
  private PrintWriter writer;

  PassedResponse(HttpServletResponse response, Door door, Answer.Pass pass) {
    super(response);
    this.door = door;
    this.pass = pass;
  }

  /** Lets the door complete the response, once, while its headers can still change. */
  void complete() {
    if (completed) {
      return;
    }
    completed = true;
    if (!isCommitted()) {
      door.onOriginResponse(pass, this, System.nanoTime() - started);
    }
  }

  private static boolean isCommand(String name) {
    return name.equalsIgnoreCase(Door.COMMAND_HEADER);
  }

  // the application's side: headers and the moments before commit

  @Override
  public void setHeader(String name, String value) {
    if (isCommand(name)) {
      command = value;
    } else {
      super.setHeader(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if (isCommand(name)) {
      command = command == null ? value : command;
    } else {
      super.addHeader(name, value);
    }
  }

  @Override
  public boolean containsHeader(String name) {
    return isCommand(name) ? command != null : super.containsHeader(name);
  }

  @Override
  public void sendError(int sc, String msg) throws IOException {
    setStatus(sc);
    complete();
    super.sendError(sc, msg);
  }

  @Override
  public void sendError(int sc) throws IOException {
    setStatus(sc);
    complete();
    super.sendError(sc);
  }

  @Override
  public void sendRedirect(String location) throws IOException {
    setStatus(302);
    complete();
    super.sendRedirect(location);
  }

  @Override
  public void flushBuffer() throws IOException {
    complete();
    super.flushBuffer();
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (stream == null) {
      ServletOutputStream out = super.getOutputStream();
      stream =
          new ServletOutputStream() {
            @Override
            public boolean isReady() {
              return out.isReady();
            }

            @Override
            public void setWriteListener(WriteListener listener) {
              out.setWriteListener(listener);
            }

            @Override
            public void write(int b) throws IOException {
              complete();
              out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              complete();
              out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
              complete();
              out.flush();
            }

            @Override
            public void close() throws IOException {
              complete();
              out.close();
            }
          };
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    if (writer == null) {
      PrintWriter out = super.getWriter();
      writer =
          new PrintWriter(
              new Writer() {
                @Override
                public void write(char[] cbuf, int off, int len) {
                  complete();
                  out.write(cbuf, off, len);
                }

                @Override
                public void flush() {
                  complete();
                  out.flush();
                }

                @Override
                public void close() {
                  complete();
                  out.close();
                }
              });
    }
    return writer;
  }

  // the door's side (OriginResponse)

  @Override
  public int status() {
    return getStatus();
  }

  @Override
  public String header(String name) {
    return isCommand(name) ? command : getHeader(name);
  }

  @Override
  public void set(String name, String value) {
    super.setHeader(name, value);
  }

  @Override
  public void add(String name, String value) {
    super.addHeader(name, value);
  }

  @Override
  public void remove(String name) {
    if (isCommand(name)) {
      command = null;
    } else {
      super.setHeader(name, null);
    }
  }
}
