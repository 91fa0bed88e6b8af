package io.faultline.harness;

import io.faultline.results.CampaignInput;
import io.faultline.results.JunitXml;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Joins the shards of one campaign: checks they share its identity, takes every point once (the first shard given
 * that ran it; later copies are reported as duplicates), and lists the points no shard ran as missing. Pure: the
 * merge command reads the shards and writes the result.
 */
final class CampaignMerge {
    private CampaignMerge() {}

    /**
     * The merged campaign.
     *
     * @param points     every point some shard ran, by index
     * @param missing    indexes of the points no shard ran, each with the shard (of the first record's N) it belongs to
     * @param duplicates one line per point given more than once
     */
    record Result(String name, String identity, long seed, Instant createdAt, List<CampaignShards.Point> matrix,
                  Map<Integer, CampaignShards.Done> points, Map<Integer, Shard> missing, List<String> duplicates,
                  List<CampaignShards.Record> shards) {

        /** The page rows in matrix order; a missing point is a row of its own, marked missing. */
        List<CampaignInput.Run> rows() {
            List<CampaignInput.Run> out = new ArrayList<>();
            for (CampaignShards.Point p : matrix) {
                CampaignShards.Done d = points.get(p.index());
                if (d != null && d.run() != null) out.add(d.run().atPoint(p.index()));
                else if (d == null) out.add(CampaignInput.Run.missing(p.config(), p.index()));
                // else: the run broke before it had a report; as in an unsharded campaign, only its JUnit case shows it
            }
            return out;
        }

        /** JUnit cases in matrix order; a missing point is an error case saying which shard did not report it. */
        List<JunitXml.Case> junitCases() {
            List<JunitXml.Case> out = new ArrayList<>();
            for (CampaignShards.Point p : matrix) {
                CampaignShards.Done d = points.get(p.index());
                out.add(d != null ? d.junit() : new JunitXml.Case(p.caseName(), "faultline.campaign." + name, 0, "unknown",
                        List.of(), List.of("missing: no shard reported this point (it belongs to shard "
                        + missing.get(p.index()) + ")"), "(none)"));
            }
            return out;
        }

        /** The shards' I/N, in the order given. */
        List<String> shardNames() {
            return shards.stream().map(r -> r.shard().toString()).toList();
        }
    }

    static Result merge(List<CampaignShards.Record> shards) {
        if (shards.isEmpty()) throw new IllegalArgumentException("merge: no campaign shards given");
        CampaignShards.Record first = shards.get(0);
        for (CampaignShards.Record r : shards) {
            if (!r.identity().equals(first.identity())) {
                throw new IllegalArgumentException("merge: shards of different campaigns: " + first.describe() + " vs "
                        + r.describe());
            }
        }
        Map<Integer, CampaignShards.Done> points = new TreeMap<>();
        Map<Integer, CampaignShards.Record> from = new TreeMap<>();
        List<String> duplicates = new ArrayList<>();
        for (CampaignShards.Record r : shards) {
            r.done().forEach((point, done) -> {
                if (points.containsKey(point)) {
                    duplicates.add("point " + point + " (" + first.matrix().get(point).caseName() + ") is in shard "
                            + from.get(point).shard() + " at " + from.get(point).campaignDir() + " and in shard "
                            + r.shard() + " at " + r.campaignDir() + "; kept the first");
                } else {
                    points.put(point, done);
                    from.put(point, r);
                }
            });
        }
        Map<Integer, Shard> missing = new TreeMap<>();
        int n = first.shard().count();
        for (CampaignShards.Point p : first.matrix()) {
            if (!points.containsKey(p.index())) missing.put(p.index(), new Shard(Math.floorMod(p.index(), n), n));
        }
        Instant createdAt = shards.stream().map(CampaignShards.Record::createdAt).min(Comparator.naturalOrder()).orElseThrow();
        return new Result(first.name(), first.identity(), first.seed(), createdAt, first.matrix(), points, missing,
                duplicates, List.copyOf(shards));
    }
}
