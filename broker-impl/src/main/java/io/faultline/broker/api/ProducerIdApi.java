package io.faultline.broker.api;

import io.faultline.broker.network.Request;
import io.faultline.broker.partition.ProducerIdManager;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId v0-v5 for idempotent producers: a fresh, never reused producer id at epoch 0 (as Kafka does for
 * non-transactional producers, even when the request names its previous id). A request with a transactional id
 * goes to the transaction coordinator instead (server/TxnWiring); without one wired it is refused here.
 */
public final class ProducerIdApi {
    private final BrokerContext ctx;
    private final ProducerIdManager ids;

    public ProducerIdApi(BrokerContext ctx, ProducerIdManager ids) {
        this.ctx = ctx;
        this.ids = ids;
    }

    public void handle(Request r) {
        InitProducerIdRequestData req = r.data();
        InitProducerIdResponseData resp = new InitProducerIdResponseData().setThrottleTimeMs(0);
        if (req.transactionalId() != null) {
            ctx.channel().sendResponse(r, resp.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                    .setProducerId(-1).setProducerEpoch((short) -1));
            return;
        }
        ctx.channel().sendResponse(r, resp.setErrorCode(Errors.NONE.code()).setProducerId(ids.nextProducerId())
                .setProducerEpoch((short) 0));
    }
}
