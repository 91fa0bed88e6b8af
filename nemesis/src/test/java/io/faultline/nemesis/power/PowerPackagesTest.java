package io.faultline.nemesis.power;

import io.faultline.nemesis.FaultOp;
import io.faultline.nemesis.FaultPackage;
import io.faultline.nemesis.FaultPackages;
import io.faultline.nemesis.process.Target;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three power packages differ only in whom a power-off targets; all need lazyfs and are "power" in reports. */
class PowerPackagesTest {
    private static Set<Class<?>> offTargets(String variant) {
        FaultPackage p = FaultPackages.create(List.of(variant), null, null).get(0);
        assertEquals(FaultPackages.POWER, p.name());
        Random r = new Random(5);
        return LongStream.range(0, 200).mapToObj(n -> p.generator().next(r, n))
                .filter(op -> op.f().equals(PowerNemesis.OFF)).map(FaultOp::value).map(Object::getClass)
                .collect(Collectors.toSet());
    }

    @Test
    void variantsChooseTheirTargets() {
        assertEquals(Set.of(Target.One.class), offTargets(PowerNemesis.ONE_AT_A_TIME));
        assertEquals(Set.of(Target.All.class), offTargets(PowerNemesis.ALL_AT_ONCE));
        assertEquals(Set.of(Target.One.class, Target.Minority.class, Target.All.class), offTargets(FaultPackages.POWER));
    }

    @Test
    void onlyPowerPackagesNeedLazyFsAndOnlyOneAtATime() {
        assertTrue(FaultPackages.needsLazyFs(List.of("kill", PowerNemesis.ALL_AT_ONCE)));
        assertFalse(FaultPackages.needsLazyFs(List.of("kill", "partition")));
        assertThrows(IllegalArgumentException.class,
                () -> FaultPackages.create(List.of(FaultPackages.POWER, PowerNemesis.ONE_AT_A_TIME), null, null));
    }
}
