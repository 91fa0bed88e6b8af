package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Feature flags (kafka-features describe/upgrade). This broker has one fixed behaviour, so it supports and has
 * finalized exactly one level of {@code metadata.version}: that of the Kafka release whose client APIs it serves
 * (4.4-IV2, level 33, what a new Kafka 4.4 cluster finalizes). It finalizes no other feature (no transaction.version
 * or group.version: clients then use the classic protocols this broker implements). UpdateFeatures accepts a
 * request that keeps the finalized level and refuses any other change with Kafka's INVALID_UPDATE_VERSION.
 */
public final class FeatureApis {
    public static final String METADATA_VERSION = "metadata.version";
    /** Kafka's MetadataVersion.IBP_4_4_IV2 feature level. */
    public static final short METADATA_VERSION_LEVEL = 33;
    /** The features never change, so their epoch never moves. */
    private static final long FINALIZED_EPOCH = 0;

    private final BrokerContext ctx;

    public FeatureApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /** Adds the supported and finalized features to an ApiVersions response (read by clients at v3+). */
    public static ApiVersionsResponseData withFeatures(ApiVersionsResponseData resp) {
        resp.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey().setName(METADATA_VERSION)
                .setMinVersion(METADATA_VERSION_LEVEL).setMaxVersion(METADATA_VERSION_LEVEL));
        resp.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey().setName(METADATA_VERSION)
                .setMinVersionLevel(METADATA_VERSION_LEVEL).setMaxVersionLevel(METADATA_VERSION_LEVEL));
        return resp.setFinalizedFeaturesEpoch(FINALIZED_EPOCH);
    }

    public void updateFeatures(Request r) {
        UpdateFeaturesRequestData req = r.data();
        UpdateFeaturesResponseData resp = new UpdateFeaturesResponseData().setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code()).setErrorMessage(null);
        String firstError = null;
        for (UpdateFeaturesRequestData.FeatureUpdateKey u : req.featureUpdates()) {
            String why = refusal(u.feature(), u.maxVersionLevel());
            if (why != null && firstError == null) firstError = why;
            resp.results().add(new UpdateFeaturesResponseData.UpdatableFeatureResult().setFeature(u.feature())
                    .setErrorCode(why == null ? Errors.NONE.code() : Errors.INVALID_UPDATE_VERSION.code())
                    .setErrorMessage(why));
        }
        if (r.version() >= 2) {
            // Version 2 carries no per-feature results: one failure fails the request.
            resp.results().clear();
            if (firstError != null) resp.setErrorCode(Errors.INVALID_UPDATE_VERSION.code()).setErrorMessage(firstError);
        }
        ctx.channel().sendResponse(r, resp);
    }

    /** Why this broker refuses to finalize {@code feature} at {@code level}, or null when that is what it has. */
    private String refusal(String feature, short level) {
        if (feature.equals(METADATA_VERSION)) {
            if (level == METADATA_VERSION_LEVEL) return null;
            return "Invalid update version " + level + " for feature " + METADATA_VERSION + ". Broker " + ctx.nodeId()
                    + " only supports versions " + METADATA_VERSION_LEVEL + "-" + METADATA_VERSION_LEVEL;
        }
        if (level <= 0) return null; // removing a feature that is not finalized changes nothing
        return "Invalid update version " + level + " for feature " + feature + ". Broker " + ctx.nodeId()
                + " does not support this feature.";
    }
}
