package io.anteroom.servlet;

import io.anteroom.door.Answer;
import io.anteroom.door.Door;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The request as the application receives it on a pass: the one place the filter builds the headers
 * for the origin. Headers the door reserves ({@link Door#RESERVED_REQUEST_HEADERS}) are hidden as
 * the client sent them, and the door's own ({@link Answer.Pass#originHeaders}) are seen instead.
 */
final class OriginRequest extends HttpServletRequestWrapper {
  private final List<Answer.Header> added;

  OriginRequest(HttpServletRequest request, List<Answer.Header> added) {
    super(request);
    this.added = added;
  }

  /** {@link Door#RESERVED_REQUEST_HEADERS}, compared without a lower-case copy of every name. */
  private static final String[] RESERVED = Door.RESERVED_REQUEST_HEADERS.toArray(String[]::new);

  private static boolean reserved(String name) {
    if (name == null) {
      return false;
    }
    for (String r : RESERVED) {
      if (r.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String getHeader(String name) {
    if (!reserved(name)) {
      return super.getHeader(name);
    }
    for (Answer.Header h : added) {
      if (h.name().equalsIgnoreCase(name)) {
        return h.value();
      }
    }
    return null;
  }

  @Override
  public Enumeration<String> getHeaders(String name) {
    if (!reserved(name)) {
      return super.getHeaders(name);
    }
    var values = new ArrayList<String>();
    for (Answer.Header h : added) {
      if (h.name().equalsIgnoreCase(name)) {
        values.add(h.value());
      }
    }
    return Collections.enumeration(values);
  }

  @Override
  public Enumeration<String> getHeaderNames() {
    var names = new ArrayList<String>();
    for (String n : Collections.list(super.getHeaderNames())) {
      if (!reserved(n)) {
        names.add(n);
      }
    }
    for (Answer.Header h : added) {
      names.add(h.name());
    }
    return Collections.enumeration(names);
  }
}
