package io.faultline.broker.api;

import io.faultline.broker.controller.BrokerConfigs;
import io.faultline.broker.controller.GroupConfigs;
import io.faultline.broker.metadata.MetadataImage;
import io.faultline.broker.network.Request;
import io.faultline.broker.storage.CleanupPolicy;
import io.faultline.broker.storage.LogConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;

/**
 * DescribeConfigs for topics (effective settings from the metadata image, with the source of each value) and groups,
 * for this broker and its loggers through {@link BrokerConfigApis}; config changes forwarded to the controller, except
 * log levels (BROKER_LOGGER), which are this broker's own.
 */
public final class ConfigApis {
    /** DescribeConfigs config sources, as Kafka numbers them. */
    private static final byte DYNAMIC_TOPIC_CONFIG = 1;
    private static final byte DEFAULT_CONFIG = 5;
    private static final byte GROUP_CONFIG = 8;

    private final BrokerContext ctx;
    private final BrokerConfigApis brokers;

    public ConfigApis(BrokerContext ctx) {
        this.ctx = ctx;
        this.brokers = new BrokerConfigApis(ctx, BrokerLoggers.jvm());
    }

    /** A LogConfig under Kafka's topic config names. */
    static Map<String, String> topicConfigs(LogConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cleanup.policy", c.cleanupPolicy().stream().map(p -> p == CleanupPolicy.COMPACT ? "compact" : "delete")
                .sorted().collect(Collectors.joining(",")));
        m.put("delete.retention.ms", Long.toString(c.deleteRetentionMs()));
        m.put("file.delete.delay.ms", Long.toString(c.fileDeleteDelayMs()));
        m.put("flush.messages", Long.toString(c.flushMessages()));
        m.put("flush.ms", Long.toString(c.flushMs()));
        m.put("index.interval.bytes", Integer.toString(c.indexIntervalBytes()));
        m.put("max.message.bytes", Integer.toString(c.maxMessageBytes()));
        m.put("message.timestamp.type", c.timestampType() == TimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime");
        m.put("retention.bytes", Long.toString(c.retentionBytes()));
        m.put("retention.ms", Long.toString(c.retentionMs()));
        m.put("segment.bytes", Integer.toString(c.segmentBytes()));
        m.put("segment.index.bytes", Integer.toString(c.segmentIndexBytes()));
        m.put("segment.ms", Long.toString(c.segmentMs()));
        return m;
    }

    /** IncrementalAlterConfigs and AlterConfigs belong to the controller: forwarded, answered once visible here. */
    public void alterConfigs(Request r) {
        List<Object> local = new java.util.ArrayList<>();
        org.apache.kafka.common.protocol.ApiMessage rest = r.body().data();
        if (rest instanceof org.apache.kafka.common.message.IncrementalAlterConfigsRequestData inc) {
            // Log levels are this broker's own (Kafka handles BROKER_LOGGER on the broker too); the rest is forwarded.
            var others = new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData()
                    .setValidateOnly(inc.validateOnly());
            var results = new org.apache.kafka.common.message.IncrementalAlterConfigsResponseData();
            for (var res : inc.resources()) {
                if (res.resourceType() == ConfigResource.Type.BROKER_LOGGER.id()) {
                    results.responses().add(brokers.alterLoggers(res, inc.validateOnly()));
                } else {
                    others.resources().add(res.duplicate());
                }
            }
            if (others.resources().isEmpty()) {
                ctx.channel().sendResponse(r, results);
                return;
            }
            rest = others;
            local.addAll(results.responses());
        } else if (rest instanceof org.apache.kafka.common.message.AlterConfigsRequestData all) {
            var others = new org.apache.kafka.common.message.AlterConfigsRequestData().setValidateOnly(all.validateOnly());
            var results = new org.apache.kafka.common.message.AlterConfigsResponseData();
            for (var res : all.resources()) {
                if (res.resourceType() == ConfigResource.Type.BROKER_LOGGER.id()) {
                    results.responses().add(new org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(res.resourceType()).setResourceName(res.resourceName())
                            .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(
                                    "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER"));
                } else {
                    others.resources().add(res.duplicate());
                }
            }
            if (others.resources().isEmpty()) {
                ctx.channel().sendResponse(r, results);
                return;
            }
            rest = others;
            local.addAll(results.responses());
        }
        org.apache.kafka.common.protocol.ApiMessage forwarded = rest;
        Forwarding.forward(ctx, r, forwarded, resp -> {
            for (var x : local) {
                if (resp instanceof org.apache.kafka.common.message.IncrementalAlterConfigsResponseData inc) {
                    inc.responses().add((org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse) x);
                } else if (resp instanceof org.apache.kafka.common.message.AlterConfigsResponseData all) {
                    all.responses().add((org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse) x);
                }
            }
            return resp;
        }, resp -> img -> showsAlteredValues(forwarded, succeeded(resp), img));
    }

