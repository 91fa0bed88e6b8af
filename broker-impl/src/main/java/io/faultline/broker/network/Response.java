package io.faultline.broker.network;

/** What a processor must do for a request once the I/O thread is done with it. */
public sealed interface Response permits Response.Send, Response.NoResponse, Response.Close {
    Request request();

    /** Write this response (size prefix included, records possibly still in segment files), then read the next request. */
    record Send(Request request, ResponseSend send) implements Response {
    }

    /** No bytes to send (acks=0 produce): just read the next request. */
    record NoResponse(Request request) implements Response {
    }

    /** Close the connection (e.g. a failed acks=0 produce, as Kafka does, so the client notices). */
    record Close(Request request) implements Response {
    }
}
