/**
 * Faults over the container runtime, composed as Jepsen composes nemesis packages.
 *
 * <p>A {@link io.faultline.nemesis.FaultPackage} bundles a {@link io.faultline.nemesis.Nemesis}, the
 * {@link io.faultline.nemesis.OpGenerator} of its ops, the ops that heal it at the end of a run and its plot colour.
 * {@link io.faultline.nemesis.FaultPackages#create} builds packages by name ("partition", "pause", "clock", "kill",
 * "stop", "restart", "disk", "link", "membership"); a {@link io.faultline.nemesis.Scheduler} runs any mix of them on a seeded
 * {@link io.faultline.nemesis.Schedule}, then runs every package's final heal, and
 * {@link io.faultline.nemesis.ClusterHealth} verifies the cluster is back to normal. A runner does:
 *
 * <pre>{@code
 * var ctx = NemesisContext.builder(sutCluster).seed(seed).recorder(history).build();
 * var packages = FaultPackages.create(List.of("partition", "kill", "clock"), ctx,
 *         FaultOptions.defaults().withPrimaries(List.of(new PartitionRef("queue", 0))));
 * try (var nemesis = new Scheduler(ctx, packages)) {
 *     nemesis.start(new Schedule(Duration.ofSeconds(10), Duration.ofSeconds(5), testDuration, seed));
 *     // ... the workload runs ...
 *     nemesis.awaitFinished(Duration.ofMinutes(2));
 *     nemesis.finalHeal(Duration.ofSeconds(10));            // heals in package order, then a recovery wait
 *     List<String> problems = ClusterHealth.awaitHealthy(ctx, Duration.ofSeconds(60));
 * }
 * }</pre>
 *
 * <p>Every op is recorded twice in the history (process nemesis, type info): when it starts, with the requested
 * value, and when it ends, with what was done. Link faults ("link": latency, loss, bandwidth, one-way) are one more
 * package whose nemesis drives a Toxiproxy through toxiproxy-java ({@link io.faultline.nemesis.link.LinkNemesis}).
 */
package io.faultline.nemesis;
