package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.faultline.broker.api.SupportedApis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.*;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every advertised API at every advertised version gets a well-formed answer (the generated writers throw on
 * fields a version cannot carry, so this catches version-dependent response bugs), with the expected error code.
 */
class ApiVersionMatrixTest {
    @TempDir
    Path dir;

    private record Case(ApiKeys api, BiFunction<Short, Uuid, ApiMessage> request,
                        BiFunction<Short, ApiMessage, Errors> error, Errors expected) {
    }

    @Test
    void everyAdvertisedVersionIsAnswered() throws Exception {
        try (TestBroker b = TestBroker.start(dir); Admin admin = b.admin()) {
            TestBroker.createTopics(admin, new NewTopic("mx", 1, (short) 1));
            Uuid id = admin.describeTopics(List.of("mx")).allTopicNames().get().get("mx").topicId();
            List<Case> cases = cases();
            assertEquals(SupportedApis.implemented().size(), cases.size(), "a case for every implemented API");
            List<String> failures = new ArrayList<>();
            try (RawClient c = new RawClient(b.port())) {
                for (Case k : cases) {
                    for (short v = k.api().oldestVersion(); v <= SupportedApis.maxVersion(k.api()); v++) {
                        try {
                            ApiMessage resp = c.call(k.api(), v, k.request().apply(v, id));
                            Errors e = k.error().apply(v, resp);
                            if (e != k.expected()) failures.add(k.api() + " v" + v + ": " + e);
                        } catch (Exception e) {
                            failures.add(k.api() + " v" + v + " failed: " + e);
                            return; // connection is gone; report what we have
                        }
                    }
                }
            } finally {
                assertEquals(List.of(), failures);
            }
        }
    }

