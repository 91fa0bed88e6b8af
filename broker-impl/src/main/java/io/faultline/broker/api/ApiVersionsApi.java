package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions v0-v5. A version we do not know is answered at v0 with UNSUPPORTED_VERSION and our ranges, which is
 * how clients newer than the broker learn what to use.
 */
public final class ApiVersionsApi {
    private final BrokerContext ctx;

    public ApiVersionsApi(BrokerContext ctx) {
        this.ctx = ctx;
    }

    public void handle(Request r) {
        ApiVersionsResponseData resp = FeatureApis.withFeatures(new ApiVersionsResponseData().setThrottleTimeMs(0)
                .setApiKeys(SupportedApis.asCollection()), ctx.config().transactionVersion());
        if (r.body() == null) {
            ctx.channel().sendResponse(r, resp.setErrorCode(Errors.UNSUPPORTED_VERSION.code()), (short) 0);
            return;
        }
        ApiVersionsRequest req = (ApiVersionsRequest) r.body();
        if (r.version() >= 3 && !req.isValid()) {
            ctx.channel().sendResponse(r, resp.setErrorCode(Errors.INVALID_REQUEST.code()));
            return;
        }
        ctx.channel().sendResponse(r, resp.setErrorCode(Errors.NONE.code()));
    }
}
