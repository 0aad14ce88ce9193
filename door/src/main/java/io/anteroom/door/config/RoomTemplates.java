package io.anteroom.door.config;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheException;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a room's queue-page templates and their Mustache partials are read from: first the
 * templates kept with the room's document at the coordinator (the same for every gateway of the
 * deployment), then this gateway's {@code templatesDir} ({@link TemplateDirectory}) for a name the
 * document does not keep. So a template kept in the deployment's document wins over a file of the
 * same name in a host's {@code templatesDir}.
 *
 * <p>A kept template is named like a file of {@code templatesDir} ({@link
 * TemplateDirectory#wellFormed}): {@code queue.html}, its language variants {@code queue.fr.html},
 * partials {@code partials/head.html}.
 *
 * <p>Immutable and thread-safe.
 */
public final class RoomTemplates {

  private final SortedMap<String, String> kept;
  private final TemplateDirectory dir;

  /** The templates {@code kept} with the room's document (null: none), over {@code dir}. */
  public RoomTemplates(Map<String, String> kept, TemplateDirectory dir) {
    this.kept =
        kept == null
            ? Collections.emptySortedMap()
            : Collections.unmodifiableSortedMap(new TreeMap<>(kept));
    this.dir = dir;
  }

  /** Only the files of {@code dir}. */
  public static RoomTemplates of(TemplateDirectory dir) {
    return new RoomTemplates(null, dir);
  }

  /** The templates kept with the room's document, by name. */
  public SortedMap<String, String> kept() {
    return kept;
  }

  /** The same directory with other kept templates. */
  public RoomTemplates with(Map<String, String> otherKept) {
    return new RoomTemplates(otherKept, dir);
  }

  /** Whether a template {@code name} is kept or is a file of the directory. */
  public boolean exists(String name) {
    return kept.containsKey(name) || dir.exists(name);
  }

  /**
   * The text of the template {@code name}: the kept one, else the directory's file.
   *
   * @throws IllegalArgumentException saying why it cannot be read
   */
  public Reader open(String name) {
    String text = kept.get(name);
    if (text != null) {
      return new StringReader(text);
    }
    try {
      return Files.newBufferedReader(dir.resolve(name), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "\"" + name + "\": cannot read it from templatesDir: " + e.getMessage(), e);
    }
  }

  /**
   * Checks that a room's {@code template} names a kept template or a file of the directory.
   *
   * @throws IllegalArgumentException as {@link TemplateDirectory#resolve} words it
   */
  public void resolve(String name) {
    if (!kept.containsKey(name)) {
      dir.resolve(name);
    }
  }

  /**
   * Compiles the template {@code name}, its partials ({@code {{> name}}}) read the same way.
   *
   * @throws IllegalArgumentException naming the problem (a missing template or partial, invalid
   *     Mustache)
   */
  public Mustache compile(String name) {
    return compile(name, null);
  }

  private Mustache compile(String name, Map<String, String> read) {
    var factory =
        new DefaultMustacheFactory(
            partial -> {
              if (read != null && !read.containsKey(partial)) {
                read.put(partial, text(partial));
              }
              return open(partial);
            });
    try (Reader reader = open(name)) {
      if (read != null) {
        read.put(name, text(name));
      }
      return factory.compile(reader, name);
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalArgumentException("cannot read " + name + ": " + e.getMessage(), e);
    } catch (MustacheException e) {
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        if (cause.getCause() instanceof IllegalArgumentException missing) {
          throw new IllegalArgumentException(missing.getMessage(), e);
        }
        cause = cause.getCause();
      }
      throw new IllegalArgumentException("not a valid Mustache template: " + e.getMessage(), e);
    }
  }

  private String text(String name) {
    try (Reader r = open(name)) {
      var out = new StringBuilder();
      char[] buf = new char[8192];
      for (int n; (n = r.read(buf)) > 0; ) {
        out.append(buf, 0, n);
      }
      return out.toString();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Every problem of the kept templates, by key ({@code templates."NAME"}): a name that is not a
   * template name, a template that does not compile (invalid Mustache, a partial neither kept nor
   * in the directory). Empty when there is none.
   */
  public Map<String, String> problems() {
    var out = new java.util.LinkedHashMap<String, String>();
    for (String name : kept.keySet()) {
      String key = "templates.\"" + name + "\"";
      if (!TemplateDirectory.wellFormed(name)) {
        out.put(
            key,
            "not a template name: give a relative file name (letters, digits, . _ - and /;"
                + " no .., no absolute path), as in templatesDir");
        continue;
      }
      try {
        compile(name);
      } catch (IllegalArgumentException e) {
        out.put(key, e.getMessage());
      }
    }
    return out;
  }

  /**
   * The texts of the templates {@code names} (a room's {@code template} and its events'), of their
   * language variants among {@code languages} and of every partial they include, as the directory
   * has them: what a config file's room brings into the deployment's document. A name that does not
   * compile from the directory is left out (its room then reads it from each host's {@code
   * templatesDir}, as before).
   */
  public static SortedMap<String, String> collect(
      List<String> names, List<String> languages, TemplateDirectory dir) {
    var out = new TreeMap<String, String>();
    var from = of(dir);
    var all = new ArrayList<String>();
    for (String name : names) {
      all.add(name);
      for (String language : languages) {
        String variant = languageVariant(name, language);
        if (dir.exists(variant)) {
          all.add(variant);
        }
      }
    }
    for (String name : all) {
      var read = new TreeMap<String, String>();
      try {
        from.compile(name, read);
        out.putAll(read);
      } catch (IllegalArgumentException e) {
        // left to each host's templatesDir
      }
    }
    return out;
  }

  /** The names a room's queue pages use: its {@code template} and its events'. */
  public static List<String> namesOf(GatewayConfig.RoomSettings room) {
    var names = new ArrayList<String>();
    room.queuePage().template().ifPresent(names::add);
    room.events().forEach(e -> e.template().ifPresent(t -> names.add(t)));
    return names.stream().distinct().toList();
  }

  /**
   * The kept templates whose file of the same name in the directory has other contents (the kept
   * one is in force), by name.
   */
  public List<String> differingFiles() {
    var out = new ArrayList<String>();
    for (var e : kept.entrySet()) {
      if (dir.exists(e.getKey())) {
        Optional<String> file = fileText(e.getKey());
        if (file.isPresent() && !file.get().equals(e.getValue())) {
          out.add(e.getKey());
        }
      }
    }
    return out;
  }

  private Optional<String> fileText(String name) {
    try {
      return Optional.of(Files.readString(dir.resolve(name), StandardCharsets.UTF_8));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The name of a template's variant for {@code language}: the tag before the last extension
   * ({@code queue.html} → {@code queue.fr.html}; {@code queue} → {@code queue.fr}).
   */
  public static String languageVariant(String template, String language) {
    int slash = template.lastIndexOf('/');
    int dot = template.lastIndexOf('.');
    return dot > slash + 1
        ? template.substring(0, dot) + "." + language + template.substring(dot)
        : template + "." + language;
  }
}
