package io.coilgun.tests;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering of the design card, checked on the compiled classes of every module (every reference in the
 * bytecode, fully qualified names included, not just imports): {@code server -> pgwire, sql, cluster};
 * {@code sql -> planner}; {@code cluster -> planner -> storage}; {@code pgwire} knows the protocol and nothing of
 * Kafka, RocksDB, Calcite or the other modules; the libraries stay where they belong (Kafka in cluster and server,
 * Calcite in sql, RocksDB in storage, Netty in pgwire); and no package depends on itself through others (no
 * package cycle anywhere, inside a module or across).
 */
class LayeringTest {
    private static final String KAFKA = "org.apache.kafka..";
    private static final String CALCITE = "org.apache.calcite..";
    private static final String ROCKSDB = "org.rocksdb..";
    private static final String NETTY = "io.netty..";

    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.coilgun");
    }

    private static void check(String module, String... forbidden) {
        ArchRule rule = noClasses().that().resideInAPackage("io.coilgun." + module + "..")
                .should().dependOnClassesThat().resideInAnyPackage(forbidden)
                .because("the module layering of the design card (docs/architecture.md, Modules)");
        assertHolds(rule);
    }

    /** The rule holds on the imported classes; a failure lists every violating reference. */
    private static void assertHolds(ArchRule rule) {
        assertTrue(classes.contain("io.coilgun.server.CoilgunNode"), "every module's classes were imported");
        EvaluationResult result = rule.evaluate(classes);
        assertFalse(result.hasViolation(), () -> result.getFailureReport().toString());
    }

    @Test
    void storageDependsOnNoOtherModule() {
        check("storage", "io.coilgun.planner..", "io.coilgun.cluster..", "io.coilgun.sql..", "io.coilgun.pgwire..",
                "io.coilgun.server..", KAFKA, CALCITE, NETTY);
    }

    @Test
    void plannerDependsOnStorageOnly() {
        check("planner", "io.coilgun.cluster..", "io.coilgun.sql..", "io.coilgun.pgwire..", "io.coilgun.server..",
                KAFKA, CALCITE, NETTY, ROCKSDB);
    }

    @Test
    void clusterDependsOnPlannerAndStorage() {
        check("cluster", "io.coilgun.sql..", "io.coilgun.pgwire..", "io.coilgun.server..", CALCITE, NETTY, ROCKSDB);
    }

    @Test
    void sqlDependsOnPlannerOnly() {
        check("sql", "io.coilgun.cluster..", "io.coilgun.pgwire..", "io.coilgun.server..", "io.coilgun.storage..",
                KAFKA, NETTY, ROCKSDB);
    }

    @Test
    void pgwireKnowsOnlyTheProtocol() {
        check("pgwire", "io.coilgun.storage..", "io.coilgun.planner..", "io.coilgun.cluster..", "io.coilgun.sql..",
                "io.coilgun.server..", KAFKA, CALCITE, ROCKSDB);
    }

    @Test
    void sessionsSeeTheirInterfaceNotTheNode() {
        assertHolds(noClasses().that().resideInAPackage("io.coilgun.server.session..")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.coilgun.server.CoilgunNode")
                .because("a session needs SessionServices only (no file cycle between the node and its sessions)"));
    }

    @Test
    void theServerUsesPgwireThroughItsSpi() {
        check("server", "io.coilgun.pgwire.copy..", "io.coilgun.pgwire.types..", "io.coilgun.pgwire.protocol..",
                "io.coilgun.pgwire.codec..");
    }

    @Test
    void thePgwireSpiStandsAlone() {
        check("pgwire.spi", "io.coilgun.pgwire.copy..", "io.coilgun.pgwire.types..", "io.coilgun.pgwire.protocol..",
                "io.coilgun.pgwire.codec..", "io.coilgun.pgwire.auth..", "io.coilgun.pgwire.tls..");
    }

    @Test
    void theSqlFrontDoorKeepsCalciteInside() {
        // sessions get SqlStatement, CompiledStatement and ResultShape from sql; parse trees never leave it
        check("server", CALCITE);
    }

    /**
     * Every package is a slice, and no two of them depend on each other, directly or through others: a package cycle
     * (say {@code cluster.assign -> cluster.task -> cluster.assign}) means neither can be read, tested or moved alone.
     */
    @Test
    void noPackageCycles() {
        assertHolds(slices().matching("io.coilgun.(**)").should().beFreeOfCycles()
                .because("packages are rooms: each one readable and testable without the ones that use it"));
    }

    @Test
    void serverDoesNotReachStorage() {
        check("server", "io.coilgun.storage..", ROCKSDB);
    }
}
