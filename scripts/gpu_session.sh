#!/usr/bin/env bash
# One stage of a GPU training session, on any CUDA machine (a workstation, a cloud instance, a
# Slurm job); docs/training.md, "Training on a GPU", covers training without this script. Each
# call runs one stage from the repository root, with `.data` present (shared val/test splits and
# the python-sat wheel, made by `scripts/gpu_session.sh pack` on a machine with ../shared beside
# the checkout, then copied with the checkout to the GPU machine if that is another one).
# Results are written to OUTPUT_DIR (default runs/out).
#
#   scripts/gpu_session.sh pack                      # with ../shared beside the checkout: fill .data/
#   scripts/gpu_session.sh prepare SECONDS           # on the GPU machine: rebuild the data (all cores), then bench
#   scripts/gpu_session.sh data [ltl|prop|all]       # rebuild the training data only
#   scripts/gpu_session.sh bench [SECONDS]           # training throughput, graphs vs eager
#   scripts/gpu_session.sh train NAME SECONDS [loop options...]   # continue NAME, evaluate, write results
#   scripts/gpu_session.sh ablate NAME STEPS SECONDS TAG [loop options...]  # a from-scratch arm of an A/B
#
# Under Slurm, for example:
#   sbatch --gres=gpu:1 --cpus-per-task=16 --time=00:15:00 \
#       --wrap "OUTPUT_DIR=$PWD/gpu-out scripts/gpu_session.sh train si-ltl 570"
#
# `train` continues from .data/init/NAME.pt when that exists (weights from an earlier run, not
# yet committed), else from the bundled ltlwit/weights/NAME.pt; a checkpoint already in
# runs/NAME (an earlier call on the same machine) is resumed exactly instead.
#
# A dry run on a CPU (small data, no graphs: the graphs attempt fails and the stage goes on
# without them): COUNT=3000 DEVICE=cpu OUTPUT_DIR=/tmp/gpu-out scripts/gpu_session.sh train dual-prop 200 \
#     --batch-size 16 --device cpu
#
# In a 15-minute allocation on one H100 (about 9 minutes of it for the command after start-up),
# train one model alone (`train NAME 570`), with graphs (si-ltl 6,900 and si-prop 8,100 samples/s
# on an H100, dual-ltl 20,700, dual-prop 34,800); two models at once each ran at half speed, and
# si-ltl's graphs ran out of memory beside another process. Continuing a bundled model for a few
# minutes at --lr 5e-4 re-warms it: si-ltl lost accuracy over 1,231 steps (docs/models.md, the log).
#
# Every stage starts by making what it needs and is missing (a fresh machine has nothing
# generated): `train` rebuilds its task's data first. OUTPUT_DIR is kept small (at most 8 files
# of at most 16 MiB, 64 MiB in all, easy to copy off a cluster), so checkpoints are written in
# 15 MiB parts and left out where they would not fit (dual-ltl's: 70 MB); the fp16 weights are
# always written.
set -euo pipefail
stage=${1:?stage: pack, data, bench or train}
shift
ROOT=$PWD
OUTPUT_DIR=${OUTPUT_DIR:-$ROOT/runs/out}
SEED=1
JOBS=${JOBS:-$(nproc)}
COUNT=${COUNT:-1000000}    # samples per task (smaller only for a dry run on a CPU)
DEVICE=${DEVICE:-cuda}     # for the evaluation (a dry run: cpu)
GRAPHS=${GRAPHS:-1}        # 0: train without CUDA graphs (when bench --check found them wrong)
DATA=${DATA:-gen}          # shared: train on the shared ltl35/prop35 training split (Spot's labels) instead
RESERVE=${RESERVE:-60}     # train's seconds kept for the evaluation and the copies (an H100 took 7-13 s to
                           # evaluate and the loop stops a few seconds early: 120 left 165 s of a 15-minute run idle)
export PYTHONUNBUFFERED=1 PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}  # keeps a --target install made before

if [[ $stage == pack ]]; then  # on the development machine, with ../shared beside the checkout
    rm -rf .data/gen  # generated there, never carried
    mkdir -p .data/shared/ltl35 .data/shared/prop35 .data/whl
    for t in ltl35 prop35; do cp -f ../shared/data/$t/{train,val,test}.txt.gz .data/shared/$t/; done
    cp -f ../shared/data/ltl-grid-val.jsonl .data/shared/
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
        -d .data/whl python-sat==1.9.dev17
    du -sh .data
    exit 0
