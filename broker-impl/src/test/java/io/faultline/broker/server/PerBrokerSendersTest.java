package io.faultline.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PerBrokerSendersTest {
    @Test
    void aBrokerThatNeverAnswersHoldsUpOnlyWhatIsSentToIt() throws Exception {
        CountDownLatch frozen = new CountDownLatch(1);
        CountDownLatch otherServed = new CountDownLatch(1);
        List<String> toFrozen = new CopyOnWriteArrayList<>();
        try (PerBrokerSenders senders = new PerBrokerSenders("test-sender")) {
            senders.execute(1, () -> {
                try {
                    frozen.await(); // a request to a frozen broker: no answer until the socket times out
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                toFrozen.add("first");
            });
            senders.execute(1, () -> toFrozen.add("second"));
            senders.execute(2, otherServed::countDown);
            assertTrue(otherServed.await(30, TimeUnit.SECONDS), "broker 2's request waited for broker 1's");
            assertEquals(List.of(), toFrozen, "broker 1's requests wait, in order");
            frozen.countDown();
            org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> toFrozen.size() == 2);
            assertEquals(List.of("first", "second"), toFrozen);
            senders.close();
            assertThrows(RejectedExecutionException.class, () -> senders.execute(3, () -> { }));
        }
    }
}