    private static List<Case> cases() {
        List<Case> l = new ArrayList<>();
        l.add(new Case(ApiKeys.API_VERSIONS, (v, id) -> v >= 3 ? new ApiVersionsRequestData()
                .setClientSoftwareName("t").setClientSoftwareVersion("1") : new ApiVersionsRequestData(),
                (v, r) -> Errors.forCode(((ApiVersionsResponseData) r).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.METADATA, (v, id) -> {
            MetadataRequestData m = new MetadataRequestData();
            m.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("mx"));
            return m;
        }, (v, r) -> Errors.forCode(((MetadataResponseData) r).topics().find("mx").errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.CREATE_TOPICS, (v, id) -> {
            CreateTopicsRequestData d = new CreateTopicsRequestData().setTimeoutMs(5000);
            d.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("ct" + v).setNumPartitions(1)
                    .setReplicationFactor((short) 1));
            return d;
        }, (v, r) -> Errors.forCode(((CreateTopicsResponseData) r).topics().find("ct" + v).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DELETE_TOPICS, (v, id) -> {
            DeleteTopicsRequestData d = new DeleteTopicsRequestData().setTimeoutMs(5000);
            if (v >= 6) d.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("ct" + (v + 1)));
            else d.setTopicNames(List.of("ct" + (v + 1)));
            return d;
        }, (v, r) -> Errors.forCode(((DeleteTopicsResponseData) r).responses().iterator().next().errorCode()),
                Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_CLUSTER, (v, id) -> new DescribeClusterRequestData(),
                (v, r) -> Errors.forCode(((DescribeClusterResponseData) r).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_CONFIGS, (v, id) -> {
            DescribeConfigsRequestData d = new DescribeConfigsRequestData();
            d.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                    .setResourceName("mx").setConfigurationKeys(null));
            return d;
        }, (v, r) -> Errors.forCode(((DescribeConfigsResponseData) r).results().get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.PRODUCE, (v, id) -> {
            ProduceRequestData d = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5000);
            ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
            if (v >= 13) t.setTopicId(id);
            else t.setName("mx");
            t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                    .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("v" + v).getBytes()))));
            d.topicData().add(t);
            return d;
        }, (v, r) -> Errors.forCode(((ProduceResponseData) r).responses().iterator().next().partitionResponses()
                .get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.FETCH, (v, id) -> {
            FetchRequestData d = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                    .setReplicaId(-1);
            FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
            if (v >= 13) t.setTopicId(id);
            else t.setTopic("mx");
            t.partitions().add(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 20));
            d.topics().add(t);
            return d;
        }, (v, r) -> {
            FetchResponseData.PartitionData p = ((FetchResponseData) r).responses().get(0).partitions().get(0);
            return p.records().sizeInBytes() > 0 ? Errors.forCode(p.errorCode()) : Errors.UNKNOWN_SERVER_ERROR;
        }, Errors.NONE));
        l.add(new Case(ApiKeys.LIST_OFFSETS, (v, id) -> {
            ListOffsetsRequestData d = new ListOffsetsRequestData().setReplicaId(-1);
            ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName("mx");
            t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1));
            d.topics().add(t);
            return d;
        }, (v, r) -> Errors.forCode(((ListOffsetsResponseData) r).topics().get(0).partitions().get(0).errorCode()),
                Errors.NONE));
        l.add(new Case(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (v, id) -> {
            OffsetForLeaderEpochRequestData d = new OffsetForLeaderEpochRequestData();
            OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("mx");
            t.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
                    .setLeaderEpoch(0).setCurrentLeaderEpoch(-1));
            d.topics().add(t);
            return d;
        }, (v, r) -> Errors.forCode(((OffsetForLeaderEpochResponseData) r).topics().iterator().next().partitions()
                .get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.INIT_PRODUCER_ID, (v, id) -> new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(60000), (v, r) -> Errors.forCode(((InitProducerIdResponseData) r).errorCode()),
                Errors.NONE));
        l.add(new Case(ApiKeys.FIND_COORDINATOR, (v, id) -> v >= 4
                ? new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g"))
                : new FindCoordinatorRequestData().setKey("g"),
                (v, r) -> {
                    FindCoordinatorResponseData d = (FindCoordinatorResponseData) r;
                    return Errors.forCode(v >= 4 ? d.coordinators().get(0).errorCode() : d.errorCode());
                }, Errors.NONE));
        l.add(new Case(ApiKeys.JOIN_GROUP, (v, id) -> {
            JoinGroupRequestData d = new JoinGroupRequestData().setGroupId("jg" + v).setMemberId("")
                    .setSessionTimeoutMs(10000).setRebalanceTimeoutMs(10000).setProtocolType("consumer");
            d.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[] {1}));
            return d;
        }, (v, r) -> {
            Errors e = Errors.forCode(((JoinGroupResponseData) r).errorCode());
            // v4+ must first learn its member id; older versions join at once
            return (v >= 4 ? e == Errors.MEMBER_ID_REQUIRED : e == Errors.NONE) ? Errors.NONE : e;
        }, Errors.NONE));
        l.add(new Case(ApiKeys.SYNC_GROUP, (v, id) -> new SyncGroupRequestData().setGroupId("jg0").setMemberId("nobody")
                .setGenerationId(1).setProtocolType(v >= 5 ? "consumer" : null).setProtocolName(v >= 5 ? "range" : null),
                (v, r) -> Errors.forCode(((SyncGroupResponseData) r).errorCode()), Errors.UNKNOWN_MEMBER_ID));
        l.add(new Case(ApiKeys.HEARTBEAT, (v, id) -> new HeartbeatRequestData().setGroupId("jg0").setMemberId("nobody")
                .setGenerationId(1), (v, r) -> Errors.forCode(((HeartbeatResponseData) r).errorCode()),
                Errors.UNKNOWN_MEMBER_ID));
        l.add(new Case(ApiKeys.LEAVE_GROUP, (v, id) -> {
            LeaveGroupRequestData d = new LeaveGroupRequestData().setGroupId("jg0");
            if (v >= 3) d.members().add(new LeaveGroupRequestData.MemberIdentity().setMemberId("nobody"));
            else d.setMemberId("nobody");
            return d;
        }, (v, r) -> {
            LeaveGroupResponseData d = (LeaveGroupResponseData) r;
            return Errors.forCode(v >= 3 ? d.members().get(0).errorCode() : d.errorCode());
        }, Errors.UNKNOWN_MEMBER_ID));
        l.add(new Case(ApiKeys.OFFSET_COMMIT, (v, id) -> {
            OffsetCommitRequestData d = new OffsetCommitRequestData().setGroupId("oc" + v)
                    .setGenerationIdOrMemberEpoch(-1).setMemberId("");
            OffsetCommitRequestData.OffsetCommitRequestTopic t = new OffsetCommitRequestData.OffsetCommitRequestTopic();
            if (v >= 10) t.setTopicId(id);
            else t.setName("mx");
            t.partitions().add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                    .setCommittedOffset(v));
            d.topics().add(t);
            return d;
        }, (v, r) -> Errors.forCode(((OffsetCommitResponseData) r).topics().get(0).partitions().get(0).errorCode()),
                Errors.NONE));
        l.add(new Case(ApiKeys.OFFSET_FETCH, (v, id) -> {
            OffsetFetchRequestData d = new OffsetFetchRequestData();
            if (v < 8) {
                d.setGroupId("oc" + v);
                d.setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("mx")
                        .setPartitionIndexes(List.of(0))));
            } else {
                OffsetFetchRequestData.OffsetFetchRequestTopics t = new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setPartitionIndexes(List.of(0));
                if (v >= 10) t.setTopicId(id);
                else t.setName("mx");
                d.groups().add(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("oc" + Math.min(v, 10))
                        .setTopics(List.of(t)));
            }
            return d;
        }, (v, r) -> {
            OffsetFetchResponseData d = (OffsetFetchResponseData) r;
            long committed = v < 8 ? d.topics().get(0).partitions().get(0).committedOffset()
                    : d.groups().get(0).topics().get(0).partitions().get(0).committedOffset();
            return committed == (v < 2 ? -1 : v) || (v == 1 && committed == -1) ? Errors.NONE : Errors.UNKNOWN_SERVER_ERROR;
        }, Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_GROUPS, (v, id) -> new DescribeGroupsRequestData().setGroups(List.of("oc5")),
                (v, r) -> Errors.forCode(((DescribeGroupsResponseData) r).groups().get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.LIST_GROUPS, (v, id) -> new ListGroupsRequestData(),
                (v, r) -> {
                    ListGroupsResponseData d = (ListGroupsResponseData) r;
                    boolean found = d.groups().stream().anyMatch(g -> g.groupId().equals("oc5"));
                    return found ? Errors.forCode(d.errorCode()) : Errors.GROUP_ID_NOT_FOUND;
                }, Errors.NONE));
        l.add(new Case(ApiKeys.DELETE_GROUPS, (v, id) -> new org.apache.kafka.common.message.DeleteGroupsRequestData()
                .setGroupsNames(List.of("no-such-group")),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DeleteGroupsResponseData) r).results()
                        .find("no-such-group").errorCode()), Errors.GROUP_ID_NOT_FOUND));
        l.add(new Case(ApiKeys.OFFSET_DELETE, (v, id) -> new org.apache.kafka.common.message.OffsetDeleteRequestData()
                .setGroupId("no-such-group"),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.OffsetDeleteResponseData) r).errorCode()),
                Errors.GROUP_ID_NOT_FOUND));
        l.add(new Case(ApiKeys.DELETE_RECORDS, (v, id) -> {
            var d = new org.apache.kafka.common.message.DeleteRecordsRequestData().setTimeoutMs(5000);
            d.topics().add(new org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic().setName("mx")
                    .setPartitions(List.of(new org.apache.kafka.common.message.DeleteRecordsRequestData
                            .DeleteRecordsPartition().setPartitionIndex(0).setOffset(0))));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DeleteRecordsResponseData) r).topics().find("mx")
                .partitions().find(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_LOG_DIRS, (v, id) -> new org.apache.kafka.common.message.DescribeLogDirsRequestData()
                .setTopics(null),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DescribeLogDirsResponseData) r).results().get(0)
                        .errorCode()), Errors.NONE));
        // Forwarded to the controller: partitions of "mx" grow by one per version; configs are set per version.
        l.add(new Case(ApiKeys.CREATE_PARTITIONS, (v, id) -> {
            org.apache.kafka.common.message.CreatePartitionsRequestData d =
                    new org.apache.kafka.common.message.CreatePartitionsRequestData().setTimeoutMs(5000);
            d.topics().add(new org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic()
                    .setName("mx").setCount(v + 2).setAssignments(null));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.CreatePartitionsResponseData) r).results().get(0)
                .errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (v, id) -> {
            org.apache.kafka.common.message.IncrementalAlterConfigsRequestData d =
                    new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData();
            var res = new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType((byte) 2).setResourceName("mx");
            res.configs().add(new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig()
                    .setName("retention.ms").setConfigOperation((byte) 0).setValue(Integer.toString(100_000 + v)));
            d.resources().add(res);
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.IncrementalAlterConfigsResponseData) r)
                .responses().get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.ALTER_CONFIGS, (v, id) -> {
            org.apache.kafka.common.message.AlterConfigsRequestData d = new org.apache.kafka.common.message.AlterConfigsRequestData();
            var res = new org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType((byte) 2).setResourceName("mx");
            res.configs().add(new org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig()
                    .setName("retention.ms").setValue(Integer.toString(200_000 + v)));
            d.resources().add(res);
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.AlterConfigsResponseData) r).responses().get(0)
                .errorCode()), Errors.NONE));
        addAdminCases(l);
        // Transactions: no __transaction_state exists here, so the coordinator APIs answer NOT_COORDINATOR; the
        // group coordinator takes a transactional offset commit, and any leader a marker.
        // (v4+ is the brokers' batched form: transaction version 2's server-side add, and verification)
        l.add(new Case(ApiKeys.ADD_PARTITIONS_TO_TXN, (v, id) -> {
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("mx").setPartitions(List.of(0));
            if (v >= 4) {
                AddPartitionsToTxnRequestData d = new AddPartitionsToTxnRequestData();
                var t = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId("t")
                        .setProducerId(1).setProducerEpoch((short) 0).setVerifyOnly(v == 4);
                t.topics().add(topic);
                d.transactions().add(t);
                return d;
            }
            AddPartitionsToTxnRequestData d = new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId("t")
                    .setV3AndBelowProducerId(1).setV3AndBelowProducerEpoch((short) 0);
            d.v3AndBelowTopics().add(topic);
            return d;
        }, (v, r) -> {
            AddPartitionsToTxnResponseData d = (AddPartitionsToTxnResponseData) r;
            var topics = v >= 4 ? d.resultsByTransaction().find("t").topicResults() : d.resultsByTopicV3AndBelow();
            return Errors.forCode(topics.find("mx").resultsByPartition().find(0).partitionErrorCode());
        }, Errors.NOT_COORDINATOR));
        l.add(new Case(ApiKeys.ADD_OFFSETS_TO_TXN, (v, id) -> new AddOffsetsToTxnRequestData().setTransactionalId("t")
                .setProducerId(1).setProducerEpoch((short) 0).setGroupId("g"),
                (v, r) -> Errors.forCode(((AddOffsetsToTxnResponseData) r).errorCode()), Errors.NOT_COORDINATOR));
        l.add(new Case(ApiKeys.END_TXN, (v, id) -> new EndTxnRequestData().setTransactionalId("t").setProducerId(1)
                .setProducerEpoch((short) 0).setCommitted(true),
                (v, r) -> Errors.forCode(((EndTxnResponseData) r).errorCode()), Errors.NOT_COORDINATOR));
        l.add(new Case(ApiKeys.TXN_OFFSET_COMMIT, (v, id) -> {
            TxnOffsetCommitRequestData d = new TxnOffsetCommitRequestData().setTransactionalId("t").setGroupId("g")
                    .setProducerId(1).setProducerEpoch((short) 0);
            d.topics().add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName("mx").setPartitions(
                    List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition().setPartitionIndex(0)
                            .setCommittedOffset(1))));
            return d;
        }, (v, r) -> {
            // v5+ is transaction version 2: the offsets partition is first added through the transaction
            // coordinator, and there is none here, so the answer is the retriable COORDINATOR_LOAD_IN_PROGRESS.
            Errors e = Errors.forCode(((TxnOffsetCommitResponseData) r).topics().get(0).partitions().get(0).errorCode());
            return v >= 5 && e == Errors.COORDINATOR_LOAD_IN_PROGRESS ? Errors.NONE : e;
        }, Errors.NONE));
        l.add(new Case(ApiKeys.WRITE_TXN_MARKERS, (v, id) -> {
            WriteTxnMarkersRequestData d = new WriteTxnMarkersRequestData();
            WriteTxnMarkersRequestData.WritableTxnMarker m = new WriteTxnMarkersRequestData.WritableTxnMarker()
                    .setProducerId(99).setProducerEpoch((short) 0).setTransactionResult(false).setCoordinatorEpoch(0);
            m.topics().add(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName("mx")
                    .setPartitionIndexes(List.of(0)));
            d.markers().add(m);
            return d;
        }, (v, r) -> Errors.forCode(((WriteTxnMarkersResponseData) r).markers().get(0).topics().get(0).partitions()
                .get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_TRANSACTIONS, (v, id) -> new DescribeTransactionsRequestData()
                .setTransactionalIds(List.of("t")), (v, r) -> Errors.forCode(((DescribeTransactionsResponseData) r)
                .transactionStates().get(0).errorCode()), Errors.NOT_COORDINATOR));
        l.add(new Case(ApiKeys.LIST_TRANSACTIONS, (v, id) -> new ListTransactionsRequestData(),
                (v, r) -> Errors.forCode(((ListTransactionsResponseData) r).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_PRODUCERS, (v, id) -> {
            DescribeProducersRequestData d = new DescribeProducersRequestData();
            d.topics().add(new DescribeProducersRequestData.TopicRequest().setName("mx").setPartitionIndexes(List.of(0)));
            return d;
        }, (v, r) -> Errors.forCode(((DescribeProducersResponseData) r).topics().get(0).partitions().get(0)
                .errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (v, id) -> {
            var d = new org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData();
            d.topics().add(new org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic()
                    .setName("mx").setPartitions(new ArrayList<>(List.of(
                            new org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                    .setPartitionIndex(0).setReplicas(new ArrayList<>(List.of(1)))))));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData) r)
                .responses().get(0).partitions().get(0).errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                (v, id) -> new org.apache.kafka.common.message.ListPartitionReassignmentsRequestData().setTopics(null),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.ListPartitionReassignmentsResponseData) r)
                        .errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.ELECT_LEADERS, (v, id) -> {
            var d = new org.apache.kafka.common.message.ElectLeadersRequestData();
            d.topicPartitions().add(new org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions()
                    .setTopic("mx").setPartitions(new ArrayList<>(List.of(0))));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.ElectLeadersResponseData) r)
                .replicaElectionResults().get(0).partitionResult().get(0).errorCode()), Errors.ELECTION_NOT_NEEDED));
        l.add(new Case(ApiKeys.DESCRIBE_QUORUM, (v, id) -> {
            var d = new org.apache.kafka.common.message.DescribeQuorumRequestData();
            d.topics().add(new org.apache.kafka.common.message.DescribeQuorumRequestData.TopicData()
                    .setTopicName("__cluster_metadata").setPartitions(new ArrayList<>(List.of(
                            new org.apache.kafka.common.message.DescribeQuorumRequestData.PartitionData()))));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DescribeQuorumResponseData) r).topics().get(0)
                .partitions().get(0).errorCode()), Errors.NONE));
        return l;
    }

    /** Client quotas, ACLs (no authorizer: SECURITY_DISABLED), SCRAM credentials (none) and features. */
    private static void addAdminCases(List<Case> l) {
        l.add(new Case(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, (v, id) -> {
            var d = new org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData();
            d.setUsers(new java.util.ArrayList<>(List.of(
                    new org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName().setName("u"))));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData) r)
                .results().get(0).errorCode()), Errors.RESOURCE_NOT_FOUND));
        l.add(new Case(ApiKeys.DESCRIBE_CLIENT_QUOTAS, (v, id) -> new org.apache.kafka.common.message.DescribeClientQuotasRequestData(),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DescribeClientQuotasResponseData) r).errorCode()),
                Errors.NONE));
        l.add(new Case(ApiKeys.ALTER_CLIENT_QUOTAS, (v, id) -> {
            var d = new org.apache.kafka.common.message.AlterClientQuotasRequestData();
            var e = new org.apache.kafka.common.message.AlterClientQuotasRequestData.EntryData();
            e.entity().add(new org.apache.kafka.common.message.AlterClientQuotasRequestData.EntityData()
                    .setEntityType("user").setEntityName("u" + v));
            e.ops().add(new org.apache.kafka.common.message.AlterClientQuotasRequestData.OpData()
                    .setKey("producer_byte_rate").setValue(1024));
            d.entries().add(e);
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.AlterClientQuotasResponseData) r).entries().get(0)
                .errorCode()), Errors.NONE));
        l.add(new Case(ApiKeys.DESCRIBE_ACLS, (v, id) -> new org.apache.kafka.common.message.DescribeAclsRequestData()
                .setResourceTypeFilter((byte) 1).setPatternTypeFilter((byte) 1).setOperation((byte) 1)
                .setPermissionType((byte) 1),
                (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DescribeAclsResponseData) r).errorCode()),
                Errors.SECURITY_DISABLED));
        l.add(new Case(ApiKeys.CREATE_ACLS, (v, id) -> {
            var d = new org.apache.kafka.common.message.CreateAclsRequestData();
            d.creations().add(new org.apache.kafka.common.message.CreateAclsRequestData.AclCreation()
                    .setResourceType((byte) 2).setResourceName("mx").setResourcePatternType((byte) 3)
                    .setPrincipal("User:a").setHost("*").setOperation((byte) 3).setPermissionType((byte) 3));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.CreateAclsResponseData) r).results().get(0)
                .errorCode()), Errors.SECURITY_DISABLED));
        l.add(new Case(ApiKeys.DELETE_ACLS, (v, id) -> {
            var d = new org.apache.kafka.common.message.DeleteAclsRequestData();
            d.filters().add(new org.apache.kafka.common.message.DeleteAclsRequestData.DeleteAclsFilter()
                    .setResourceTypeFilter((byte) 1).setPatternTypeFilter((byte) 1).setOperation((byte) 1)
                    .setPermissionType((byte) 1));
            return d;
        }, (v, r) -> Errors.forCode(((org.apache.kafka.common.message.DeleteAclsResponseData) r).filterResults().get(0)
                .errorCode()), Errors.SECURITY_DISABLED));
        l.add(new Case(ApiKeys.UPDATE_FEATURES, (v, id) -> {
            var d = new org.apache.kafka.common.message.UpdateFeaturesRequestData();
            d.featureUpdates().add(new org.apache.kafka.common.message.UpdateFeaturesRequestData.FeatureUpdateKey()
                    .setFeature("metadata.version").setMaxVersionLevel((short) 33));
            return d;
        }, (v, r) -> {
            var resp = (org.apache.kafka.common.message.UpdateFeaturesResponseData) r;
            if (resp.errorCode() != 0) return Errors.forCode(resp.errorCode());
            return v < 2 ? Errors.forCode(resp.results().find("metadata.version").errorCode()) : Errors.NONE;
        }, Errors.NONE));
    }
}
