package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import org.apache.kafka.common.errors.SecurityDisabledException;

/**
 * DescribeAcls, CreateAcls and DeleteAcls, answered as a Kafka broker without {@code authorizer.class.name} answers
 * them: SECURITY_DISABLED, "No Authorizer is configured." (in each result where the response type has no top-level
 * error). This broker has no authorizer, so no ACL is ever stored or enforced.
 */
public final class AclApis {
    static final String NO_AUTHORIZER = "No Authorizer is configured.";

    private AclApis() { }

    public static void handle(BrokerContext ctx, Request r) {
        ctx.channel().sendResponse(r, r.body().getErrorResponse(0, new SecurityDisabledException(NO_AUTHORIZER)).data());
    }
}
