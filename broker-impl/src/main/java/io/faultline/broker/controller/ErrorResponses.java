package io.faultline.broker.controller;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The response to a controller request that failed as a whole (NOT_CONTROLLER, REQUEST_TIMED_OUT...): the
 * error goes where each response type carries it, per topic or resource when there is no top-level code.
 */
public final class ErrorResponses {
    private ErrorResponses() { }

    public static ApiMessage of(ApiMessage request, Errors error) {
        return of(request, error, error.message());
    }

    /** As {@link #of(ApiMessage, Errors)}, with {@code msg} where the response type carries a message. */
    public static ApiMessage of(ApiMessage request, Errors error, String msg) {
        short code = error.code();
        if (request instanceof BrokerRegistrationRequestData) {
            return new BrokerRegistrationResponseData().setErrorCode(code).setBrokerEpoch(-1);
        }
        if (request instanceof BrokerHeartbeatRequestData) {
            return new BrokerHeartbeatResponseData().setErrorCode(code).setIsFenced(true);
        }
        if (request instanceof AlterPartitionRequestData) return new AlterPartitionResponseData().setErrorCode(code);
        if (request instanceof CreateTopicsRequestData r) {
            CreateTopicsResponseData resp = new CreateTopicsResponseData();
            for (CreateTopicsRequestData.CreatableTopic t : r.topics()) {
                if (resp.topics().find(t.name()) == null) resp.topics().add(TopicCreation.error(t.name(), error, msg));
            }
            return resp;
        }
        if (request instanceof DeleteTopicsRequestData r) {
            DeleteTopicsResponseData resp = new DeleteTopicsResponseData();
            for (String name : r.topicNames()) {
                resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(name)
                        .setTopicId(Uuid.ZERO_UUID).setErrorCode(code).setErrorMessage(msg));
            }
            for (DeleteTopicsRequestData.DeleteTopicState s : r.topics()) {
                resp.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(s.name())
                        .setTopicId(s.topicId()).setErrorCode(code).setErrorMessage(msg));
            }
            return resp;
        }
        if (request instanceof CreatePartitionsRequestData r) {
            CreatePartitionsResponseData resp = new CreatePartitionsResponseData();
            r.topics().forEach(t -> resp.results().add(new CreatePartitionsResponseData.CreatePartitionsTopicResult()
                    .setName(t.name()).setErrorCode(code).setErrorMessage(msg)));
            return resp;
        }
        if (request instanceof IncrementalAlterConfigsRequestData r) {
            IncrementalAlterConfigsResponseData resp = new IncrementalAlterConfigsResponseData();
            r.resources().forEach(x -> resp.responses().add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(x.resourceType()).setResourceName(x.resourceName()).setErrorCode(code).setErrorMessage(msg)));
            return resp;
        }
        if (request instanceof AlterConfigsRequestData r) {
            AlterConfigsResponseData resp = new AlterConfigsResponseData();
            r.resources().forEach(x -> resp.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(x.resourceType()).setResourceName(x.resourceName()).setErrorCode(code).setErrorMessage(msg)));
            return resp;
        }
        if (request instanceof AlterClientQuotasRequestData r) {
            AlterClientQuotasResponseData resp = new AlterClientQuotasResponseData();
            r.entries().forEach(x -> {
                AlterClientQuotasResponseData.EntryData e = new AlterClientQuotasResponseData.EntryData()
                        .setErrorCode(code).setErrorMessage(msg);
                x.entity().forEach(p -> e.entity().add(new AlterClientQuotasResponseData.EntityData()
                        .setEntityType(p.entityType()).setEntityName(p.entityName())));
                resp.entries().add(e);
            });
            return resp;
        }
        if (request instanceof org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData) {
            return new org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData().setErrorCode(code)
                    .setErrorMessage(msg);
        }
        if (request instanceof org.apache.kafka.common.message.ElectLeadersRequestData) {
            return new org.apache.kafka.common.message.ElectLeadersResponseData().setErrorCode(code);
        }
        if (request instanceof org.apache.kafka.common.message.DescribeQuorumRequestData) {
            return new org.apache.kafka.common.message.DescribeQuorumResponseData().setErrorCode(code).setErrorMessage(msg);
        }
        throw new IllegalArgumentException("the controller does not handle " + request.getClass().getSimpleName());
    }
}
