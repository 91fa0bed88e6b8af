package io.faultline.harness;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A campaign's child JVMs run from the release tarball too: they inherit where the node jars are. */
class CampaignChildPropertiesTest {
    @Test
    void everyFaultlineSettingAndTheLogLevelCarryOver() {
        var props = new Properties();
        props.setProperty("faultline.projectRoot", "/opt/faultline");
        props.setProperty("faultline.kafka.libs", "/opt/faultline/node-libs/apache-kafka");
        props.setProperty("faultline.broker.libs", "/opt/faultline/node-libs/broker-impl");
        props.setProperty("faultline.lazyfs.libs", "/opt/faultline/node-libs/lazyfs");
        props.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        props.setProperty("java.home", "/usr/lib/jvm/java-17");
        props.setProperty("user.dir", "/tmp");
        assertEquals(List.of(
                "-Dfaultline.broker.libs=/opt/faultline/node-libs/broker-impl",
                "-Dfaultline.kafka.libs=/opt/faultline/node-libs/apache-kafka",
                "-Dfaultline.lazyfs.libs=/opt/faultline/node-libs/lazyfs",
                "-Dfaultline.projectRoot=/opt/faultline",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error"), CampaignChild.inheritedProperties(props));
    }
}
