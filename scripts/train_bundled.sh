#!/usr/bin/env bash
# Trains the four bundled models (si-ltl, dual-ltl, si-prop, dual-prop) concurrently on one GPU,
# in slices of SECONDS each (e.g. one Slurm job or one session each); each slice resumes the last one.
#
#   scripts/train_bundled.sh STEPS SECONDS [OUTDIR]
#
# STEPS: total steps of the cosine schedule, one number for all or `si-ltl=N,dual-ltl=N,...`
# (keep it the same for every slice of a run, or the schedule jumps); SECONDS: the
# wall-clock budget of this slice. Data: .data/{ltl35,prop35} (copies of ../shared/data).
# Runs land in runs/bundled/<name>; OUTDIR (default OUTPUT_DIR, else
# runs/export) receives the fp16 weights and logs.
set -u
steps=$1; budget=$2; dest=${3:-${OUTPUT_DIR:-runs/export}}
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD OMP_NUM_THREADS=4
start=$(date +%s)
mkdir -p runs/bundled runs/cache "${dest}"
python3 - <<'PY'
from ltlwit.train.data import load_split
for task, folder in (("ltl", ".data/ltl35"), ("prop", ".data/prop35")):
    for split in ("train", "val"):
        data = load_split(f"{folder}/{split}.txt.gz", task, "runs/cache", 16)
        print(task, split, len(data), flush=True)
PY
left=$(( budget - ($(date +%s) - start) - 45 ))
echo "training for ${left}s"
pids=()
for model in si-ltl dual-ltl si-prop dual-prop; do
    arch=${model%-*}; task=${model#*-}
    data=.data/${task}35
    n=$steps
    case "$steps" in *=*) n=$(tr ',' '\n' <<<"$steps" | sed -n "s/^$model=//p") ;; esac
    python3 -m ltlwit train --task "$task" --arch "$arch" --preset paper --data "$data" \
        --out "runs/bundled/$model" --cache runs/cache --steps "$n" --resume \
        --time-limit "$left" --log-every 200 --val-every 2000 --ckpt-every 2000 \
        > "runs/bundled/$model.log" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv 2>/dev/null
for model in si-ltl dual-ltl si-prop dual-prop; do
    echo "== $model"; tail -n 4 "runs/bundled/$model.log"
    cp "runs/bundled/$model/model.pt" "${dest}/$model.pt" 2>/dev/null
done
tar czf "${dest}/runs.tar.gz" runs/bundled/*.log runs/bundled/*/model.json runs/bundled/*/log.jsonl 2>/dev/null
ls -la "${dest}"