    /**
     * Whether this node's image shows the values a config change set or removed on topics and groups (so a describe
     * sent here next sees them). Only resources the controller accepted ({@code ok}: "type/name") are waited for.
     */
    static boolean showsAlteredValues(org.apache.kafka.common.protocol.ApiMessage request, java.util.Set<String> ok,
                                      MetadataImage img) {
        // validate_only changes nothing, so there is nothing to wait for: waiting held the answer for the whole
        // catch-up bound (10 s), past many a client's timeout
        if (request instanceof org.apache.kafka.common.message.IncrementalAlterConfigsRequestData inc && inc.validateOnly()) return true;
        if (request instanceof org.apache.kafka.common.message.AlterConfigsRequestData all && all.validateOnly()) return true;
        if (request instanceof org.apache.kafka.common.message.IncrementalAlterConfigsRequestData inc) {
            for (var res : inc.resources()) {
                if (!ok.contains(res.resourceType() + "/" + res.resourceName())) continue;
                Map<String, String> now = configsOf(img, res.resourceType(), res.resourceName());
                if (now == null) continue;
                for (var c : res.configs()) {
                    boolean set = c.configOperation() == org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET.id();
                    boolean delete = c.configOperation() == org.apache.kafka.clients.admin.AlterConfigOp.OpType.DELETE.id();
                    if (set && !java.util.Objects.equals(now.get(c.name()), c.value())) return false;
                    if (delete && now.get(c.name()) != null) return false;
                }
            }
        } else if (request instanceof org.apache.kafka.common.message.AlterConfigsRequestData all) {
            for (var res : all.resources()) {
                if (!ok.contains(res.resourceType() + "/" + res.resourceName())) continue;
                Map<String, String> now = configsOf(img, res.resourceType(), res.resourceName());
                if (now == null) continue;
                for (var c : res.configs()) {
                    if (c.value() != null && !c.value().equals(now.get(c.name()))) return false;
                }
            }
        }
        return true;
    }

    /** The resources ("type/name") a config change response reports as done. */
    private static java.util.Set<String> succeeded(org.apache.kafka.common.protocol.ApiMessage resp) {
        java.util.Set<String> ok = new java.util.HashSet<>();
        if (resp instanceof org.apache.kafka.common.message.IncrementalAlterConfigsResponseData inc) {
            inc.responses().forEach(x -> {
                if (x.errorCode() == Errors.NONE.code()) ok.add(x.resourceType() + "/" + x.resourceName());
            });
        } else if (resp instanceof org.apache.kafka.common.message.AlterConfigsResponseData all) {
            all.responses().forEach(x -> {
                if (x.errorCode() == Errors.NONE.code()) ok.add(x.resourceType() + "/" + x.resourceName());
            });
        }
        return ok;
    }

    /** A topic's or group's overrides in the image; null for other resources (nothing to wait for). */
    private static Map<String, String> configsOf(MetadataImage img, byte type, String name) {
        if (type == ConfigResource.Type.TOPIC.id()) return img.topic(name).isPresent() ? img.topicConfig(name) : null;
        if (type == ConfigResource.Type.GROUP.id()) return img.groupConfig(name);
        if (type == ConfigResource.Type.BROKER.id()) return img.brokerConfig(name);
        return null;
    }

