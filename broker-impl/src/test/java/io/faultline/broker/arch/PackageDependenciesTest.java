package io.faultline.broker.arch;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The allowed dependencies between broker-impl's packages, lowest first. A new edge must be added here on purpose:
 * the storage engine and the metadata model know nothing of the network or the API layer, the API handlers
 * nothing of how the node is wired (server), and no two packages depend on each other.
 */
class PackageDependenciesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.faultline.broker");

    @Test
    void packagesDependOnlyOnTheLayersBelowThem() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("common").definedBy("io.faultline.broker.common..")
                .layer("storage").definedBy("io.faultline.broker.storage..")
                .layer("purgatory").definedBy("io.faultline.broker.purgatory..")
                .layer("metadata").definedBy("io.faultline.broker.metadata..")
                .layer("network").definedBy("io.faultline.broker.network..")
                .layer("controller").definedBy("io.faultline.broker.controller..")
                .layer("config").definedBy("io.faultline.broker.config..")
                .layer("partition").definedBy("io.faultline.broker.partition..")
                .layer("replication").definedBy("io.faultline.broker.replication..")
                .layer("group").definedBy("io.faultline.broker.group..")
                .layer("api").definedBy("io.faultline.broker.api..")
                .layer("server").definedBy("io.faultline.broker.server..")
                .layer("main").definedBy("io.faultline.broker")
                .whereLayer("common").mayNotAccessAnyLayer()
                .whereLayer("storage").mayOnlyAccessLayers("common")
                .whereLayer("purgatory").mayOnlyAccessLayers("common")
                .whereLayer("metadata").mayOnlyAccessLayers("common")
                .whereLayer("network").mayOnlyAccessLayers("common")
                .whereLayer("controller").mayOnlyAccessLayers("common", "metadata", "storage")
                .whereLayer("config").mayOnlyAccessLayers("common", "storage", "network", "controller")
                .whereLayer("partition").mayOnlyAccessLayers("common", "storage", "purgatory", "metadata", "config")
                .whereLayer("replication").mayOnlyAccessLayers("common", "storage", "purgatory", "metadata", "config",
                        "network", "partition")
                .whereLayer("group").mayOnlyAccessLayers("common", "storage", "purgatory", "metadata", "partition")
                .whereLayer("api").mayOnlyAccessLayers("common", "storage", "purgatory", "metadata", "network",
                        "controller", "config", "partition", "replication", "group")
                .whereLayer("server").mayOnlyBeAccessedByLayers("main")
                .whereLayer("main").mayNotBeAccessedByAnyLayer()
                .allowEmptyShould(true)
                .check(CLASSES);
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.faultline.broker.(*)..").should().beFreeOfCycles().check(CLASSES);
    }
}
