package io.faultline.nemesis.compose;

import java.util.List;

/** One step of a composition: the closed set of things a composition does, against roles, never against node names. */
public sealed interface Step {
    /** Waits this long, counted from the end of the step before. */
    record Wait(long millis) implements Step {
        public Wait {
            if (millis < 0) throw new IllegalArgumentException("negative wait");
        }

        @Override
        public String toString() {
            return "wait " + millis + " ms";
        }
    }

    /** Cuts every node of {@code side} from every node of {@code from}, both ways (replaces any cut in force). */
    record Cut(List<Role> side, List<Role> from) implements Step {
        public Cut {
            side = List.copyOf(side);
            from = List.copyOf(from);
        }

        @Override
        public String toString() {
            return "cut " + labels(side) + " from " + labels(from);
        }
    }

    /**
     * Cuts only replication between every node of {@code side} and every node of {@code from}, both ways: the
     * connections they open to each other's replication port (the port followers fetch on). Everything else passes:
     * the nodes still heartbeat, vote and serve clients, so a replica stays registered while it cannot replicate.
     * Replaces any cut in force; {@link Heal} removes it.
     */
    record CutReplication(List<Role> side, List<Role> from) implements Step {
        public CutReplication {
            side = List.copyOf(side);
            from = List.copyOf(from);
        }

        @Override
        public String toString() {
            return "cut replication between " + labels(side) + " and " + labels(from);
        }
    }

    /** Cuts the role's node from every other node. */
    record Isolate(Role role) implements Step {
        @Override
        public String toString() {
            return "isolate " + role.label();
        }
    }

    /** Removes every cut. */
    record Heal() implements Step {
        @Override
        public String toString() {
            return "heal the network";
        }
    }

    record Kill(Role role) implements Step {
        @Override
        public String toString() {
            return "kill -9 " + role.label();
        }
    }

    record Start(Role role) implements Step {
        @Override
        public String toString() {
            return "start " + role.label();
        }
    }

    /**
     * A clean stop, as an operator's rolling restart makes: SIGTERM, so the node shuts down as it was built to (hands
     * off what it leads, closes its logs, writes what a clean restart trusts), SIGKILL only past the system's grace.
     * {@link StartStopped} starts it again.
     */
    record Stop(Role role) implements Step {
        @Override
        public String toString() {
            return "stop " + role.label() + " cleanly";
        }
    }

    /** Starts the role's node after a {@link Stop}. */
    record StartStopped(Role role) implements Step {
        @Override
        public String toString() {
            return "start " + role.label() + " after its clean stop";
        }
    }

    record Pause(Role role) implements Step {
        @Override
        public String toString() {
            return "pause " + role.label();
        }
    }

    record Resume(Role role) implements Step {
        @Override
        public String toString() {
            return "resume " + role.label();
        }
    }

    /** Shifts the role's clock by {@code millis} (libfaketime). */
    record Skew(Role role, long millis) implements Step {
        @Override
        public String toString() {
            return "skew " + role.label() + "'s clock by " + millis + " ms";
        }
    }

    /**
     * A machine crash that tears the last write: the role's node is killed (-9), the newest segment of the bound
     * partition loses its last {@code bytes} (zeroed, length kept: the page never reached the disk) and the node is
     * started again. Only ever a minority of the nodes (the disk package's budget).
     */
    record CrashTorn(Role role, long bytes) implements Step {
        @Override
        public String toString() {
            return "crash " + role.label() + " tearing its last " + bytes + " bytes, restart it";
        }
    }

    /**
     * Reassigns the bound partition to exactly the nodes of these roles, in this order (the first is the preferred
     * leader): leaving a role out shrinks the replica set and deletes that replica's log, naming it again adds it back
     * with an empty log that copies from the leader. Through the system's own Admin API, as an operator would.
     */
    record Reassign(List<Role> replicas) implements Step {
        public Reassign {
            replicas = List.copyOf(replicas);
            if (replicas.isEmpty()) throw new IllegalArgumentException("a replica set needs a replica");
        }

        @Override
        public String toString() {
            return "reassign to " + labels(replicas);
        }
    }

    /** A preferred-leader election of the bound partition: leadership moves, live, to the first replica if it is in sync. */
    record ElectPreferred() implements Step {
        @Override
        public String toString() {
            return "elect the preferred leader";
        }
    }

    /** Every clock back to real time. */
    record ResetClocks() implements Step {
        @Override
        public String toString() {
            return "reset every clock";
        }
    }

    /** Adds {@code latencyMs} (a quarter of it as jitter) to every link from the role's node to the others. */
    record SlowLinks(Role role, long latencyMs) implements Step {
        @Override
        public String toString() {
            return "slow " + role.label() + "'s links by " + latencyMs + " ms";
        }
    }

    /** Every link back to normal. */
    record HealLinks() implements Step {
        @Override
        public String toString() {
            return "heal every link";
        }
    }

    private static String labels(List<Role> roles) {
        return String.join("+", roles.stream().map(Role::label).toList());
    }
}
