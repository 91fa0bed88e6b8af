package io.faultline.broker.server;

import io.faultline.broker.api.ClusterMetadata;
import io.faultline.broker.common.Scheduler;
import io.faultline.broker.common.Time;
import io.faultline.broker.controller.ControllerNode;
import io.faultline.broker.controller.MetadataListener;
import io.faultline.broker.metadata.MetadataDelta;
import io.faultline.broker.metadata.MetadataImage;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * This node's view of the cluster: every committed metadata change, in order, goes first to the components that act
 * on it (partitions, groups), then becomes the image the API handlers answer from, then completes the waits on it.
 */
final class NodeMetadata implements ClusterMetadata, MetadataListener {
    private record Waiter(Predicate<MetadataImage> condition, CompletableFuture<MetadataImage> done) {
    }

    private final Time time;
    private final ControllerNode controller;
    private final ControllerChannel channel;
    private final List<MetadataListener> appliers;
    private final List<Waiter> waiters = new CopyOnWriteArrayList<>();
    private volatile MetadataImage image = MetadataImage.EMPTY;

    NodeMetadata(Time time, ControllerNode controller, ControllerChannel channel, List<MetadataListener> appliers) {
        this.time = time;
        this.controller = controller;
        this.channel = channel;
        this.appliers = List.copyOf(appliers);
    }

    @Override
    public void onCommit(MetadataDelta delta, MetadataImage newImage) {
        for (MetadataListener a : appliers) a.onCommit(delta, newImage);
        image = newImage;
        for (Waiter w : waiters) {
            if (w.condition.test(newImage)) {
                waiters.remove(w);
                w.done.complete(newImage);
            }
        }
    }

    @Override
    public MetadataImage image() {
        return image;
    }

    @Override
    public OptionalInt activeController() {
        return controller.activeControllerId();
    }

    @Override
    public CompletableFuture<MetadataImage> await(Predicate<MetadataImage> condition, long timeoutMs) {
        MetadataImage now = image;
        if (condition.test(now)) return CompletableFuture.completedFuture(now);
        Waiter w = new Waiter(condition, new CompletableFuture<>());
        waiters.add(w);
        // The image may have moved between the test and the add: test again.
        if (condition.test(image) && waiters.remove(w)) w.done.complete(image);
        Scheduler.Cancellable timeout = time.scheduler().schedule("metadata-wait", () -> {
            if (waiters.remove(w)) w.done.completeExceptionally(new TimeoutException("metadata did not catch up in "
                    + timeoutMs + " ms"));
        }, timeoutMs);
        w.done.whenComplete((img, e) -> timeout.cancel());
        return w.done;
    }

    @Override
    public CompletableFuture<ApiMessage> sendToController(ApiKeys api, short version, ApiMessage body) {
        return channel.send(api, version, body);
    }
}
