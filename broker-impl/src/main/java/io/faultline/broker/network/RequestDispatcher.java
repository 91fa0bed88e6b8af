package io.faultline.broker.network;

/** The API layer, called by the I/O threads for each request. Must eventually answer through the channel. */
@FunctionalInterface
public interface RequestDispatcher {
    void handle(Request request);
}
