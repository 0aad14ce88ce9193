package io.anteroom.pass.example;

import io.anteroom.pass.Pass;
import io.anteroom.pass.PassRefusedException;
import io.anteroom.pass.PassVerifier;
import java.net.URL;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** An origin's checkout that takes one order per admitted user, and none from around the room. */
public final class Checkout {
  private final PassVerifier verifier;
  // in production: a unique column of the orders table
  private final Set<String> passesThatOrdered = ConcurrentHashMap.newKeySet();

  public Checkout(URL gatewayJwks) {
    this.verifier = PassVerifier.builder().jwks(gatewayJwks).rooms("shop").build();
  }

  /** The HTTP status for a POST /checkout with the request's Anteroom-Pass header. */
  public int placeOrder(String passHeader, String cart) {
    Pass pass;
    try {
      pass = verifier.requireValid(passHeader);
    } catch (PassRefusedException e) {
      System.err.println("checkout refused: " + e.getMessage());
      return 403; // not through the waiting room
    }
    if (!passesThatOrdered.add(pass.passId())) {
      return 409; // this admission has placed its order
    }
    System.out.println("order of " + pass.passId() + " admitted at " + pass.admittedAt());
    return 201;
  }
}
