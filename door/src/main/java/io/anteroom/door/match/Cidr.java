package io.anteroom.door.match;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IPv4 or IPv6 network ({@code 10.0.0.0/8}, {@code ::1/128}); a bare address means /32 or /128.
 */
public record Cidr(byte[] network, int prefixBits) {

  public static Cidr parse(String text) {
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    if (!address.matches("[0-9A-Fa-f:.]+")) {
      throw new IllegalArgumentException(
          "\""
              + text
              + "\" is not a CIDR block such as"
              + " 10.0.0.0/8 or 2001:db8::/32 (host names are not allowed)");
    }
    byte[] bytes;
    try {
      bytes = InetAddress.getByName(address).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not a CIDR block such as 10.0.0.0/8", e);
    }
    int max = bytes.length * 8;
    int bits;
    try {
      bits = slash < 0 ? max : Integer.parseInt(text.substring(slash + 1));
    } catch (NumberFormatException e) {
      bits = -1;
    }
    if (bits < 0 || bits > max) {
      throw new IllegalArgumentException("\"" + text + "\": prefix length must be 0 to " + max);
    }
    return new Cidr(bytes, bits);
  }

  /**
   * Whether {@code text} is an IPv4 address in dotted-quad form or an IPv6 literal: the only
   * strings given to {@link InetAddress#getByName}, which would resolve anything else over DNS.
   */
  public static boolean isLiteral(String text) {
    return DOTTED_QUAD.matcher(text).matches()
        || text.indexOf(':') >= 0 && IPV6_CHARS.matcher(text).matches();
  }

  private static final java.util.regex.Pattern DOTTED_QUAD =
      java.util.regex.Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final java.util.regex.Pattern IPV6_CHARS =
      java.util.regex.Pattern.compile("[0-9A-Fa-f:.]+");

  /** Whether the literal IP address {@code ip} lies in this network. */
  public boolean contains(String ip) {
    if (!isLiteral(ip)) {
      return false;
    }
    byte[] candidate;
    try {
      // only literal addresses reach here (remote socket addresses); no DNS lookup happens
      candidate = InetAddress.getByName(ip).getAddress();
    } catch (UnknownHostException e) {
      return false;
    }
    if (candidate.length != network.length) {
      return false;
    }
    int full = prefixBits / 8;
    for (int i = 0; i < full; i++) {
      if (candidate[i] != network[i]) {
        return false;
      }
    }
    int rest = prefixBits % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xFF << (8 - rest)) & 0xFF;
    return (candidate[full] & mask) == (network[full] & mask);
  }

  /**
   * The network of {@code ip} with the first {@code v4Bits} (IPv4) or {@code v6Bits} (IPv6) bits
   * kept, written as {@code network/bits} ({@code 203.0.113.0/24}, {@code
   * 2001:db8:0:1:0:0:0:0/64}); an IPv4-mapped IPv6 address counts as IPv4. Null when {@code ip} is
   * not a literal address.
   */
  public static String prefixOf(String ip, int v4Bits, int v6Bits) {
    if (ip == null || !isLiteral(ip)) {
      return null;
    }
    byte[] a;
    try {
      a = InetAddress.getByName(ip).getAddress(); // a literal: no DNS lookup
    } catch (UnknownHostException e) {
      return null;
    }
    int bits = a.length == 4 ? v4Bits : v6Bits;
    for (int i = 0; i < a.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - i * 8));
      a[i] = (byte) (a[i] & ((0xFF << (8 - keep)) & 0xFF));
    }
    try {
      return InetAddress.getByAddress(a).getHostAddress() + "/" + bits;
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
