package io.ringbase.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The layering of the server's main code, checked on its class files: dependencies point one way,
 * {@code cli -> node -> (api, observe) -> kv -> storage}, with {@code cluster} beside {@code api} (the
 * cluster implements {@code kv}; the node adapts the node-to-node API onto the HTTP server), and no package
 * cycles. Wall-clock time is read only through {@code clock}.
 */
@Timeout(120)
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.ringbase");
    }

    @Test
    void storageImportsNothingAboveIt() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("io.ringbase.storage..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.ringbase.api..",
                        "io.ringbase.kv..",
                        "io.ringbase.cluster..",
                        "io.ringbase.node..",
                        "io.ringbase.observe..",
                        "io.ringbase.cli..",
                        "io.ringbase.auth..",
                        "io.ringbase.aot..",
                        "io.ringbase.transport..");
        rule.check(main);
    }

    @Test
    void theStorageApiKnowsNoEngine() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.storage")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.ringbase.storage.lsm..", "io.ringbase.storage.rocksdb..")
                .check(main);
    }

    @Test
    void theEnginesKnowOnlyTheStorageApiOfEachOther() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.storage.rocksdb..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.ringbase.storage.lsm..")
                .check(main);
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.storage.lsm..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.ringbase.storage.rocksdb..")
                .check(main);
    }

    @Test
    void thePublicApiNeverImportsTheCluster() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.api..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.ringbase.cluster..",
                        "io.ringbase.node..",
                        "io.ringbase.cli..",
                        "io.ringbase.storage.lsm..",
                        "io.ringbase.storage.rocksdb..")
                .check(main);
    }

    @Test
    void theKeyValueServiceKnowsOnlyStorageAndClock() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.kv..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.ringbase.api..",
                        "io.ringbase.cluster..",
                        "io.ringbase.node..",
                        "io.ringbase.observe..",
                        "io.ringbase.cli..",
                        "io.ringbase.storage.lsm..",
                        "io.ringbase.storage.rocksdb..")
                .check(main);
    }

    @Test
    void theClusterKnowsNeitherTheHttpApiNorTheNode() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.cluster..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.ringbase.api..",
                        "io.ringbase.node..",
                        "io.ringbase.observe..",
                        "io.ringbase.cli..",
                        "io.ringbase.storage.rocksdb..")
                .check(main);
    }

    @Test
    void clusterMetadataStandsOnItsOwn() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.cluster.metadata..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.ringbase.api..",
                        "io.ringbase.kv..",
                        "io.ringbase.node..",
                        "io.ringbase.observe..",
                        "io.ringbase.cli..",
                        "io.ringbase.storage..",
                        "io.ringbase.cluster.hint..",
                        "io.ringbase.cluster.proxy..",
                        "io.ringbase.cluster.repair..",
                        "io.ringbase.cluster.replication..",
                        "io.ringbase.cluster.rpc..",
                        "io.ringbase.cluster.scan..")
                .check(main);
    }

    @Test
    void onlyTheElasticMembershipUsesTheClusterMetadata() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.ringbase.cluster.metadata..", "io.ringbase.cluster.elastic..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.ringbase.cluster.metadata..")
                .because("the node reaches the metadata log through cluster.elastic, which turns it into placements")
                .check(main);
    }

    @Test
    void ratisStaysInsideTheClusterMetadata() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.ringbase.cluster.metadata..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.ratis..")
                .because("the metadata service's API speaks ClusterMetadata and Transformation, never Ratis types")
                .check(main);
    }

    @Test
    void observabilityReadsFiguresWithoutKnowingTheApiOrTheNode() {
        noClasses()
                .that()
                .resideInAPackage("io.ringbase.observe..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.ringbase.api..", "io.ringbase.node..", "io.ringbase.cli..")
                .check(main);
    }

    @Test
    void onlyTheCommandLineUsesTheCommandLine() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.ringbase.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.ringbase.cli..")
                .check(main);
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.ringbase.(**)").should().beFreeOfCycles().check(main);
    }

    /** Reads of wall-clock time: calls and method references alike ({@code System::currentTimeMillis}). */
    private static final DescribedPredicate<JavaAccess<?>> WALL_CLOCK =
            new DescribedPredicate<>("read the wall clock") {
                private static final Set<String> NOW = Set.of(
                        "java.time.Instant",
                        "java.time.LocalDateTime",
                        "java.time.LocalDate",
                        "java.time.LocalTime",
                        "java.time.ZonedDateTime",
                        "java.time.OffsetDateTime");

                @Override
                public boolean test(JavaAccess<?> access) {
                    String owner = access.getTargetOwner().getName();
                    String name = access.getName();
                    return (owner.equals("java.lang.System") && name.equals("currentTimeMillis"))
                            || (NOW.contains(owner) && name.equals("now"))
                            || (owner.equals("java.time.Clock") && name.startsWith("system"))
                            || (owner.equals("java.util.Date")
                                    && name.equals("<init>")
                                    && access.getTarget() instanceof AccessTarget.ConstructorCallTarget c
                                    && c.getRawParameterTypes().isEmpty());
                }
            };

    @Test
    void wallClockTimeIsReadOnlyThroughTheClockPackage() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.ringbase.clock..")
                .should()
                .accessTargetWhere(WALL_CLOCK)
                .because("time is read from a clock.TimeSource, which tests can move (Cassandra bans it the same way)")
                .check(main);
    }
}
