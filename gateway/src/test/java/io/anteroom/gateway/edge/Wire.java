package io.anteroom.gateway.edge;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * One client connection written byte by byte (a slow or hostile client): sends what it is given,
 * reads one response at a time (keep-alive), and tells whether the server closed the connection.
 * Every read blocks for at most {@link #READ_TIMEOUT_MILLIS}: a server that neither answers nor
 * closes fails the test instead of hanging it.
 */
final class Wire implements AutoCloseable {

  /** Far longer than any deadline the tests configure; reaching it means "never closed". */
  static final int READ_TIMEOUT_MILLIS = 30_000;

  /** A response: status code, head and body. */
  record Response(int status, String head, String body) {
    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
          return line.substring(colon + 1).strip();
        }
      }
      return null;
    }
  }

  private final Socket socket;
  private final InputStream in;

  Wire(int port) throws IOException {
    this(new Socket("127.0.0.1", port));
  }

  Wire(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    this.in = socket.getInputStream();
  }

  /** Sends {@code text} as ISO-8859-1 bytes, exactly as given (write CRLF yourself). */
  Wire send(String text) throws IOException {
    return send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  Wire send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return this;
  }

  /** A complete GET of {@code path} on {@code host}, keeping the connection open. */
  static String get(String path, String host) {
    return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
  }

  /** Reads one response (Content-Length or chunked body). */
  Response read() throws IOException {
    String head = line(true);
    if (head == null) {
      throw new IOException("the server closed the connection instead of answering");
    }
    var all = new StringBuilder(head);
    String line;
    while (!(line = line(false)).isEmpty()) {
      all.append("\r\n").append(line);
    }
    var response = new Response(Integer.parseInt(head.substring(9, 12)), all.toString(), "");
    String length = response.header("Content-Length");
    var body = new ByteArrayOutputStream();
    if (length != null) {
      body.write(in.readNBytes(Integer.parseInt(length)));
    } else if ("chunked".equalsIgnoreCase(response.header("Transfer-Encoding"))) {
      int size;
      while ((size = Integer.parseInt(line(false).strip(), 16)) > 0) {
        body.write(in.readNBytes(size));
        line(false);
      }
      line(false);
    }
    return new Response(
        response.status(), response.head(), body.toString(StandardCharsets.ISO_8859_1));
  }

  /**
   * Sends {@code bytes} and blocks until the server closes the connection, as {@link
   * #closedByServer}; a server that closed it at accept may have reset it before the bytes are
   * written, which counts as closed too.
   */
  boolean closedByServerAfterSending(byte[]... bytes) throws IOException {
    try {
      for (byte[] b : bytes) {
        send(b);
      }
    } catch (SocketException e) {
      return true; // reset: closed before our bytes were written
    }
    return closedByServer();
  }

  /** As above, with text sent as ISO-8859-1 bytes. */
  boolean closedByServerAfterSending(String text) throws IOException {
    return closedByServerAfterSending(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /**
   * Blocks until the server closes the connection (end of stream or reset) and returns true; false
   * if it sent bytes instead. Fails with {@link SocketTimeoutException} if it does neither.
   */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (SocketException e) {
      return true; // reset: closed with bytes of ours unread
    }
  }

  private String line(boolean eofAllowed) throws IOException {
    var b = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        int end = b.length() > 0 && b.charAt(b.length() - 1) == '\r' ? b.length() - 1 : b.length();
        return b.substring(0, end);
      }
      b.append((char) c);
    }
    if (eofAllowed && b.isEmpty()) {
      return null;
    }
    throw new IOException("end of stream inside a response: " + b);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
