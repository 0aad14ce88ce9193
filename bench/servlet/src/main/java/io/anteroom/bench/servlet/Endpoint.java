package io.anteroom.bench.servlet;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The benchmark's application: one small endpoint on Spring Boot's Tomcat. Started with {@code
 * --anteroom.config=FILE} it runs behind the starter's filter; without it, bare (the starter does
 * nothing without a file). {@code bench/servlet/run.sh} starts it both ways and drives wrk.
 */
@SpringBootApplication
@RestController
public class Endpoint {

  @GetMapping("/hello")
  String hello() {
    return "hello from the shop\n";
  }

  /**
   * The reference filter of the benchmark (wrappers, no door), with {@code
   * bench.reference=wrappers}.
   */
  @Bean
  @ConditionalOnProperty(name = "bench.reference", havingValue = "wrappers")
  FilterRegistrationBean<WrappersOnly> wrappersOnly() {
    var registration = new FilterRegistrationBean<>(new WrappersOnly());
    registration.addUrlPatterns("/*");
    registration.setOrder(-200); // where the starter puts the Anteroom filter
    return registration;
  }

  public static void main(String[] args) {
    SpringApplication.run(Endpoint.class, args);
  }
}
