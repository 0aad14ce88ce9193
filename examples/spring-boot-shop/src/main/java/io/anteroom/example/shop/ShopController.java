package io.anteroom.example.shop;

import io.anteroom.pass.Pass;
import io.anteroom.pass.PassCheck;
import io.anteroom.pass.PassVerifier;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's pages. Every request that reaches them was let through by the room's filter, which
 * adds the signed pass ({@value PassVerifier#HEADER}) naming the admitted user's pass id.
 */
@RestController
class ShopController {

  private static final Map<String, String> PRODUCTS =
      Map.of("tickets", "Concert tickets", "sneakers", "Limited sneakers");

  private final PassVerifier passes;

  /** The pass ids that have ordered: one order per admitted user (kept in memory here). */
  private final Set<String> ordered = ConcurrentHashMap.newKeySet();

  ShopController(PassVerifier passes) {
    this.passes = passes;
  }

  @GetMapping(value = "/", produces = MediaType.TEXT_HTML_VALUE)
  String home() {
    return "<h1>The shop</h1><ul><li><a href=\"/products/tickets\">Concert tickets</a></li>"
        + "<li><a href=\"/products/sneakers\">Limited sneakers</a></li></ul>";
  }

  @GetMapping(value = "/products/{id}", produces = MediaType.TEXT_HTML_VALUE)
  ResponseEntity<String> product(@PathVariable String id) {
    String name = PRODUCTS.get(id);
    if (name == null) {
      return ResponseEntity.status(HttpStatus.NOT_FOUND).body("<h1>No such product</h1>");
    }
    return ResponseEntity.ok(
        "<h1>"
            + name
            + "</h1><form method=\"post\" action=\"/checkout?product="
            + id
            + "\"><button>Buy</button></form>");
  }

  /**
   * One order per admitted user: the pass must verify, and its pass id may order once. 201 for the
   * order, 409 for a second one with the same pass, 403 without a valid pass.
   */
  @PostMapping(value = "/checkout", produces = MediaType.TEXT_PLAIN_VALUE)
  ResponseEntity<String> checkout(
      @RequestParam String product,
      @RequestHeader(name = PassVerifier.HEADER, required = false) String header) {
    if (!PRODUCTS.containsKey(product)) {
      return ResponseEntity.status(HttpStatus.NOT_FOUND).body("no such product\n");
    }
    Pass pass;
    switch (passes.verify(header)) {
      case PassCheck.Valid valid -> pass = valid.pass();
      case PassCheck.Refused refused -> {
        return ResponseEntity.status(HttpStatus.FORBIDDEN)
            .body("no valid pass: " + refused.reason() + "\n");
      }
    }
    if (!ordered.add(pass.passId())) {
      return ResponseEntity.status(HttpStatus.CONFLICT)
          .body("this visit has already ordered (pass " + pass.passId() + ")\n");
    }
    return ResponseEntity.status(HttpStatus.CREATED)
        .body("order accepted: " + product + " (pass " + pass.passId() + ")\n");
  }
}
