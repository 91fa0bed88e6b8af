package io.faultline.nemesis;

import io.faultline.docker.Cluster;
import io.faultline.nemesis.ClusterView.PartitionRef;
import io.faultline.nemesis.process.ProcessNemesis;
import io.faultline.nemesis.process.Target;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Process and partition faults aim at partition leaders and the active controller most of the time. */
class AimedFaultsTest {
    @Test
    void aimedDrawsHitLeadersAndTheControllerMoreThanHalfTheTime() {
        Function<Random, String> pick = FaultPackages.aimed(List.of("leader-a", "leader-b"), List.of("controller"),
                List.of("one", "minority", "majority", "all"));
        Random r = new Random(5);
        int leader = 0, controller = 0, draws = 4000;
        for (int i = 0; i < draws; i++) {
            String t = pick.apply(r);
            if (t.startsWith("leader")) leader++;
            if (t.equals("controller")) controller++;
        }
        double aimed = (leader + controller) / (double) draws;
        assertTrue(aimed > 0.55 && aimed < 0.65, "aimed share " + aimed);
        assertTrue(Math.abs(leader - controller) < draws / 10, "leaders " + leader + " vs controller " + controller);
    }

    @Test
    void withoutLeadersOrControllerEveryDrawIsBroad() {
        Function<Random, String> pick = FaultPackages.aimed(List.of(), List.of(), List.of("one", "all"));
        Random r = new Random(1);
        for (int i = 0; i < 200; i++) assertTrue(List.of("one", "all").contains(pick.apply(r)));
    }

    @Test
    void aKillPackageOnASystemThatNamesLeadersAimsItsPlannedFaults() {
        var ctx = NemesisContext.builder((Cluster) null)
                .leaderAware((cluster, topic, partition) -> Optional.empty())
                .controllerAware(cluster -> Optional.empty())
                .build();
        var options = FaultOptions.defaults().withPrimaries(List.of(new PartitionRef("t0", 0), new PartitionRef("t1", 0)));
        FaultPackage kill = FaultPackages.processPackage(FaultPackages.KILL, ProcessNemesis.KILL, ProcessNemesis.START,
                "#000000", ctx, options, new ProcessNemesis());
        var plan = Scheduler.plan(List.of(kill), Schedule.of(Duration.ofSeconds(1), Duration.ofHours(1), 3));
        List<Object> targets = plan.stream().filter(p -> p.role() == Schedule.Role.FAULT).map(p -> p.op().value()).toList();
        assertTrue(targets.size() > 1000, "faults planned: " + targets.size());
        long aimed = targets.stream().filter(t -> t instanceof Target.Primaries || t instanceof Target.Controller).count();
        assertTrue(aimed > targets.size() / 2, "aimed " + aimed + " of " + targets.size());
        assertEquals(ProcessNemesis.KILL, plan.get(0).op().f());
    }
}