    /**
     * A group's configs as Kafka 4.4 describes them: every non-internal group config, the value set on the group
     * (source GROUP_CONFIG) or else the broker default (DEFAULT_CONFIG, with the broker config it comes from as a
     * synonym). The group need not exist; keys the request names that are not group configs are left out.
     */
    private DescribeConfigsResult describeGroup(DescribeConfigsRequestData.DescribeConfigsResource res,
                                                boolean includeSynonyms) {
        DescribeConfigsResult out = new DescribeConfigsResult().setResourceType(res.resourceType())
                .setResourceName(res.resourceName());
        if (res.resourceName() == null || res.resourceName().isEmpty()) {
            return out.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Group name must not be empty");
        }
        Map<String, String> set = ctx.metadata().image().groupConfig(res.resourceName());
        List<String> keys = res.configurationKeys();
        for (GroupConfigs.Def d : GroupConfigs.ALL.values()) {
            if (d.internal() || (keys != null && !keys.isEmpty() && !keys.contains(d.name()))) continue;
            String override = set.get(d.name());
            List<DescribeConfigsResponseData.DescribeConfigsSynonym> synonyms = new java.util.ArrayList<>();
            if (override != null) {
                synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(d.name())
                        .setValue(override).setSource(GROUP_CONFIG));
            }
            synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(d.brokerSynonym())
                    .setValue(d.defaultValue()).setSource(DEFAULT_CONFIG));
            out.configs().add(new DescribeConfigsResourceResult().setName(d.name())
                    .setValue(override != null ? override : d.defaultValue())
                    .setConfigSource(override != null ? GROUP_CONFIG : DEFAULT_CONFIG)
                    .setReadOnly(false).setIsSensitive(false).setConfigType(d.type().id)
                    .setSynonyms(includeSynonyms ? synonyms : new java.util.ArrayList<>()));
        }
        return out.setErrorCode(Errors.NONE.code());
    }

    public void describeConfigs(Request r) {
        DescribeConfigsRequestData req = r.data();
        DescribeConfigsResponseData resp = new DescribeConfigsResponseData().setThrottleTimeMs(0);
        for (DescribeConfigsRequestData.DescribeConfigsResource res : req.resources()) {
            DescribeConfigsResult out = new DescribeConfigsResult().setResourceType(res.resourceType())
                    .setResourceName(res.resourceName());
            if (res.resourceType() == ConfigResource.Type.GROUP.id()) {
                resp.results().add(describeGroup(res, req.includeSynonyms()));
            } else if (res.resourceType() == ConfigResource.Type.TOPIC.id()) {
                resp.results().add(describeTopic(res, out));
            } else if (res.resourceType() == ConfigResource.Type.BROKER.id()) {
                resp.results().add(brokers.describeBroker(res, req.includeSynonyms()));
            } else if (res.resourceType() == ConfigResource.Type.BROKER_LOGGER.id()) {
                resp.results().add(brokers.describeLoggers(res, req.includeSynonyms()));
            } else {
                resp.results().add(out.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Unsupported resource " + res.resourceType() + "/" + res.resourceName()));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }

    /**
     * A topic's effective configs; the source says where each value comes from: the topic, this broker's dynamic
     * config, the cluster-wide dynamic default, or the broker's static defaults.
     */
    private DescribeConfigsResult describeTopic(DescribeConfigsRequestData.DescribeConfigsResource res,
                                               DescribeConfigsResult out) {
        MetadataImage img = ctx.metadata().image();
        if (img.topic(res.resourceName()).isEmpty()) {
            return out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setErrorMessage("Topic " + res.resourceName() + " does not exist");
        }
        Map<String, String> overrides = img.topicConfig(res.resourceName());
        Map<String, String> clusterDefaults = BrokerConfigs.topicDefaults(img.brokerConfig(""));
        Map<String, String> brokerDefaults = BrokerConfigs.topicDefaults(img.brokerConfig(Integer.toString(ctx.nodeId())));
        Map<String, String> values = topicConfigs(ctx.config().defaultLogConfig().with(clusterDefaults)
                .with(brokerDefaults).with(overrides));
        values.put("min.insync.replicas", Integer.toString(ctx.config().cluster().minInsyncReplicas()));
        values.put("unclean.leader.election.enable", Boolean.toString(ctx.config().cluster().uncleanLeaderElection()));
        List<String> keys = res.configurationKeys();
        values.forEach((name, staticValue) -> {
            if (keys != null && !keys.isEmpty() && !keys.contains(name)) return;
            String value = staticValue;
            byte source = DEFAULT_CONFIG;
            if (overrides.containsKey(name)) {
                value = overrides.get(name);
                source = DYNAMIC_TOPIC_CONFIG;
            } else if (brokerDefaults.containsKey(name)) {
                value = brokerDefaults.get(name);
                source = BrokerConfigApis.DYNAMIC_BROKER_CONFIG;
            } else if (clusterDefaults.containsKey(name)) {
                value = clusterDefaults.get(name);
                source = BrokerConfigApis.DYNAMIC_DEFAULT_BROKER_CONFIG;
            }
            out.configs().add(new DescribeConfigsResourceResult().setName(name).setValue(value).setReadOnly(false)
                    .setConfigSource(source).setIsSensitive(false));
        });
        return out.setErrorCode(Errors.NONE.code());
    }
}
