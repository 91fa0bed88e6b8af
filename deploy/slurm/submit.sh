#!/bin/bash
# Queues a sharded Faultline campaign: the shard array, then the merge once every task has ended (afterany: a
# failed task still gets merged, as missing). Usage: submit.sh [SEED]   (default: a fresh random seed)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SEED=${1:-$(( (RANDOM << 30) | (RANDOM << 15) | RANDOM ))}
export RESULTS=${RESULTS:-$HOME/faultline-results/$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$RESULTS"
array=$(sbatch --parsable --export=ALL "$here/faultline-shards.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency="afterany:${array%%;*}" "$here/faultline-merge.sbatch")
echo "campaign seed $SEED: shards job $array, merge job $merge, results in $RESULTS"
