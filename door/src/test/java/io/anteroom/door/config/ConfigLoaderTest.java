package io.anteroom.door.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.GatewayConfig.RoomSettings;
import io.anteroom.room.slots.StrategyKind;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

  @Test
  void anEmptyFileGivesTheDocumentedDefaults() {
    GatewayConfig c = ConfigLoader.parse("", "test");
    assertThat(c.listen().toString()).isEqualTo("127.0.0.1:8080");
    assertThat(c.admin().listen().toString()).isEqualTo("127.0.0.1:9090");
    assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
    assertThat(c.origin()).isEqualTo(URI.create("http://127.0.0.1:8081"));
    assertThat(c.rooms()).isEmpty();
  }

  @Test
  void runWithOnlyAnOriginProtectsTheWholeSiteWithDefaultLimits() {
    GatewayConfig c = ConfigLoader.forOrigin(URI.create("http://127.0.0.1:3000"));
    assertThat(c.origin()).isEqualTo(URI.create("http://127.0.0.1:3000"));
    var room = c.rooms().get(0);
    assertThat(room.id()).isEqualTo("default");
    assertThat(room.routing().host()).isEqualTo("*");
    assertThat(room.routing().path()).isEqualTo("/");
    assertThat(room.limits().totalActiveUsers()).isEqualTo(1000);
    assertThat(room.limits().newUsersPerMinute()).isEqualTo(1000);
    assertThat(room.limits().sessionDurationMinutes()).isEqualTo(5);
    assertThat(room.limits().queueRefreshSeconds()).isEqualTo(20);
    assertThat(room.limits().strategy()).isEqualTo(StrategyKind.COUNTERS);
    assertThat(room.limits().queueingMethod()).isEqualTo(QueueingMethod.FIFO);
    assertThat(room.resilience().failMode()).isEqualTo(FailMode.DEGRADE);
    assertThat(room.queuePage().jsonResponse()).isTrue();
    assertThat(room.cookie().cookieSameSite()).isEqualTo(CookieSameSite.LAX);
    assertThat(room.resilience().originProtection().enabled()).isFalse();
  }

  @Test
  void everyRoomKeyIsRead() {
    GatewayConfig c =
        ConfigLoader.parse(
            """
        listen: 0.0.0.0:80
        origin: https://shop.example
        dataDir: /var/lib/anteroom
        admin: { listen: 127.0.0.1:9999, token: s3cret-s3cret-s3cret }
        ticketKeys:
          - { id: 7, secret: AAAAAAAAAAAAAAAAAAAAAA== }
        rooms:
          - id: sale
            host: shop.example
            path: /sale/
            additionalRoutes: [ { host: m.shop.example, path: /sale/ } ]
            origin: http://10.0.0.5:8080
            totalActiveUsers: 500
            newUsersPerMinute: 50
            sessionDurationMinutes: 10
            queueRefreshSeconds: 30
            queueTimeoutMinutes: 3
            strategy: evenSplit
            curveFactor: 2
            queueingMethod: reject
            queueAll: true
            suspended: true
            disableSessionRenewal: true
            cookieSuffix: _v2
            cookieSameSite: None
            cookieSecure: true
            generation: 1790000000
            jsonResponse: false
            failMode: closed
            bypass:
              - { path: /sale/api/**, header: X-Api-Key }
              - { cidr: 10.0.0.0/8 }
            originProtection: { enabled: true, maxLatencyMillis: 200 }
        """,
            "test");
    var r = c.rooms().get(0);
    assertThat(c.ticketKeys()).hasSize(1);
    assertThat(c.ticketKeys().get(0).id()).isEqualTo(7);
    assertThat(c.admin().token()).isEqualTo("s3cret-s3cret-s3cret");
    assertThat(r.routes()).hasSize(2);
    assertThat(r.routing().origin()).contains(URI.create("http://10.0.0.5:8080"));
    assertThat(r.limits().strategy()).isEqualTo(StrategyKind.EVEN_SPLIT);
    assertThat(r.limits().queueingMethod()).isEqualTo(QueueingMethod.REJECT);
    assertThat(r.switches().queueAll()).isTrue();
    assertThat(r.switches().suspended()).isTrue();
    assertThat(r.limits().disableSessionRenewal()).isTrue();
    assertThat(r.cookie().cookieSuffix()).isEqualTo("_v2");
    assertThat(r.cookie().cookieSameSite()).isEqualTo(CookieSameSite.NONE);
    assertThat(r.resilience().failMode()).isEqualTo(FailMode.CLOSED);
    assertThat(r.generation()).isEqualTo(1_790_000_000L);
    assertThat(r.protection().bypass()).hasSize(2);
    assertThat(r.resilience().originProtection().maxLatencyMillis()).isEqualTo(200);
    assertThat(ConfigLoader.parseRoom(ConfigLoader.toJson(r).toString())).isEqualTo(r);
  }

  @Test
  void aWrongValueNamesTheKeyAndTheAllowedValues() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            strategy: evenspilt
            totalActiveUsers: 0
            queueingMethod: lottery
        """,
                    "anteroom.yaml"))
        .hasMessageContaining("anteroom.yaml")
        .hasMessageContaining(
            "rooms[0].strategy: \"evenspilt\" is not allowed; allowed: counters,"
                + " evenSplit, utilizationScaled (did you mean \"evenSplit\"?)")
        .hasMessageContaining("rooms[0].totalActiveUsers: totalActiveUsers is 0; allowed: 1..")
        .hasMessageContaining(
            "rooms[0].queueingMethod: \"lottery\" is not allowed; allowed: fifo,"
                + " passthrough, reject, random");
  }

  @Test
  void anUnknownKeyIsAnErrorWithASuggestion() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            totalActiveUser: 10
        """,
                    "x"))
        .hasMessageContaining(
            "rooms[0].totalActiveUser: unknown key (did you mean" + " \"totalActiveUsers\"?)");
    assertThatThrownBy(() -> ConfigLoader.parse("lisen: 1.2.3.4:5", "x"))
        .hasMessageContaining("lisen: unknown key (did you mean \"listen\"?)");
  }

  @Test
  void duplicateTicketKeyIdsAreRefused() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        ticketKeys:
          - { id: 4, secret: AAAAAAAAAAAAAAAAAAAAAA== }
          - { id: 5, secret: AAAAAAAAAAAAAAAAAAAAAA== }
          - { id: 4, secret: AQAAAAAAAAAAAAAAAAAAAA== }
        """,
                    "x"))
        .hasMessageContaining(
            "ticketKeys[2].id: duplicate key id 4; every ticket key needs its own id (0..255)");
  }

  @Test
  void generationIsAWholeNumberFrom0AndDefaults0() {
    assertThat(ConfigLoader.parseRoom("{ id: a }").generation()).isZero();
    assertThat(ConfigLoader.parseRoom("{ id: a, generation: 9007199254740991 }").generation())
        .isEqualTo(9_007_199_254_740_991L);
    assertThatThrownBy(() -> ConfigLoader.parseRoom("{ id: a, generation: -1 }"))
        .hasMessageContaining(
            "room.generation: -1 is out of range; allowed: 0 to 9007199254740991");
    assertThatThrownBy(() -> ConfigLoader.parseRoom("{ id: a, generation: 1.5 }"))
        .hasMessageContaining("room.generation: expected a whole number");
    assertThat(ConfigLoader.setsKey("{ id: a, generation: 3 }", "generation")).isTrue();
    assertThat(ConfigLoader.setsKey("{ id: a }", "generation")).isFalse();
  }

  @Test
  void malformedValuesAreExplained() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        listen: nowhere
        origin: ftp://x
        rooms:
          - { id: "bad id!", path: shop }
          - { id: b, bypass: [ { cidr: 10.0.0.0/40 } ] }
          - { id: c, bypass: [ {} ] }
          - { id: c, path: /c/, cookieSameSite: None }
        """,
                    "x"))
        .hasMessageContaining("listen: \"nowhere\" is not host:port")
        .hasMessageContaining("origin: \"ftp://x\" is not an http:// or https:// URL")
        .hasMessageContaining("rooms[0].id: \"bad id!\" is not allowed")
        .hasMessageContaining("rooms[0].path: \"shop\" must start with '/'")
        .hasMessageContaining(
            "rooms[1].bypass[0].cidr: \"10.0.0.0/40\": prefix length must be 0" + " to 32")
        .hasMessageContaining(
            "rooms[2].bypass[0]: a rule without conditions would match every request")
        .hasMessageContaining("rooms[3].id: duplicate room id \"c\"")
        .hasMessageContaining("rooms[3].cookieSameSite: None requires cookieSecure: true");
  }

  @Test
  void everyProblemOfARoomsRulesIsOneLine() {
    String yaml =
        """
        rooms:
          - id: a
            rules:
              - { path: /x }
              - { action: deny, path: /x }
              - { action: block, method: "PO ST", query: { glob: "x*" } }
              - { action: block, header: { name: X-A, value: "1", glob: "1*" }, cidr: 10.0.0.0/33 }
              - { action: bypass, signed: { keyFile: /nonexistent/monitor.key, maxAgeSeconds: 0 } }
              - { action: queue, path: static/**, header: "X-A", headerValue: v, colour: red }
            bypass:
              - { action: block, path: /y }
        """;
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "x"))
        .hasMessageContaining("rooms[0].rules[0].action: missing; one of bypass, challenge, block")
        .hasMessageContaining("rooms[0].rules[1].action: \"deny\" is not allowed; allowed: bypass,")
        .hasMessageContaining("rooms[0].rules[2].method: \"PO ST\" is not a request method")
        .hasMessageContaining("rooms[0].rules[2].query.name: missing")
        .hasMessageContaining("rooms[0].rules[3].header.glob: give value (exact) or glob, not both")
        .hasMessageContaining("rooms[0].rules[3].cidr: \"10.0.0.0/33\"")
        .hasMessageContaining(
            "rooms[0].rules[4].signed.keyFile: cannot read /nonexistent/monitor.key")
        .hasMessageContaining("rooms[0].rules[4].signed.maxAgeSeconds: 0 is out of range")
        .hasMessageContaining("rooms[0].rules[5].path: \"static/**\" never matches")
        .hasMessageContaining("rooms[0].rules[5].colour: unknown key")
        .hasMessageContaining(
            "rooms[0].bypass[0].action: \"block\" in a bypass rule: bypass rules always bypass;"
                + " move the rule to the room's \"rules\" list");
  }

  @Test
  void aHumanCheckNeedsItsSiteKeyAReadableSecretAndWebUrls() {
    String yaml =
        """
        rooms:
          - id: a
            humanCheck: { enabled: true, provider: captcha, secretFile: /nonexistent/secret,
                          verifyUrl: "ftp://x/siteverify", onFailure: block, timeoutMillis: 5 }
          - id: b
            path: /b/
            addressLimit: { newIdentitiesPerMinute: -1, ipv4PrefixLength: 33, ipv6PrefixLength: 64 }
        """;
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "x"))
        .hasMessageContaining(
            "rooms[0].humanCheck.provider: \"captcha\" is not allowed; allowed:"
                + " turnstile, hcaptcha, recaptcha")
        .hasMessageContaining("rooms[0].humanCheck.siteKey: missing")
        .hasMessageContaining("rooms[0].humanCheck.secretFile: cannot read /nonexistent/secret")
        .hasMessageContaining("rooms[0].humanCheck.verifyUrl: \"ftp://x/siteverify\" is not an")
        .hasMessageContaining("rooms[0].humanCheck.onFailure: \"block\" is not allowed")
        .hasMessageContaining("rooms[0].humanCheck.timeoutMillis: 5 is out of range")
        .hasMessageContaining("rooms[1].addressLimit.newIdentitiesPerMinute: -1 is out of range")
        .hasMessageContaining("rooms[1].addressLimit.ipv4PrefixLength: 33 is out of range");
  }

  @Test
  void rulesOfEveryFormReadBackFromTheirJson(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Path key = dir.resolve("k");
    java.nio.file.Files.writeString(key, "0123456789abcdef0123456789abcdef");
    String yaml =
        """
        rooms:
          - id: a
            rules:
              - { action: block, method: [POST, put], query: [ { name: p, glob: "b*" } ] }
              - { action: challenge, header: { name: X-A, value: v, not: true }, cookie: { name: c, value: "1" } }
              - { action: bypass, signed: { keyFile: %s } }
              - { action: queue, cidr: [ 10.0.0.0/8, "2001:db8::/32" ], userAgent: "*x*" }
            bypass: [ { header: X-Health, headerValue: ok }, { cookie: staff } ]
        """
            .formatted(key);
    RoomSettings r = ConfigLoader.parse(yaml, "x").rooms().getFirst();
    assertThat(r.protection().rules()).hasSize(4);
    assertThat(r.protection().rules().getFirst().methods()).containsExactly("POST", "PUT");
    assertThat(r.allRules()).hasSize(6);
    assertThat(r.protection().rules().get(2).signed().orElseThrow().header())
        .isEqualTo("Anteroom-Bypass");
    var json = RoomKeys.toJson(r);
    assertThat(json.get("bypass").get(0).get("header").asText()).isEqualTo("X-Health");
    RoomSettings again =
        ConfigLoader.parse("rooms: [ " + json.toString() + " ]", "again").rooms().getFirst();
    assertThat(again).isEqualTo(r);
  }

  @Test
  void routePathsAndHostsMustBeInTheFormRequestsAreRoutedIn() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - { id: a, path: /Shop/./ }
          - { id: b, path: "/%73hop//" }
          - { id: c, path: /../x/ }
          - { id: d, path: "/x?y" }
          - { id: e, host: "shop.example.com:8443" }
          - { id: f, host: "shop example" }
          - { id: g, additionalRoutes: [ { host: x, path: //y/ } ] }
        """,
                    "x"))
        .hasMessageContaining(
            "rooms[0].path: \"/Shop/./\" is not in normal form; requests are"
                + " routed on normalised paths, write \"/Shop/\"")
        .hasMessageContaining("rooms[1].path: \"/%73hop//\" is not in normal form")
        .hasMessageContaining("write \"/shop/\"")
        .hasMessageContaining(
            "rooms[2].path: \"/../x/\" is not a usable path prefix: the"
                + " request path climbs above the root")
        .hasMessageContaining("rooms[3].path: \"/x?y\" is a path prefix")
        .hasMessageContaining(
            "rooms[4].host: \"shop.example.com:8443\" is not a host name:" + " write the name only")
        .hasMessageContaining("rooms[5].host: \"shop example\" is not a host name")
        .hasMessageContaining(
            "rooms[6].additionalRoutes[0].path: \"//y/\" is not in normal" + " form");
  }

  @Test
  void originsAreOnlySchemeHostAndPort() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        origin: http://user:pw@10.0.0.1:80
        rooms:
          - { id: a, origin: "http://10.0.0.2/app?x=1" }
        """,
                    "x"))
        .hasMessageContaining(
            "origin: \"http://user:pw@10.0.0.1:80\" must be only"
                + " scheme://host[:port] (no user information, path, query or fragment)")
        .hasMessageContaining("rooms[0].origin: \"http://10.0.0.2/app?x=1\" must be only");
  }

  @Test
  void twoRoomsCannotShareARoute() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - { id: a, path: /x/ }
          - { id: b, path: /x/ }
        """,
                    "x"))
        .hasMessageContaining("route */x/ is already used by another room");
  }

  @Test
  void invalidYamlSaysWhere() {
    assertThatThrownBy(() -> ConfigLoader.parse("rooms: [ {id: a", "f.yaml"))
        .hasMessageStartingWith("f.yaml: not valid YAML");
  }

  @Test
  void templatesAreFileNamesInsideTheTemplatesDirectory(
      @org.junit.jupiter.api.io.TempDir Path dir) {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        templatesDir: %s
        rooms:
          - { id: a, template: page.mustache }
          - { id: b, template: /etc/passwd }
          - { id: c, template: ../x.mustache }
        """
                        .formatted(dir),
                    "x"))
        .hasMessageContaining(
            "rooms[0].template: \"page.mustache\": no such readable file in" + " templatesDir")
        .hasMessageContaining(
            "rooms[1].template: \"/etc/passwd\" is not a template name: give a"
                + " file name relative to templatesDir")
        .hasMessageContaining("rooms[2].template: \"../x.mustache\" is not a template name");
    assertThatThrownBy(
            () -> ConfigLoader.parse("rooms: [ { id: a, template: page.mustache } ]", "x"))
        .hasMessageContaining(
            "rooms[0].template: \"page.mustache\": no templatesDir is" + " configured");
    assertThatThrownBy(
            () -> ConfigLoader.parse("dataDir: %s/data\ntemplatesDir: %s".formatted(dir, dir), "x"))
        .hasMessageContaining("templatesDir: \"" + dir + "\" contains dataDir");
  }

  @Test
  void trustedProxiesAreCidrBlocks() {
    assertThat(ConfigLoader.parse("trustedProxies: [ 10.0.0.0/8, '::1' ]", "x").trustedProxies())
        .containsExactly("10.0.0.0/8", "::1");
    assertThatThrownBy(() -> ConfigLoader.parse("trustedProxies: [ lb.example ]", "x"))
        .hasMessageContaining("trustedProxies: [0] \"lb.example\" is not a CIDR block");
  }

  @Test
  void listenerLimitsHaveDefaultsAndRanges() {
    GatewayConfig c = ConfigLoader.parse("", "x");
    assertThat(c.publicListener().limits())
        .isEqualTo(new GatewayConfig.ConnectionLimits(10_000, 10_000, 120));
    assertThat(c.admin().limits()).isEqualTo(new GatewayConfig.ConnectionLimits(64, 10_000, 60));
    assertThat(c.publicListener().tls()).isEmpty();
    assertThat(c.publicListener().proxyProtocol()).isFalse();
    GatewayConfig set =
        ConfigLoader.parse(
            """
            maxConnections: 5
            requestHeadTimeoutMillis: 300
            idleTimeoutSeconds: 7
            admin: { maxConnections: 2, requestHeadTimeoutMillis: 400, idleTimeoutSeconds: 3 }
            """,
            "x");
    assertThat(set.publicListener().limits())
        .isEqualTo(new GatewayConfig.ConnectionLimits(5, 300, 7));
    assertThat(set.admin().limits()).isEqualTo(new GatewayConfig.ConnectionLimits(2, 400, 3));
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "maxConnections: 0\nadmin: { requestHeadTimeoutMillis: 5 }", "x"))
        .hasMessageContaining("maxConnections: 0 is out of range; allowed: 1 to 1000000")
        .hasMessageContaining(
            "admin.requestHeadTimeoutMillis: 5 is out of range; allowed: 100 to 600000");
  }

  @Test
  void proxyProtocolNeedsTrustedProxies() {
    assertThatThrownBy(() -> ConfigLoader.parse("proxyProtocol: true", "x"))
        .hasMessageContaining("proxyProtocol: true needs trustedProxies");
    assertThat(
            ConfigLoader.parse("proxyProtocol: true\ntrustedProxies: [ 10.0.0.0/8 ]", "x")
                .publicListener()
                .proxyProtocol())
        .isTrue();
  }

  @Test
  void tlsNeedsReadablePemFiles(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    java.nio.file.Files.writeString(
        cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    java.nio.file.Files.writeString(
        key, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
    GatewayConfig c =
        ConfigLoader.parse("tls: { certFile: '%s', keyFile: '%s' }".formatted(cert, key), "x");
    assertThat(c.publicListener().tls()).contains(new GatewayConfig.TlsFiles(cert, key));
    assertThatThrownBy(() -> ConfigLoader.parse("tls: { certFile: '%s' }".formatted(cert), "x"))
        .hasMessageContaining("tls.keyFile: missing; the PEM file of its private key");
    Path absent = dir.resolve("absent.pem");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "tls: { certFile: '%s', keyFile: '%s' }".formatted(absent, key), "x"))
        .hasMessageContaining(
            "tls.certFile: \"" + absent + "\" does not exist or is not a readable file");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "tls: { certFile: '%s', keyFile: '%s' }".formatted(key, cert), "x"))
        .hasMessageContaining("tls.certFile: \"" + key + "\" is not a PEM file of the certificate")
        .hasMessageContaining("tls.keyFile: \"" + cert + "\" is not a PEM file of its private key");
    assertThatThrownBy(() -> ConfigLoader.parse("tls: { cert: x.pem }", "x"))
        .hasMessageContaining("tls.cert: unknown key; allowed here: certFile, keyFile");
  }

  @Test
  void anAdminTokenNeedsSixteenCharacters() {
    assertThatThrownBy(() -> ConfigLoader.parse("admin: { token: change-me }", "x"))
        .hasMessageContaining("admin.token: is 9 characters; at least 16 are required");
  }

  @Test
  void aZeroOrNegativeQueueTimeoutIsRefusedInTheFilesOwnWords() {
    for (int minutes : new int[] {0, -5}) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.parse(
                      "rooms: [ { id: a, queueTimeoutMinutes: " + minutes + " } ]", "x"))
          .hasMessageContaining(
              "rooms[0].queueTimeoutMinutes: queueTimeoutMinutes is "
                  + minutes
                  + "; allowed: 1..1440 (minutes, at least queueRefreshSeconds: 20 s)")
          .message()
          .doesNotContain("PT", "queueTimeout is");
    }
  }

  @Test
  void aMissingConfigFileIsNamedWithoutTheExceptionsClass(@TempDir Path dir) {
    Path missing = dir.resolve("missing.yaml");
    assertThatThrownBy(() -> ConfigLoader.load(missing))
        .hasMessage("config file not found: " + missing);
    assertThatThrownBy(() -> ConfigLoader.load(dir))
        .hasMessage("config file " + dir + " is a directory; give the YAML file in it");
  }

  @Test
  void aRoomCoreRuleIsReportedUnderTheKeyThatBrokeItTogetherWithTheOtherProblems() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    """
        rooms:
          - id: a
            queueRefreshSeconds: 300
            queueTimeoutMinutes: 3
            sessionDurationMinutes: 2000
            curveFactor: 0
        """,
                    "x"))
        .hasMessageContaining(
            "rooms[0].queueTimeoutMinutes: queueTimeoutMinutes is 3; allowed: 5..1440"
                + " (minutes, at least queueRefreshSeconds: 300 s)")
        .hasMessageContaining(
            "rooms[0].sessionDurationMinutes: sessionDurationMinutes is 2000;"
                + " allowed: 1..1440")
        .hasMessageContaining("rooms[0].curveFactor: curveFactor is 0.0; allowed:");
  }

  @Test
  void defaultsOfRoomCoreKeysAreTheRoomCoresOwn() {
    var room = ConfigLoader.parse("rooms: [ { id: a, totalActiveUsers: 10 } ]", "x").rooms().get(0);
    var core =
        io.anteroom.room.RoomConfig.builder("a")
            .totalActiveUsers(10)
            .newUsersPerMinute(10)
            .sessionDurationMinutes(5)
            .build();
    assertThat(room.roomConfig(room.limits().newUsersPerMinute())).isEqualTo(core);
  }

  @Test
  void theAdminApiWritesEveryKeyOfTheTableAndReadsItBack() {
    var room =
        ConfigLoader.parse(
                """
        rooms:
          - id: shop
            origin: http://127.0.0.1:1
            template: queue-page.mustache
            queueingMethod: passthrough
            failMode: open
            strategy: utilizationScaled
        templatesDir: %s
        """
                    .formatted(
                        Path.of("src/main/resources/io/anteroom/door/queue").toAbsolutePath()),
                "x")
            .rooms()
            .get(0);
    var json = ConfigLoader.toJson(room);
    var names = new java.util.ArrayList<String>();
    json.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactlyElementsOf(RoomKeys.ALL.stream().map(RoomKeys.Key::name).toList());
    assertThat(json.get("strategy").asText()).isEqualTo("utilizationScaled");
    assertThat(json.get("failMode").asText()).isEqualTo("open");
    assertThat(ConfigLoader.parseRoom(json.toString())).isEqualTo(room);
  }
}
