package io.faultline.harness;

import io.faultline.checker.Verdict;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A named data-loss scenario: fixed settings, a fixed script of fault steps against roles (the workload partition's
 * leader, its followers, the nodes outside its replica set) resolved when the script starts, and the verdict it
 * should give on each system. Nothing in it is random: the seed only drives the workload.
 *
 * @param expect     expected outcome per system under test ("apache-kafka", "broker-impl", and
 *                   "broker-impl/high-watermark" for the truncation mode that KIP-101 fixed)
 * @param needs      what the scenario needs of the system (e.g. "--truncation high-watermark"), or "" for nothing
 */
record Scenario(String name, String summary, Settings settings, List<Step> steps, Map<String, Expectation> expect,
                String needs) {
    Scenario {
        steps = List.copyOf(steps);
        expect = Map.copyOf(expect);
        if (steps.isEmpty()) throw new IllegalArgumentException(name + ": a scenario needs steps");
    }

    /** The settings a scenario fixes; the workload runs on one key so every write goes to the targeted partition. */
    record Settings(int nodes, int replicationFactor, String acks, boolean idempotence, int minIsr, boolean unclean,
                    Map<String, String> brokerProps, Map<String, String> producerProps) {
        Settings {
            brokerProps = Map.copyOf(brokerProps);
            producerProps = Map.copyOf(producerProps);
        }

        Settings(int nodes, int replicationFactor, String acks, boolean idempotence, int minIsr, boolean unclean,
                 Map<String, String> brokerProps) {
            this(nodes, replicationFactor, acks, idempotence, minIsr, unclean, brokerProps, Map.of());
        }

        Settings(int nodes, int replicationFactor, String acks, boolean idempotence, int minIsr, boolean unclean) {
            this(nodes, replicationFactor, acks, idempotence, minIsr, unclean, Map.of());
        }

        String describe() {
            return "nodes=" + nodes + " rf=" + replicationFactor + " acks=" + acks + " idempotence=" + idempotence
                    + " min.insync.replicas=" + minIsr + " unclean.leader.election.enable=" + unclean
                    + (brokerProps.isEmpty() ? "" : " " + new java.util.TreeMap<>(brokerProps))
                    + (producerProps.isEmpty() ? "" : " producer " + new java.util.TreeMap<>(producerProps));
        }
    }

    /**
     * What a run should show: a verdict, the anomaly behind it (or null), and why. A loss shows as lost-write when the
     * final drain reads past it, and as inconsistent-offsets when the lost offsets were reused by later writes (the
     * drain then cannot tell which value was lost, only that an offset changed value): either counts as the loss.
     */
    record Expectation(Verdict verdict, String anomaly, String why, Set<String> absent) {
        /** The anomalies that count as the expected one. */
        static final java.util.Map<String, List<String>> SHOWN_AS = java.util.Map.of(
                "lost-write", List.of("lost-write", "inconsistent-offsets"),
                "divergence", List.of("inconsistent-offsets", "replica-divergence"));

        /**
         * @param absent anomalies the run must not show (an unclean election may lose writes on every release, but
         *               the replicas must not diverge where the release fixed it)
         */
        Expectation {
            absent = Set.copyOf(absent);
        }

        Expectation(Verdict verdict, String anomaly, String why) {
            this(verdict, anomaly, why, Set.of());
        }

        String describe() {
            return verdict.name().toLowerCase() + (anomaly == null ? "" : " (" + String.join(" or ",
                    SHOWN_AS.getOrDefault(anomaly, List.of(anomaly))) + ")")
                    + (absent.isEmpty() ? "" : ", without " + String.join(" or ", new java.util.TreeSet<>(absent))) + " — " + why;
        }

        /** Whether a run with this verdict and these forbidden anomalies (names, optionally followed by a count) is the expected outcome. */
        boolean matches(Verdict seen, List<String> anomalies) {
            if (seen != verdict) return false;
            List<String> names = anomalies.stream().map(a -> a.split(" ")[0]).toList();
            if (names.stream().anyMatch(absent::contains)) return false;
            if (anomaly == null) return true;
            return SHOWN_AS.getOrDefault(anomaly, List.of(anomaly)).stream().anyMatch(names::contains);
        }
    }

    /**
     * The replicas a step names, resolved against the workload partition once the script starts. FOLLOWER_1 and
     * FOLLOWER_2 are the first and second follower in replica order: a clean election takes the first live ISR
     * member in that order, so a script can tell which follower would be elected.
     */
    enum Role {
        LEADER, FOLLOWERS, OTHERS, FOLLOWER_1, FOLLOWER_2;

        String label() {
            return switch (this) {
                case FOLLOWER_1 -> "first follower";
                case FOLLOWER_2 -> "second follower";
                default -> name().toLowerCase();
            };
        }
    }

    /** One step of a script: the closed set of things a scenario does. */
    sealed interface Step {
        /** Wait, counted from the end of the step before (as Jepsen's sleeps). */
        record Wait(Duration duration) implements Step {
            @Override
            public String toString() {
                long ms = duration.toMillis();
                return "wait " + (ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.valueOf(ms / 1000.0)) + " s";
            }
        }

        /** Cut every node of {@code side} from every node of {@code from} (both directions); replaces any cut. */
        record Cut(Set<Role> side, Set<Role> from) implements Step {
            public Cut {
                side = Set.copyOf(side);
                from = Set.copyOf(from);
                if (side.stream().anyMatch(from::contains)) throw new IllegalArgumentException("a role on both sides");
            }

            @Override
            public String toString() {
                // sorted: a Set's order changes from one JVM to the next, and replay compares this text
                return "cut " + side.stream().sorted().toList() + " from " + from.stream().sorted().toList();
            }
        }

        /**
         * Cuts replication only: each node of a key role can no longer open connections to (or send on those it has
         * to) the replication port of the nodes of its value roles, so it cannot fetch from them (in ZooKeeper mode a
         * controller there cannot send them its requests either: they share that listener). ZooKeeper, the KRaft
         * quorum and the clients still reach every node. Replaces any cut; {@link Heal} removes it.
         */
        record CutFetches(Map<Role, Set<Role>> fetchesTo) implements Step {
            public CutFetches {
                var copy = new java.util.TreeMap<Role, Set<Role>>();
                fetchesTo.forEach((from, to) -> {
                    if (to.contains(from)) throw new IllegalArgumentException(from + " cut from itself");
                    copy.put(from, java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(to)));
                });
                fetchesTo = java.util.Collections.unmodifiableMap(copy);
            }

            @Override
            public String toString() {
                // sorted (enum order): replay compares this text
                return "cut fetches: " + String.join("; ", fetchesTo.entrySet().stream().map(e -> "the " + e.getKey().label()
                        + " from the " + String.join(" and the ", e.getValue().stream().map(Role::label).toList())).toList());
            }
        }

        /** Removes every cut. */
        record Heal() implements Step {
            @Override
            public String toString() {
                return "heal the network";
            }
        }

        /** SIGKILL. */
        record Kill(Role role) implements Step {
            @Override
            public String toString() {
                return "kill -9 the " + role.label();
            }
        }

        /** Start nodes that are down. */
        record Start(Role role) implements Step {
            @Override
            public String toString() {
                return "start the " + role.label();
            }
        }

        /**
         * Power loss of every node of these roles at one instant: each disk (lazyfs) forgets what was not fsynced and
         * the nodes stay down until {@link PowerOn} (or the final heal).
         */
        record PowerOff(Set<Role> roles) implements Step {
            public PowerOff {
                roles = Set.copyOf(roles);
                if (roles.isEmpty()) throw new IllegalArgumentException("power off nobody");
            }

            @Override
            public String toString() {
                return "power off the " + String.join(" and ", roles.stream().sorted().map(Role::label).toList());
            }
        }

        /** Power back on (start) the nodes of one role that are down. */
        record PowerOn(Role role) implements Step {
            @Override
            public String toString() {
                return "power on the " + role.label();
            }
        }

        /**
         * Wait until the node of this role runs and leads the workload's partition, at most {@code limit}: later
         * steps that depend on who leads do not rest on how long a restart takes on a busy machine.
         */
        record AwaitLeader(Role role, Duration limit) implements Step {
            @Override
            public String toString() {
                return "await the " + role.label() + " leading (at most " + limit.toSeconds() + " s)";
            }
        }

        /** Wait until the partition's ISR is exactly the nodes of this role (at most {@code limit}). */
        record AwaitIsr(Role role, Duration limit) implements Step {
            @Override
            public String toString() {
                return "await the ISR shrinking to the " + role.label() + " (at most " + limit.toSeconds() + " s)";
            }
        }

        /** Wait until the partition's ISR holds every node of this role again (at most {@code limit}). */
        record AwaitInIsr(Role role, Duration limit) implements Step {
            @Override
            public String toString() {
                return "await the " + role.label() + " back in the ISR (at most " + limit.toSeconds() + " s)";
            }
        }

        /** Crash, cut the tail of a segment file (as an unsynced page cache lost at a power cut), start again. */
        record TruncateTail(Role role, long bytes) implements Step {
            @Override
            public String toString() {
                return "truncate " + bytes + " bytes of the " + role.label() + "'s segment tail";
            }
        }

        /**
         * Crash, zero the last {@code bytes} of a segment file keeping its length (the size reached the disk, the last
         * page did not), start again: the last batch is torn and fails its CRC.
         */
        record TearTail(Role role, long bytes) implements Step {
            @Override
            public String toString() {
                return "tear (zero) the last " + bytes + " bytes of the " + role.label() + "'s segment tail";
            }
        }
    }

    /** The nemesis packages the script acts through, in a fixed order (a run's --nemesis, so replay has them too). */
    List<String> packages() {
        var out = new java.util.LinkedHashSet<String>();
        for (Step s : steps) {
            if (s instanceof Step.Cut || s instanceof Step.CutFetches || s instanceof Step.Heal) out.add(io.faultline.nemesis.FaultPackages.PARTITION);
            if (s instanceof Step.Kill || s instanceof Step.Start) out.add(io.faultline.nemesis.FaultPackages.KILL);
            if (s instanceof Step.TruncateTail || s instanceof Step.TearTail) out.add(io.faultline.nemesis.FaultPackages.DISK);
            if (s instanceof Step.PowerOff || s instanceof Step.PowerOn) out.add(io.faultline.nemesis.FaultPackages.POWER);
        }
        return List.copyOf(out);
    }

    /** Seconds the script takes when every step is instant: the sum of its waits. */
    long scriptSeconds() {
        return steps.stream().filter(s -> s instanceof Step.Wait).mapToLong(s -> ((Step.Wait) s).duration().toSeconds()).sum();
    }

    /** The expectation for this system (and truncation mode, for broker-impl), or null when none is stated. */
    Expectation expectationFor(String sut, String truncation) {
        if (truncation != null && expect.containsKey(sut + "/" + truncation)) return expect.get(sut + "/" + truncation);
        if (expect.containsKey(sut)) return expect.get(sut);
        // apache-kafka:VERSION:zk|kraft is judged as apache-kafka:VERSION; a release with no entry has no stated expectation
        String[] parts = sut.split(":");
        return parts.length == 3 ? expect.get(parts[0] + ":" + parts[1]) : null;
    }
}
