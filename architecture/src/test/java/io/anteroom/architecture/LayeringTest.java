package io.anteroom.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.anteroom.door.violation.DoorClassThatImportsVertx;
import io.anteroom.room.violation.CoreClassThatImportsObjects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The boundaries of the architecture (docs/architecture.md), checked over the main classes of every
 * module: the room core is pure, modules depend only downward, and no package cycle lets a lower
 * package reach a higher one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LayeringTest {
  private JavaClasses production;

  @BeforeAll
  void importMainClasses() {
    production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.anteroom");
    assertThat(production.contain("io.anteroom.room.RoomWorker")).isTrue();
    assertThat(production.contain("io.anteroom.gateway.Main")).isTrue();
    assertThat(production.contain("io.anteroom.door.Door")).isTrue();
    assertThat(production.contain("io.anteroom.coordinator.server.CoordinatorCommand")).isTrue();
    assertThat(production.contain("io.anteroom.cli.UntilShutdown")).isTrue();
  }

  /**
   * The waiting-room decisions are plain computations over data and a clock: no storage, no
   * network, no logging, no other module of ours. This is what lets the simulator run the
   * production algorithm in virtual time.
   */
  static final ArchRule ROOM_CORE_IS_PURE =
      classes()
          .that()
          .resideInAPackage("io.anteroom.room..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "io.anteroom.room..",
              "java.lang",
              "java.lang.invoke",
              "java.lang.runtime",
              "java.util..",
              "java.time..",
              "java.math..",
              // metadata only: two derived record methods are marked @JsonIgnore for the objects'
              // codec; an annotation has no behaviour and the core never calls Jackson
              "com.fasterxml.jackson.annotation")
          .as(
              "the room core depends only on itself and java.lang/util/time/math (no I/O, no"
                  + " objects, no logging)");

  /**
   * The door is the request path of every server: it knows no HTTP server (Vert.x, Netty, Servlets)
   * and no coordination transport (the objects runtime, the coordinator's objects); adapters map
   * their server's requests to it, and the coordination reaches it through the {@code Coordination}
   * seam.
   */
  static final ArchRule DOOR_KNOWS_NO_SERVER =
      noClasses()
          .that()
          .resideInAPackage("io.anteroom.door..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.vertx..",
              "io.netty..",
              "jakarta.servlet..",
              "javax.servlet..",
              "org.springframework..",
              "io.anteroom.objects..",
              "io.anteroom.coordinator..",
              "io.anteroom.gateway..")
          .as("the door depends on no HTTP server, no objects runtime and no adapter");

  /**
   * Raft (the replicated coordinator on Ratis) belongs to the coordinator process: the gateway, the
   * rooms' wiring, the Servlet filter and the room objects themselves never reach it, so an
   * application with the filter and a gateway carry none of it.
   */
  static final ArchRule ONLY_THE_COORDINATOR_PROCESS_KNOWS_RAFT =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.anteroom.gateway..",
              "io.anteroom.host..",
              "io.anteroom.servlet..",
              "io.anteroom.spring..",
              "io.anteroom.door..")
          .or(
              resideInAPackage("io.anteroom.coordinator..")
                  .and(not(resideInAPackage("io.anteroom.coordinator.server.."))))
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.anteroom.objects.ratis..", "org.apache.ratis..")
          .as("only the coordinator process (io.anteroom.coordinator.server) knows Raft");

  static final ArchRule MODULES_DEPEND_ONLY_DOWNWARD =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("testkit")
          .definedBy("io.anteroom.testkit..")
          .layer("objects")
          .definedBy("io.anteroom.objects..")
          .layer("backpressure")
          .definedBy("io.anteroom.backpressure..")
          .layer("room")
          .definedBy("io.anteroom.room..")
          .layer("coordinator")
          .definedBy(
              resideInAPackage("io.anteroom.coordinator..")
                  .and(not(resideInAPackage("io.anteroom.coordinator.server.."))))
          .layer("door")
          .definedBy("io.anteroom.door..")
          .layer("host")
          .definedBy("io.anteroom.host..")
          // the coordinator process: its commands and the replicated coordinator's peer
          .layer("coordinator-server")
          .definedBy("io.anteroom.coordinator.server..")
          .layer("gateway")
          .definedBy("io.anteroom.gateway..")
          .layer("servlet")
          .definedBy("io.anteroom.servlet..")
          .layer("spring")
          .definedBy("io.anteroom.spring..")
          .layer("sim")
          .definedBy("io.anteroom.sim..")
          .layer("bench")
          .definedBy("io.anteroom.bench..")
          // the signed pass: an origin application depends on this module alone to verify
          .layer("pass")
          .definedBy("io.anteroom.pass..")
          // what every command of the command line shares, whichever module contributes it
          .layer("cli")
          .definedBy("io.anteroom.cli..")
          .whereLayer("testkit")
          // bench: the cluster benchmark's peers speak mutual TLS with the tests' certificates
          .mayOnlyBeAccessedByLayers("bench")
          .whereLayer("objects")
          .mayOnlyBeAccessedByLayers(
              "coordinator", "host", "coordinator-server", "gateway", "servlet", "bench")
          .whereLayer("backpressure")
          .mayOnlyBeAccessedByLayers(
              "coordinator", "door", "host", "gateway", "servlet", "sim", "bench")
          .whereLayer("room")
          .mayOnlyBeAccessedByLayers(
              "coordinator", "door", "host", "gateway", "servlet", "sim", "bench")
          .whereLayer("coordinator")
          .mayOnlyBeAccessedByLayers("host", "coordinator-server", "gateway", "servlet", "bench")
          .whereLayer("door")
          // sim: simulate --config reads the operator's rooms with the door's ConfigLoader
          // coordinator-server: --config's webhooks and the data directory, read as a gateway does
          .mayOnlyBeAccessedByLayers(
              "host", "coordinator-server", "gateway", "servlet", "spring", "sim", "bench")
          .whereLayer("host")
          // coordinator-server: the deployment's shared secret, read as a gateway reads it
          .mayOnlyBeAccessedByLayers("coordinator-server", "gateway", "servlet", "spring", "bench")
          .whereLayer("coordinator-server")
          // bench: the cluster benchmark starts replicated-coordinator peers
          .mayOnlyBeAccessedByLayers("bench")
          .whereLayer("cli")
          .mayOnlyBeAccessedByLayers("coordinator-server", "gateway", "sim")
          .whereLayer("gateway")
          // sim: the gateway is on its class path (its subcommand joins the gateway's command line)
          .mayOnlyBeAccessedByLayers("sim", "bench")
          .whereLayer("servlet")
          .mayOnlyBeAccessedByLayers("spring")
          .whereLayer("spring")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("sim")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("bench")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("pass")
          .mayOnlyBeAccessedByLayers("door", "host", "servlet", "spring", "gateway", "bench");

  /**
   * The door's packages by role, lowest first: request matching values, settings, the ticket, the
   * proof-of-work check, the decision, the queue answers, routing and bypass rules, then the door
   * itself (its stages and answers).
   */
  static final ArchRule DOOR_PACKAGES_DEPEND_ONLY_DOWNWARD =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("match")
          .definedBy("io.anteroom.door.match..")
          .layer("config")
          .definedBy("io.anteroom.door.config..")
          .layer("ticket")
          .definedBy("io.anteroom.door.ticket..")
          .layer("proof")
          .definedBy("io.anteroom.door.proof..")
          .layer("admission")
          .definedBy("io.anteroom.door.admission..")
          .layer("queue")
          .definedBy("io.anteroom.door.queue..")
          .layer("route")
          .definedBy("io.anteroom.door.route..")
          .layer("door")
          .definedBy("io.anteroom.door")
          .whereLayer("door")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("route")
          .mayOnlyBeAccessedByLayers("door")
          .whereLayer("queue")
          .mayOnlyBeAccessedByLayers("door")
          .whereLayer("admission")
          .mayOnlyBeAccessedByLayers("queue", "door")
          .whereLayer("proof")
          .mayOnlyBeAccessedByLayers("queue", "door")
          .whereLayer("ticket")
          .mayOnlyBeAccessedByLayers("proof", "admission", "queue", "door")
          .whereLayer("config")
          .mayOnlyBeAccessedByLayers("ticket", "proof", "admission", "queue", "route", "door");

  /**
   * The gateway's packages by role, lowest first: the Vert.x adapter of the door (listener, proxy),
   * then the admin API, the demo and the composition root.
   */
  static final ArchRule GATEWAY_PACKAGES_DEPEND_ONLY_DOWNWARD =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("edge")
          .definedBy("io.anteroom.gateway.edge..")
          .layer("admin")
          .definedBy("io.anteroom.gateway.admin..")
          .layer("demo")
          .definedBy("io.anteroom.gateway.demo..")
          .layer("root")
          .definedBy("io.anteroom.gateway")
          .whereLayer("root")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("demo")
          .mayOnlyBeAccessedByLayers("root")
          .whereLayer("admin")
          .mayOnlyBeAccessedByLayers("root")
          .whereLayer("edge")
          .mayOnlyBeAccessedByLayers("admin", "demo", "root");

  /** A cycle between packages means some package depends upward; none is allowed. */
  static final ArchRule NO_PACKAGE_CYCLES =
      slices().matching("io.anteroom.(**)").should().beFreeOfCycles();

  static final ArchRule NO_TEST_SUPPORT_IN_PRODUCTION =
      noClasses()
          .that()
          // the benchmarks are measuring tools, never part of the distribution
          .resideOutsideOfPackages("io.anteroom.testkit..", "io.anteroom.bench..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.anteroom.testkit..", "org.junit..", "org.assertj..", "net.jqwik..");

  @Test
  void roomCoreImportsNoIoAndNoOtherModule() {
    ROOM_CORE_IS_PURE.check(production);
  }

  @Test
  void modulesDependOnlyDownward() {
    MODULES_DEPEND_ONLY_DOWNWARD.check(production);
  }

  @Test
  void onlyTheCoordinatorProcessKnowsRaft() {
    ONLY_THE_COORDINATOR_PROCESS_KNOWS_RAFT.check(production);
  }

  @Test
  void theDoorKnowsNoServer() {
    DOOR_KNOWS_NO_SERVER.check(production);
  }

  @Test
  void doorPackagesDependOnlyDownward() {
    DOOR_PACKAGES_DEPEND_ONLY_DOWNWARD.check(production);
  }

  /** The door's rule is not vacuous: a door class importing Vert.x breaks it. */
  @Test
  void doorRuleFailsForADoorClassImportingVertx() {
    JavaClasses violating = new ClassFileImporter().importClasses(DoorClassThatImportsVertx.class);
    assertThat(DOOR_KNOWS_NO_SERVER.evaluate(violating).hasViolation()).isTrue();
  }

  @Test
  void gatewayPackagesDependOnlyDownward() {
    GATEWAY_PACKAGES_DEPEND_ONLY_DOWNWARD.check(production);
  }

  @Test
  void noPackageDependsUpward() {
    NO_PACKAGE_CYCLES.check(production);
  }

  @Test
  void productionCodeUsesNoTestSupport() {
    NO_TEST_SUPPORT_IN_PRODUCTION.check(production);
  }

  /** The purity rule is not vacuous: a core class importing the objects runtime breaks it. */
  @Test
  void roomCoreRuleFailsForACoreClassImportingObjects() {
    JavaClasses violating =
        new ClassFileImporter().importClasses(CoreClassThatImportsObjects.class);
    assertThat(ROOM_CORE_IS_PURE.evaluate(violating).hasViolation()).isTrue();
  }
}