fi

# -- on the GPU machine ----------------------------------------------------------------------------
mkdir -p "${OUTPUT_DIR}" runs
if ! python3 -c "import pysat" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .data/whl/*.whl
    export PYTHONPATH=$ROOT:/tmp/site
fi

generate() {  # task: 1M samples + (LTL) the 0/1-AP augmentation, seeded, held-out splits excluded
    local task=$1 dir=.data/gen/$1 ex="--exclude .data/shared/${1}35/val.txt.gz --exclude .data/shared/${1}35/test.txt.gz"
    mkdir -p "$dir"
    ln -sf ../../shared/${task}35/val.txt.gz "$dir/val.txt.gz"
    local t0=$SECONDS
    python3 -m ltlwit data generate --task "$task" --aps 5 --max-size 35 -n "$COUNT" --seed $SEED --jobs "$JOBS" \
        --size-shares ".data/shared/${task}35/test.txt.gz" \
        $ex -o "$dir/train.txt.gz"
    if [[ $task == ltl ]]; then  # the SI paper's Appendix F: more 0- and 1-AP samples
        ex="$ex --exclude $dir/train.txt.gz"  # no formula twice in training
        # as much again as the 1-AP share of the main set (2.4%), and 0-AP formulas (0.03% there)
        python3 -m ltlwit data generate --task ltl --aps 1 --max-size 35 -n $((COUNT * 24 / 1000)) --seed $((SEED + 1)) \
            --jobs "$JOBS" $ex -o .data/gen/ltl-ap1.txt.gz || true
        python3 -m ltlwit data generate --task ltl --aps 0 --max-size 35 -n $((COUNT / 2000)) --seed $((SEED + 2)) \
            --jobs "$JOBS" $ex -o .data/gen/ltl-ap0.txt.gz || true  # may exit 1: few constant formulas exist
    fi
    echo "data $task: $((SECONDS - t0))s with $JOBS jobs"
    python3 -m ltlwit data stats "$dir/train.txt.gz" --compare ".data/shared/${task}35/test.txt.gz" --limit 50000 \
        --format json > "${OUTPUT_DIR}/stats-$task.json"
}

bench() {  # the four models in turn, each given a share of SECONDS (killed past it)
    local budget=$1 share
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv || true
    for t in ltl prop; do [[ -f .data/gen/$t/train.txt.gz ]] || generate $t; done
    local models=(si-ltl si-prop dual-ltl dual-prop) i=0 started=$SECONDS
    for m in "${models[@]}"; do
        share=$(( (budget - (SECONDS - started)) / (${#models[@]} - i) )); i=$((i + 1))
        if (( share < 30 )); then echo "bench $m: no time left"; continue; fi
        timeout "$share" python3 bench/train_throughput.py --device cuda --models "$m" --modes eager,static,graphs \
            --data .data/gen/${m#*-}/train.txt.gz --samples 100000 --steps 40 --warmup 5 --check --check-steps 10 \
            --json "${OUTPUT_DIR}/bench.jsonl" 2>&1 | tee -a "${OUTPUT_DIR}/bench.md" || echo "bench $m: failed or out of time"
    done
}

case $stage in
prepare)
    seconds=${1:?seconds}
    nproc; python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name())"
    generate ltl
    generate prop
    bench $((seconds - SECONDS - 15))
    ;;
data)
    which=${1:-all}
    [[ $which == prop ]] || generate ltl
    [[ $which == ltl ]] || generate prop
    ;;
bench)
    bench "${1:-400}"
    ;;
train)
    name=${1:?model name}; seconds=${2:?seconds}; shift 2
    arch=${name%-*}; task=${name#*-}
    data=.data/gen/$task
    [[ $DATA == shared ]] && data=.data/shared/${task}35
    [[ -f $data/train.txt.gz ]] || generate "$task"
    extra=()
    if [[ $task == ltl && $DATA != shared ]]; then
        for f in .data/gen/ltl-ap1.txt.gz .data/gen/ltl-ap0.txt.gz; do [[ -f $f ]] && extra+=(--extra-train "$f"); done
    fi
    run=runs/$name
    started=$SECONDS
    init=.data/init/$name.pt; [[ -f $init ]] || init=ltlwit/weights/$name.pt
    mkdir -p "$run"
    train() {  # train until SECONDS less RESERVE (the evaluation and the copies) are left
        local left=$((seconds - RESERVE - (SECONDS - started)))
        python3 -m ltlwit train --task "$task" --arch "$arch" --preset paper --data "$data" \
            --out "$run" --cache runs/cache --init-from "$init" --resume --steps 1000000 \
            --fit-steps-to-time --time-limit "$left" --lr 5e-4 --emb-dropout 0.1 --static-shapes 16 \
            --checkpoint-part-mb 15 --log-every 100 --val-every 0 --ckpt-every 1000 --workers 16 \
            "${extra[@]}" "$@" 2>&1 | tee -a "$run.log"
    }
    if [[ $GRAPHS == 0 ]]; then
        train "$@" || echo "training failed"
    elif ! train --cuda-graphs "$@"; then  # graphs failed: go on (from the last checkpoint) without them
        echo "training with CUDA graphs failed; again without them"
        train "$@" || echo "training failed"
    fi
    echo "training: $((SECONDS - started))s"
    # the first 1000 test formulas, beam 3, on this GPU (the CPU table in docs/models.md is redone
    # from the returned weights before any is committed)
    timeout $((RESERVE - 15)) python3 -m ltlwit eval --model "$run/model.pt" --data ".data/shared/${task}35/test.txt.gz" \
        --limit 1000 --device "$DEVICE" --batch-size 256 --alpha-samples 50 --paper-alpha-samples 50 --format json \
        > "$run/eval-new.json" || echo "eval: failed or timed out"
    python3 - "$run" "$name" "${OUTPUT_DIR}" <<'PY' || echo "no weights to write"
import json, shutil, sys
from pathlib import Path
run, name, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
for which in ("new",):
    try:
        r = json.loads((run / f"eval-{which}.json").read_text())
        print(f"{which}: correct {r['correct']:.4f}  top3 {r.get('top3', 0):.4f}  exact {r['exact']:.4f}  "
              f"alpha {r['alpha_covariance']['mean'] if r['alpha_covariance'] else None}  "
              f"paper alpha {r['alpha_covariance_paper']['mean'] if r['alpha_covariance_paper'] else None}")
    except (OSError, ValueError, KeyError) as e:
        print(f"{which}: no evaluation ({e})")
manifest = json.loads((run / "model.json").read_text())
manifest["name"], manifest["weights"] = name, f"{name}.pt"
shutil.copy(run / "model.pt", out / f"{name}.pt")
(out / f"{name}.json").write_text(json.dumps(manifest, indent=1) + "\n")
parts = sorted(run.glob("checkpoint-*.part[0-9]*"))
size = sum(p.stat().st_size for p in parts) + (out / f"{name}.pt").stat().st_size
if parts and len(parts) <= 4 and size < 60 * 2**20:
    for p in parts + [run / "checkpoint.parts.json"]:
        shutil.copy(p, out / p.name)
else:
    print(f"checkpoint ({len(parts)} parts) left out: it would not fit the output directory's 8 files / 64 MiB")
PY
    tar czf "${OUTPUT_DIR}/$name-logs.tar.gz" "$run.log" "$run/log.jsonl" "$run"/eval-*.json 2>/dev/null || true
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv || true
    ls -la "${OUTPUT_DIR}"
    ;;
ablate)  # one arm of an A/B from scratch: same data, seed and steps; compare the arms' final validation
    name=${1:?model name}; steps=${2:?steps}; seconds=${3:?seconds}; tag=${4:?tag}; shift 4
    arch=${name%-*}; task=${name#*-}
    [[ -f .data/gen/$task/train.txt.gz ]] || generate "$task"
    run=runs/ablate-$name-$tag
    python3 -m ltlwit train --task "$task" --arch "$arch" --preset paper --data .data/gen/$task --out "$run" \
        --cache runs/cache --steps "$steps" --time-limit "$((seconds - 20))" --static-shapes 16 --cuda-graphs \
        --log-every 100 --val-every 1000 --ckpt-every 0 --val-samples 4096 --greedy-samples 512 --workers 16 \
        "$@" 2>&1 | tee "$run.log" || echo "ablation failed"
    tail -n 3 "$run/log.jsonl" || true
    tar czf "${OUTPUT_DIR}/ablate-$name-$tag.tar.gz" "$run.log" "$run/log.jsonl" 2>/dev/null || true
    ;;
*)
    echo "unknown stage $stage" >&2
    exit 2
    ;;
esac
