package io.anteroom.objects.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

/** The back-off of a leader's log appender after failed appends, as Ratis reads and applies it. */
class AppenderRetryPolicyTest {

  private static final List<Duration> ELECTION_TIMEOUTS =
      List.of(
          Duration.ofMillis(150),
          Duration.ofMillis(300),
          Duration.ofMillis(500),
          Duration.ofSeconds(5));

  // Ratis 3.3.0 sleeps out this back-off before the appender's next request or heartbeat, and a
  // follower's INCONSISTENCY replies count as failures: one step longer than the election timeout
  // left a restarted follower without a word from its leader until it stood for election
  // (the old policy's 1 s steps, after 60 failures, failed this test).
  @Test
  void aLeaderNeverWaitsHalfAFollowersElectionTimeoutBetweenTwoAppendsToIt() {
    for (Duration electionTimeoutMin : ELECTION_TIMEOUTS) {
      RetryPolicy policy = parse(electionTimeoutMin);
      for (int failures = 1; failures > 0; failures = next(failures)) {
        assertThat(sleepMillis(policy, failures))
            .as("wait after %d failures, election timeout %s", failures, electionTimeoutMin)
            .isLessThan(electionTimeoutMin.toMillis() / 2);
      }
    }
  }

  // a policy that runs out stops backing off (Ratis then retries with no wait): at 10 failures a
  // second, 1,000,000 steps (the first capped policy) ran out after about a day of a dead follower
  @Test
  void aLeaderBacksOffFromAFollowerThatKeepsFailing() {
    for (Duration electionTimeoutMin : ELECTION_TIMEOUTS) {
      RetryPolicy policy = parse(electionTimeoutMin);
      assertThat(sleepMillis(policy, 1)).isLessThanOrEqualTo(2);
      for (int failures = 11; failures > 0; failures = next(failures)) {
        assertThat(sleepMillis(policy, failures))
            .as("wait after %d failures, election timeout %s", failures, electionTimeoutMin)
            .isGreaterThanOrEqualTo(10);
      }
    }
  }

  private static RetryPolicy parse(Duration electionTimeoutMin) {
    return RetryPolicy.parse(
        RatisPeer.appenderRetryPolicy(electionTimeoutMin), "raft.server.log.appender.retry.policy");
  }

  private static long sleepMillis(RetryPolicy policy, int failures) {
    return policy.handleAttemptFailure(() -> failures).getSleepTime().toLong(TimeUnit.MILLISECONDS);
  }

  private static int next(int failures) {
    return failures < 100 ? failures + 1 : failures * 2; // negative past Integer.MAX_VALUE
  }
}
