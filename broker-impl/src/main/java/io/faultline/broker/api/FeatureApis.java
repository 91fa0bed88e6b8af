package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Feature flags (kafka-features describe/upgrade). This broker supports and has finalized exactly one level of
 * {@code metadata.version}: that of the Kafka release whose client APIs it serves (4.4-IV2, level 33, what a new
 * Kafka 4.4 cluster finalizes). {@code transaction.version} is supported at 0-2 and finalized at the broker's
 * {@code transaction.version} property (default 2, what a new Kafka 4.x cluster finalizes; 0 finalizes nothing);
 * kafka-clients use transaction version 2 (KIP-890 part 2) only when it is finalized at 2 or more. No group.version:
 * clients use the classic group protocol this broker implements. The levels come from configuration, not from the
 * metadata log, so UpdateFeatures accepts a request that keeps a finalized level and refuses any other change with
 * Kafka's INVALID_UPDATE_VERSION.
 */
public final class FeatureApis {
    public static final String METADATA_VERSION = "metadata.version";
    /** Kafka's MetadataVersion.IBP_4_4_IV2 feature level. */
    public static final short METADATA_VERSION_LEVEL = 33;
    public static final String TRANSACTION_VERSION = "transaction.version";
    /** Kafka's TransactionVersion.TV_2: epoch bump per transaction, server-side partition adds (KIP-890 part 2). */
    public static final short MAX_TRANSACTION_VERSION = 2;
    /** The features never change while a broker runs, so their epoch never moves. */
    private static final long FINALIZED_EPOCH = 0;

    private final BrokerContext ctx;

    public FeatureApis(BrokerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Adds the supported and finalized features to an ApiVersions response (read by clients at v3+), with
     * transaction.version finalized at {@code transactionVersion} (not listed as finalized at 0, as Kafka).
     */
    public static ApiVersionsResponseData withFeatures(ApiVersionsResponseData resp, short transactionVersion) {
        withFeatures(resp);
        resp.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey().setName(TRANSACTION_VERSION)
                .setMinVersion((short) 0).setMaxVersion(MAX_TRANSACTION_VERSION));
        if (transactionVersion > 0) {
            resp.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey().setName(TRANSACTION_VERSION)
                    .setMinVersionLevel(transactionVersion).setMaxVersionLevel(transactionVersion));
        }
        return resp;
    }

    /** Adds metadata.version only (the controller listener, which serves no transactions). */
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
        if (feature.equals(TRANSACTION_VERSION)) {
            short tv = ctx.config().transactionVersion();
            if (level == tv) return null;
            return "Invalid update version " + level + " for feature " + TRANSACTION_VERSION + ". Broker "
                    + ctx.nodeId() + " has it finalized at " + tv + " by its transaction.version property, which "
                    + "only a restart changes";
        }
        if (level <= 0) return null; // removing a feature that is not finalized changes nothing
        return "Invalid update version " + level + " for feature " + feature + ". Broker " + ctx.nodeId()
                + " does not support this feature.";
    }
}
