package io.anteroom.gateway;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Sends a request exactly as written over a plain socket (the JDK client would normalise the target
 * and the headers a hostile client controls) and reads the response until the server closes the
 * connection.
 */
public final class RawHttp {

  /** A response: the status code and the whole text after the head. */
  public record Response(int status, String head, String body) {}

  private RawHttp() {}

  /**
   * {@code request} is the request head with {@code \n} line ends; CRLF and the blank line are
   * added.
   */
  public static Response send(int port, String request) throws IOException {
    try (var socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      String wire = request.strip().replace("\n", "\r\n") + "\r\n\r\n";
      socket.getOutputStream().write(wire.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      int split = all.indexOf("\r\n\r\n");
      String head = split < 0 ? all : all.substring(0, split);
      String body = split < 0 ? "" : all.substring(split + 4);
      int status = head.length() >= 12 ? Integer.parseInt(head.substring(9, 12)) : -1;
      return new Response(status, head, body);
    }
  }
}
