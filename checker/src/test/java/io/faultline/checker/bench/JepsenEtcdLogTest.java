package io.faultline.checker.bench;

import io.faultline.checker.linear.LinOp;
import io.faultline.checker.linear.RegisterModel;
import io.faultline.checker.linear.RegisterOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Lines as Porcupine's test_data/jepsen logs have them: times are line numbers, open ops end indeterminate. */
class JepsenEtcdLogTest {
    @Test
    void readsOpsAsPorcupineDoes(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("etcd_000.log");
        Files.write(log, List.of(
                "INFO  jepsen.util - 0\t:invoke\t:read\tnil",
                "INFO  jepsen.util - 1\t:invoke\t:write\t4",
                "INFO  jepsen.util - 2\t:invoke\t:cas\t[4 0]",
                "INFO  jepsen.util - 0\t:ok\t:read\tnil",
                "INFO  jepsen.util - 1\t:ok\t:write\t4",
                "INFO  jepsen.util - 2\t:fail\t:cas\t[4 0]",
                "INFO  jepsen.util - 3\t:invoke\t:read\tnil",
                "INFO  jepsen.util - 3\t:fail\t:read\t:timed-out",
                "INFO  jepsen.util - 4\t:invoke\t:write\t1",
                "INFO  jepsen.util - 4\t:info\t:write\t:timed-out",
                "INFO  jepsen.core - some other line",
                "INFO  jepsen.util - 0\t:invoke\t:read\tnil",
                "INFO  jepsen.util - 0\t:ok\t:read\t1"));
        List<LinOp<RegisterOp, Object>> ops = JepsenEtcdLog.read(log).stream()
                .sorted(Comparator.comparingLong(LinOp::id)).toList();
        assertEquals(List.of(
                new LinOp<>(0, 0, 1, 4, RegisterOp.READ, RegisterModel.EMPTY),
                new LinOp<>(1, 1, 2, 5, new RegisterOp.Write(4), "ok"),
                new LinOp<>(2, 2, 3, 6, new RegisterOp.Cas(4, 0), false),
                new LinOp<>(3, 3, 7, 8, RegisterOp.READ, null),
                new LinOp<>(4, 4, 9, LinOp.NEVER, new RegisterOp.Write(1), null),
                new LinOp<>(5, 0, 12, 13, RegisterOp.READ, 1L)), ops);
    }
}
