package io.faultline.docker.sut;

/**
 * The system under test was started on a healthy network, with no fault injected, and did not come up within the
 * readiness bound (a broker never registered, never opened its port, or exited). Thrown apart from other start-up
 * failures (the engine refusing a container, an image that does not build) because it says something about the
 * system, not the harness: a run that ends with it is a liveness failure, not merely an aborted run.
 */
public final class ClusterNotReadyException extends IllegalStateException {
    public ClusterNotReadyException(String message) {
        super(message);
    }
}
