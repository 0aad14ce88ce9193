package io.anteroom.example.shop;

import io.anteroom.host.RoomHost;
import io.anteroom.pass.PassVerifier;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A small shop behind the waiting room. The starter ({@code anteroom-spring-boot-starter}) reads
 * {@code anteroom.config} and puts the room's filter in front of every page; the shop itself only
 * verifies the signed pass at checkout ({@link ShopController#checkout}).
 */
@SpringBootApplication
public class ShopApplication {

  /**
   * The checkout's verifier of the {@code Anteroom-Pass} header: the room's public keys (in this
   * JVM, from the starter's {@link RoomHost}; an origin behind a proxy would name the gateway's
   * {@code /.well-known/jwks.json} URL instead) and the one room whose passes it accepts.
   */
  @Bean
  PassVerifier passVerifier(RoomHost rooms) {
    return PassVerifier.builder().jwksJson(rooms.jwks()).rooms("shop").build();
  }

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
