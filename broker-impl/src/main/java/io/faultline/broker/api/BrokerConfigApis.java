package io.faultline.broker.api;

import io.faultline.broker.controller.BrokerConfigs;
import io.faultline.broker.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.LogLevelConfig;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs of BROKER resources (this broker: static settings plus every dynamic broker config with the source
 * of its value; the cluster default "": the dynamic defaults set) and BROKER_LOGGER resources, and the log level
 * changes of IncrementalAlterConfigs, which as in Kafka are this broker's own business, not the controller's.
 */
final class BrokerConfigApis {
    /** DescribeConfigs config sources, as Kafka numbers them. */
    static final byte DYNAMIC_BROKER_CONFIG = 2, DYNAMIC_DEFAULT_BROKER_CONFIG = 3, STATIC_BROKER_CONFIG = 4,
            DEFAULT_CONFIG = 5, DYNAMIC_BROKER_LOGGER_CONFIG = 6;

    private final BrokerContext ctx;
    private final BrokerLoggers loggers;

    BrokerConfigApis(BrokerContext ctx, BrokerLoggers loggers) {
        this.ctx = ctx;
        this.loggers = loggers;
    }

    /** The error for a BROKER or BROKER_LOGGER resource that does not name this broker, or empty. */
    private Optional<String> notThisBroker(String name, boolean defaultAllowed) {
        if (name == null || name.isEmpty()) return defaultAllowed ? Optional.empty() : Optional.of("Broker id must not be empty");
        if (name.equals(Integer.toString(ctx.nodeId()))) return Optional.empty();
        return Optional.of("Unexpected broker id, expected " + ctx.nodeId() + " but received " + name);
    }

    DescribeConfigsResult describeBroker(DescribeConfigsResource res, boolean includeSynonyms) {
        DescribeConfigsResult out = new DescribeConfigsResult().setResourceType(res.resourceType())
                .setResourceName(res.resourceName());
        Optional<String> bad = notThisBroker(res.resourceName(), true);
        if (bad.isPresent()) return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(bad.get());
        MetadataImage img = ctx.metadata().image();
        List<String> keys = res.configurationKeys();
        Map<String, String> clusterDefaults = img.brokerConfig("");
        if (res.resourceName().isEmpty()) { // the cluster-wide default resource shows only what is set on it
            clusterDefaults.forEach((name, value) -> {
                if (wanted(keys, name)) out.configs().add(entry(name, value, DYNAMIC_DEFAULT_BROKER_CONFIG, false, type(name))
                        .setSynonyms(includeSynonyms ? new ArrayList<>(List.of(synonym(name, value, DYNAMIC_DEFAULT_BROKER_CONFIG)))
                                : new ArrayList<>()));
            });
            return out.setErrorCode(Errors.NONE.code());
        }
        Map<String, String> perBroker = img.brokerConfig(res.resourceName());
        Map<String, String> statics = staticValues();
        for (BrokerConfigs.Def d : BrokerConfigs.DYNAMIC.values()) {
            if (!wanted(keys, d.name())) continue;
            List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
            if (perBroker.containsKey(d.name())) synonyms.add(synonym(d.name(), perBroker.get(d.name()), DYNAMIC_BROKER_CONFIG));
            if (clusterDefaults.containsKey(d.name())) {
                synonyms.add(synonym(d.name(), clusterDefaults.get(d.name()), DYNAMIC_DEFAULT_BROKER_CONFIG));
            }
            String fixed = statics.get(d.name());
            if (fixed != null && !fixed.equals(d.defaultValue())) synonyms.add(synonym(d.name(), fixed, STATIC_BROKER_CONFIG));
            synonyms.add(synonym(d.name(), d.defaultValue(), DEFAULT_CONFIG));
            DescribeConfigsSynonym effective = synonyms.get(0);
            out.configs().add(entry(d.name(), effective.value(), effective.source(), false, d.type().describeId())
                    .setSynonyms(includeSynonyms ? synonyms : new ArrayList<>()));
        }
        statics.forEach((name, value) -> {
            if (BrokerConfigs.DYNAMIC.containsKey(name) || !wanted(keys, name)) return;
            out.configs().add(entry(name, value, STATIC_BROKER_CONFIG, true, (byte) 0)
                    .setSynonyms(includeSynonyms ? new ArrayList<>(List.of(synonym(name, value, STATIC_BROKER_CONFIG)))
                            : new ArrayList<>()));
        });
        return out.setErrorCode(Errors.NONE.code());
    }

