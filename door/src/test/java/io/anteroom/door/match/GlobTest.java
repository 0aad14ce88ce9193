package io.anteroom.door.match;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Globs of bypass rules, matched in linear time with the semantics of the regular expressions they
 * replace.
 */
class GlobTest {

  @Test
  void doubleStarCrossesSegmentsAndNeedsTheSlashBeforeIt() {
    Glob g = Glob.path("/static/**");

    assertThat(g.matches("/static/")).isTrue();
    assertThat(g.matches("/static/app.js")).isTrue();
    assertThat(g.matches("/static/a/b/c.css")).isTrue();
    assertThat(g.matches("/static")).isFalse();
    assertThat(g.matches("/staticfoo/x")).isFalse();
    assertThat(g.matches("/checkout")).isFalse();
  }

  @Test
  void singleStarAndQuestionMarkStayWithinASegment() {
    assertThat(Glob.path("/*.js").matches("/app.js")).isTrue();
    assertThat(Glob.path("/*.js").matches("/.js")).isTrue();
    assertThat(Glob.path("/*.js").matches("/lib/app.js")).isFalse();
    assertThat(Glob.path("/a?c").matches("/abc")).isTrue();
    assertThat(Glob.path("/a?c").matches("/a/c")).isFalse();
    assertThat(Glob.path("/a?c").matches("/ac")).isFalse();
  }

  @Test
  void doubleStarBetweenSlashesNeedsBothSlashesLikeTheRegexItReplaces() {
    Glob g = Glob.path("/**/a");

    assertThat(g.matches("//a")).isTrue();
    assertThat(g.matches("/x/y/a")).isTrue();
    assertThat(g.matches("/a")).isFalse();
  }

  @Test
  void pathGlobsAreCaseSensitiveAndLiteralOtherwise() {
    assertThat(Glob.path("/API/v1").matches("/api/v1")).isFalse();
    assertThat(Glob.path("/a.b").matches("/aXb")).isFalse(); // '.' is not a regex here
    assertThat(Glob.path("/a+b").matches("/a+b")).isTrue();
    assertThat(Glob.path("").matches("")).isTrue();
    assertThat(Glob.path("").matches("/")).isFalse();
    assertThat(Glob.path("/x").matches(null)).isFalse();
  }

  @Test
  void textGlobsMatchAnythingCaseInsensitively() {
    Glob bots = Glob.text("*bot*");

    assertThat(bots.matches("Mozilla/5.0 (compatible; Googlebot/2.1)")).isTrue();
    assertThat(bots.matches("SOMEBOT")).isTrue();
    assertThat(bots.matches("curl/8.0")).isFalse();
    assertThat(Glob.text("a?c").matches("a/c")).isTrue();
    assertThat(Glob.text("ÄRGER*").matches("ärger 1")).isTrue();
  }

  @Test
  void aPathologicalPatternOn16KibIsDecidedInLinearSteps() {
    String input = "/b".repeat(8192); // 16 KiB
    Glob g = Glob.path("/**/**/**/a");

    assertThat(g.matches(input)).isFalse();
    assertThat(g.steps(input)).isLessThanOrEqualTo((long) (g.tokens() + 1) * input.length());
    assertThat(Glob.path("/**/**/**/b").matches(input)).isTrue();
    assertThat(Glob.path("/**/**/**/b").steps(input))
        .isLessThanOrEqualTo((long) (g.tokens() + 1) * input.length());
  }

  @Test
  void manyStarsOnALongRunAreDecidedInLinearSteps() {
    String input = "a".repeat(16_384);
    Glob g = Glob.text("*a*a*a*a*a*a*a*a*b");

    assertThat(g.matches(input)).isFalse();
    assertThat(g.steps(input)).isLessThanOrEqualTo((long) (g.tokens() + 1) * input.length());
  }

  @Test
  void adjacentStarsCollapseIntoOneToken() {
    assertThat(Glob.path("/***").tokens()).isEqualTo(2);
    assertThat(Glob.path("/***").matches("/a/b")).isTrue();
    assertThat(Glob.path("/*/**").tokens()).isEqualTo(4);
  }

  // ---- the regular expressions of BypassMatcher.glob, as the oracle ----

  /** Today's translation (BypassMatcher.glob), copied so that the two can be compared. */
  private static Pattern regex(String glob, boolean anything) {
    var sb = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '*') {
        if (!anything && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
          sb.append(".*");
          i++;
        } else {
          sb.append(anything ? ".*" : "[^/]*");
        }
      } else if (c == '?') {
        sb.append(anything ? "." : "[^/]");
      } else {
        sb.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return anything
        ? Pattern.compile(sb.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE)
        : Pattern.compile(sb.toString());
  }

  @Provide
  Arbitrary<String> patterns() {
    return Arbitraries.of("a", "b", "B", "/", "*", "**", "?", ".")
        .list()
        .ofMaxSize(8)
        .map(l -> String.join("", l));
  }

  @Provide
  Arbitrary<String> inputs() {
    return Arbitraries.of("a", "b", "A", "/", ".", "ab/")
        .list()
        .ofMaxSize(12)
        .map(l -> String.join("", l));
  }

  @Property(tries = 3000)
  void pathGlobsAgreeWithTodaysRegularExpressions(
      @ForAll("patterns") String pattern, @ForAll("inputs") String input) {
    assertThat(Glob.path(pattern).matches(input))
        .as("%s on %s", pattern, input)
        .isEqualTo(regex(pattern, false).matcher(input).matches());
  }

  @Property(tries = 3000)
  void textGlobsAgreeWithTodaysRegularExpressions(
      @ForAll("patterns") String pattern, @ForAll("inputs") String input) {
    assertThat(Glob.text(pattern).matches(input))
        .as("%s on %s", pattern, input)
        .isEqualTo(regex(pattern, true).matcher(input).matches());
  }

  @Property(tries = 500)
  void stepsAreBoundedByTokensTimesInput(
      @ForAll("patterns") String pattern, @ForAll("inputs") String input) {
    Glob g = Glob.path(pattern);
    assertThat(g.steps(input))
        .isLessThanOrEqualTo((long) (g.tokens() + 1) * Math.max(1, input.length()));
  }
}
