package io.faultline.broker.api;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.metadata.MetadataRecord.ConfigRecord;
import io.faultline.broker.metadata.MetadataRecord.TopicRecord;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.junit.jupiter.api.Test;

class ConfigApisTest {
    private static final MetadataImage IMAGE = MetadataImage.EMPTY.apply(3, List.of(new TopicRecord("t", new Uuid(1, 2)),
            new ConfigRecord(ConfigResource.Type.TOPIC, "t", "retention.ms", "1000")));
    private static final Set<String> OK = Set.of(ConfigResource.Type.TOPIC.id() + "/t");

    private static IncrementalAlterConfigsRequestData setRetention(boolean validateOnly) {
        var res = new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id())
                .setResourceName("t");
        res.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("2000")
                .setConfigOperation(AlterConfigOp.OpType.SET.id()));
        var req = new IncrementalAlterConfigsRequestData().setValidateOnly(validateOnly);
        req.resources().add(res);
        return req;
    }

    @Test
    void aChangeIsAnsweredOnceVisibleButAValidateOnlyOneAtOnceForItChangesNothing() {
        assertFalse(ConfigApis.showsAlteredValues(setRetention(false), OK, IMAGE), "retention.ms is still 1000 here: wait");
        assertTrue(ConfigApis.showsAlteredValues(setRetention(true), OK, IMAGE), "validate_only: nothing will ever show");
        var legacy = new AlterConfigsRequestData().setValidateOnly(true);
        var res = new AlterConfigsRequestData.AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("t");
        res.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("2000"));
        legacy.resources().add(res);
        assertTrue(ConfigApis.showsAlteredValues(legacy, OK, IMAGE));
        assertFalse(ConfigApis.showsAlteredValues(legacy.duplicate().setValidateOnly(false), OK, IMAGE));
    }
}
