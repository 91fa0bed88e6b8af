package io.faultline.broker.api;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker implements, each from the Kafka 4.x baseline ({@link ApiKeys#oldestVersion()}, what Kafka
 * 4.0+ still accepts) to the latest stable version of kafka-clients 4.4.0. Only these are advertised in
 * ApiVersions, and the network layer refuses any other key or version.
 */
public final class SupportedApis {
    private static final Set<ApiKeys> IMPLEMENTED = EnumSet.of(
            ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
            ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.PRODUCE, ApiKeys.FETCH,
            ApiKeys.LIST_OFFSETS, ApiKeys.OFFSET_FOR_LEADER_EPOCH, ApiKeys.INIT_PRODUCER_ID,
            ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT,
            ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.LIST_GROUPS,
            ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE, ApiKeys.DELETE_RECORDS, ApiKeys.DESCRIBE_LOG_DIRS,
            ApiKeys.CREATE_PARTITIONS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.ALTER_CONFIGS,
            ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS,
            ApiKeys.DELETE_ACLS, ApiKeys.UPDATE_FEATURES, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
            ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.TXN_OFFSET_COMMIT,
            ApiKeys.WRITE_TXN_MARKERS, ApiKeys.DESCRIBE_TRANSACTIONS, ApiKeys.LIST_TRANSACTIONS,
            ApiKeys.DESCRIBE_PRODUCERS,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.LIST_PARTITION_REASSIGNMENTS, ApiKeys.ELECT_LEADERS,
            ApiKeys.DESCRIBE_QUORUM);

    /**
     * Transactions up to transaction version 2 (KIP-890 part 2): AddPartitionsToTxn v4-v5 (broker to broker), EndTxn
     * v5 (epoch bump per transaction); clients use them only when transaction.version 2 is finalized. TxnOffsetCommit
     * v6 addresses topics by id, which is not served: up to v5.
     */
    private static final java.util.Map<ApiKeys, Short> CAPPED = java.util.Map.of(ApiKeys.TXN_OFFSET_COMMIT, (short) 5);

    private SupportedApis() {
    }

    public static boolean isSupported(ApiKeys api, short version) {
        return IMPLEMENTED.contains(api) && version >= api.oldestVersion() && version <= maxVersion(api);
    }

    public static short maxVersion(ApiKeys api) {
        return CAPPED.getOrDefault(api, api.latestVersion(false));
    }

    public static Set<ApiKeys> implemented() {
        return IMPLEMENTED;
    }

    public static ApiVersionCollection asCollection() {
        ApiVersionCollection c = new ApiVersionCollection();
        for (ApiKeys k : IMPLEMENTED) {
            c.add(new ApiVersion().setApiKey(k.id).setMinVersion(k.oldestVersion()).setMaxVersion(maxVersion(k)));
        }
        return c;
    }
}
