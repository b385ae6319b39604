#!/usr/bin/env bash
# Everything rtlab computes from the data at hand, through the command line only (so it survives any
# refactor of the package), written to one folder. Run it before and after a change and compare:
#
#   tools/snapshot.sh /tmp/before        # on the old code
#   tools/snapshot.sh /tmp/after         # on the new code
#   diff -r /tmp/before /tmp/after       # nothing printed: every output is byte-identical
#
# Covered: ingest (canonical JSONL, minus the fields a new schema version may add; see tools/canon.py),
# info, replay (JSON and the Parquet tables as sorted JSON, with and without rubric requirements, with an
# ablation, with a workspace for content matching), show, score, values, diagnose, annotate and recover
# against the simulated model, agree; over ../shared/real, data/sample, tests/fixtures and the simulated world.
set -uo pipefail
out=${1:?usage: tools/snapshot.sh OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
rt=.venv/bin/rtlab
py=.venv/bin/python
real=${RTLAB_REAL_DATA:-../shared/real}
sim=build/simulated
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME CMD...: stdout to NAME.out, stderr to NAME.err, exit status to NAME.rc
    local name=$1; shift
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
}

sets=()
[ -d "$real" ] && sets+=(
    "real-wb=$real/workspace-bench/codex-gpt-5.4-runs"
    "real-oqa=$real/officeqa/g2b-gpt-5.4-traces"
    "real-tac=$real/theagentcompany/openhands-trajectories"
    "real-pi=$real/pi"
    "real-wild=$real/wild"
)
sets+=("sample=data/sample" "fixtures=tests/fixtures")
[ -d "$sim" ] && sets+=("sim=$sim")

for entry in "${sets[@]}"; do
    name=${entry%%=*}; path=${entry#*=}
    run "$name.ingest" $rt ingest "$path" -o "$tmp/$name.jsonl"
    [ -f "$tmp/$name.jsonl" ] && $py tools/canon.py jsonl "$tmp/$name.jsonl" >"$out/$name.canonical.jsonl"
    run "$name.info" $rt info "$path" --json
    run "$name.replay" $rt replay "$path" --json --jobs 2
    run "$name.replay-rubric" $rt replay "$path" --json --requirements rubric --jobs 2
    run "$name.replay-traj" $rt replay "$path" --json --requirements trajectory --ablation no-review --jobs 2
    rm -rf "$tmp/tab"
    run "$name.replay-out" $rt replay "$path" --out "$tmp/tab" --requirements rubric --jobs 2
    [ -d "$tmp/tab" ] && $py tools/canon.py parquet "$tmp/tab" >"$out/$name.tables.jsonl"
    run "$name.score" $rt score "$path" --json
    run "$name.values" $rt values "$path" --json --jobs 2
    run "$name.diagnose" $rt diagnose "$path" --json --jobs 2
done

if [ -d "$real" ]; then
    run real-oqa.replay-ws $rt replay "$real/officeqa/g2b-gpt-5.4-traces" --json --requirements rubric \
        --workspace "$real/officeqa/treasury_bulletins_transformed_subset" --agent-root auto
    run real-wb.show $rt show "$real/workspace-bench/codex-gpt-5.4-runs/15_plain" --step 3 --requirements rubric
fi
ann=(data/sample); [ -d "$real" ] && ann+=("$real/workspace-bench/codex-gpt-5.4-runs" "$real/officeqa/g2b-gpt-5.4-traces")
run sample.annotate $rt annotate "${ann[@]}" --simulated --model sim-annotator -o "$tmp/labels.csv" \
    --cache-dir "$tmp/cache"
[ -f "$tmp/labels.csv" ] && cp "$tmp/labels.csv" "$out/sample.labels.csv"
[ -f "$tmp/labels.csv" ] && run sample.agree $rt agree "$tmp/labels.csv" --json
run sample.recover $rt recover "${ann[@]}" --json --simulated --model sim-annotator --cache-dir "$tmp/cache2"
# source_path is absolute, its links resolved (rtlab.ingest.unit_path): written back as the paths given above,
# so that snapshots of two checkouts (or of an rtlab that kept paths as given) compare
pat() { printf '%s' "$1" | sed 's/[][\.*^$#]/\\&/g'; }  # a literal sed pattern
rep() { printf '%s' "$1" | sed 's/[\&#]/\\&/g'; }      # a literal sed replacement
shared=$(cd "$real" 2>/dev/null && pwd -P)
for f in "$out"/*; do
    [ -n "$shared" ] && sed -i "s#$(pat "$shared/")#$(rep "$real/")#g" "$f"
    sed -i -e "s#$(pat "$(pwd -P)/")##g" -e "s#$(pat "$(cd "$tmp" && pwd -P)")#TMP#g" -e "s#$(pat "$tmp")#TMP#g" "$f"
done
# the stored excerpts of the simulated world's Parquet tables are large: keep their digest only
[ -f "$out/sim.tables.jsonl" ] && (cd "$out" && sha256sum sim.tables.jsonl >sim.tables.sha256 && rm sim.tables.jsonl)
echo "snapshot in $out: $(ls "$out" | wc -l) files"
