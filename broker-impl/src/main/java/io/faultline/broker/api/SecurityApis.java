package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What this broker without security answers about it. DescribeAcls, CreateAcls and DeleteAcls get what a Kafka
 * broker without {@code authorizer.class.name} answers: SECURITY_DISABLED, "No Authorizer is configured." (in each
 * result where the response type has no top-level error); no ACL is ever stored or enforced.
 * DescribeUserScramCredentials (which kafka-configs --describe --entity-type users sends along with the quota
 * describe) finds no credentials: this broker has no SASL and stores none.
 */
public final class SecurityApis {
    static final String NO_AUTHORIZER = "No Authorizer is configured.";

    private SecurityApis() { }

    public static void acls(BrokerContext ctx, Request r) {
        ctx.channel().sendResponse(r, r.body().getErrorResponse(0, new SecurityDisabledException(NO_AUTHORIZER)).data());
    }

    /** Kafka's answer for users without credentials: RESOURCE_NOT_FOUND each (none at all when all are asked). */
    public static void describeUserScramCredentials(BrokerContext ctx, Request r) {
        DescribeUserScramCredentialsRequestData req = r.data();
        DescribeUserScramCredentialsResponseData resp = new DescribeUserScramCredentialsResponseData()
                .setThrottleTimeMs(0).setErrorCode(Errors.NONE.code()).setErrorMessage(null);
        if (req.users() != null) {
            Set<String> seen = new HashSet<>();
            for (DescribeUserScramCredentialsRequestData.UserName u : req.users()) {
                boolean duplicate = !seen.add(u.name());
                resp.results().add(new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult()
                        .setUser(u.name())
                        .setErrorCode(duplicate ? Errors.DUPLICATE_RESOURCE.code() : Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage(duplicate
                                ? "Cannot describe SCRAM credentials for the same user twice in a single request: " + u.name()
                                : "Attempt to describe a user credential that does not exist: " + u.name()));
            }
        }
        ctx.channel().sendResponse(r, resp);
    }
}