    /** This broker's settings from its properties file (under Kafka's names). */
    private Map<String, String> staticValues() {
        Map<String, String> v = new LinkedHashMap<>();
        var c = ctx.config();
        v.put("node.id", Integer.toString(ctx.nodeId()));
        v.put("num.partitions", Integer.toString(c.numPartitions()));
        v.put("auto.create.topics.enable", Boolean.toString(c.autoCreateTopics()));
        v.put("offsets.topic.num.partitions", Integer.toString(c.offsetsTopicPartitions()));
        v.put("log.dirs", String.join(",", c.logDirs().stream().map(Object::toString).toList()));
        v.put("default.replication.factor", Short.toString(c.cluster().defaultReplicationFactor()));
        v.put("min.insync.replicas", Integer.toString(c.cluster().minInsyncReplicas()));
        v.put("unclean.leader.election.enable", Boolean.toString(c.cluster().uncleanLeaderElection()));
        v.put("broker.session.timeout.ms", Integer.toString(c.cluster().brokerSessionTimeoutMs()));
        v.put("broker.heartbeat.interval.ms", Integer.toString(c.cluster().brokerHeartbeatIntervalMs()));
        v.put("replica.lag.time.max.ms", Long.toString(c.cluster().replicaLagTimeMaxMs()));
        v.put("socket.request.max.bytes", Integer.toString(c.socketRequestMaxBytes()));
        v.put("num.io.threads", Integer.toString(c.numIoThreads()));
        v.put("num.network.threads", Integer.toString(c.numNetworkThreads()));
        v.put("max.connections", Integer.toString(c.maxConnections()));
        // The log.* settings, from the static log defaults under their topic names.
        Map<String, String> log = ConfigApis.topicConfigs(c.defaultLogConfig());
        for (BrokerConfigs.Def d : BrokerConfigs.DYNAMIC.values()) {
            if (d.applied() && log.containsKey(d.topicSynonym())) v.put(d.name(), log.get(d.topicSynonym()));
        }
        return v;
    }

    DescribeConfigsResult describeLoggers(DescribeConfigsResource res, boolean includeSynonyms) {
        DescribeConfigsResult out = new DescribeConfigsResult().setResourceType(res.resourceType())
                .setResourceName(res.resourceName());
        Optional<String> bad = notThisBroker(res.resourceName(), false);
        if (bad.isPresent()) return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(bad.get());
        loggers.levels().forEach((name, level) -> {
            if (wanted(res.configurationKeys(), name)) {
                out.configs().add(entry(name, level, DYNAMIC_BROKER_LOGGER_CONFIG, false, (byte) 2)
                        .setSynonyms(includeSynonyms
                                ? new ArrayList<>(List.of(synonym(name, level, DYNAMIC_BROKER_LOGGER_CONFIG)))
                                : new ArrayList<>()));
            }
        });
        return out.setErrorCode(Errors.NONE.code());
    }

    /** Validates, then (unless validate-only) applies one BROKER_LOGGER resource of IncrementalAlterConfigs. */
    AlterConfigsResourceResponse alterLoggers(IncrementalAlterConfigsRequestData.AlterConfigsResource res,
                                              boolean validateOnly) {
        AlterConfigsResourceResponse out = new AlterConfigsResourceResponse().setResourceType(res.resourceType())
                .setResourceName(res.resourceName());
        Optional<String> bad = notThisBroker(res.resourceName(), false);
        if (bad.isEmpty() && !loggers.supported()) {
            bad = Optional.of("Log levels cannot be changed with this broker's SLF4J binding " + loggers.binding());
        }
        if (bad.isPresent()) return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(bad.get());
        for (var c : res.configs()) {
            AlterConfigOp.OpType op = AlterConfigOp.OpType.forId(c.configOperation());
            if (op == AlterConfigOp.OpType.APPEND || op == AlterConfigOp.OpType.SUBTRACT || op == null) {
                return out.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage(op + " operation is not allowed for the BROKER_LOGGER resource");
            }
            if (!loggers.exists(c.name())) {
                return out.setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage("Logger " + c.name() + " does not exist!");
            }
            if (op == AlterConfigOp.OpType.DELETE && BrokerLoggers.ROOT.equals(c.name())) {
                return out.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Removing the log level of the root logger is not allowed");
            }
            if (op == AlterConfigOp.OpType.SET && !LogLevelConfig.VALID_LOG_LEVELS.contains(c.value())) {
                return out.setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage("Cannot set the log level of "
                        + c.name() + " to " + c.value() + " as it is not a supported log level. Valid log levels are "
                        + String.join(", ", new TreeSet<>(LogLevelConfig.VALID_LOG_LEVELS)));
            }
        }
        if (!validateOnly) {
            for (var c : res.configs()) {
                if (c.configOperation() == AlterConfigOp.OpType.SET.id()) loggers.set(c.name(), c.value());
                else loggers.unset(c.name());
            }
        }
        return out.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
    }

    private static boolean wanted(List<String> keys, String name) {
        return keys == null || keys.isEmpty() || keys.contains(name);
    }

    private static byte type(String name) {
        BrokerConfigs.Def d = BrokerConfigs.DYNAMIC.get(name);
        return d == null ? 0 : d.type().describeId();
    }

    private static DescribeConfigsResourceResult entry(String name, String value, byte source, boolean readOnly, byte type) {
        return new DescribeConfigsResourceResult().setName(name).setValue(value).setConfigSource(source)
                .setReadOnly(readOnly).setIsSensitive(false).setConfigType(type);
    }

    private static DescribeConfigsSynonym synonym(String name, String value, byte source) {
        return new DescribeConfigsSynonym().setName(name).setValue(value).setSource(source);
    }
}
