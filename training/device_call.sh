#!/usr/bin/env bash
# One call on a lent GPU machine (the `device` tool): install the carried wheels, unpack the carried data
# shards, train within a time budget, and leave the results in $OUT as at most 8 files of < 16 MiB.
#
#   bash training/device_call.sh detector MINUTES [extra training.detector.train args]
#   bash training/device_call.sh detector-sweep MINUTES [extra training.detector.sweep args]
#   bash training/device_call.sh reader MINUTES [extra training.reader finetune args]
#   bash training/device_call.sh attributes MINUTES [extra training.attributes train args]
#
# Carry (each call, 64 MiB in all with the repo): `.whl` (ultralytics + ultralytics-thop wheels for
# Python 3.12, detector only) and `.carry/pack-yolo` or `.carry/pack-attr` (from `python -m training.data
# pack`; `detector-sweep` also `.carry/base.pt` and `.carry/eval-screens`). To continue the detector
# from an earlier call, carry its weights as `.carry/init.pt` too.
# DEVICE=cpu runs the same steps on a CPU (a dry run of the script here); WORK (default /tmp/detact-train)
# holds the unpacked data and the runs, PYTHON (default python3) the interpreter.
# models/README.md ("Training on a lent GPU machine") has the whole session, step by step.
set -euo pipefail
kind=${1:?detector, detector-sweep, reader or attributes}
minutes=${2:?minutes of training}
shift 2
out=${OUT:-/tmp/out}
work=${WORK:-/tmp/detact-train}
python=${PYTHON:-python3}
workers=${WORKERS:-12}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" "$work"
device=${DEVICE:-cuda}
yolo_device=$([[ $device == cpu ]] && echo cpu || echo 0)
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false HF_HUB_OFFLINE=1
if compgen -G ".whl/*.whl" >/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$work/site" .whl/*.whl
    export PYTHONPATH=$work/site:$repo
else
    export PYTHONPATH=$repo
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true

# Results go back as a tar cut into 15 MiB parts (a returned file is at most 16 MiB):
# `cat PARTS... | tar x` puts them back together.
send_back() {
    local name=$1
    shift
    tar cf - "$@" | split -b 15m -d - "$out/$name.tar.part-"
}

case "$kind" in
detector)
    # a warm machine keeps $work between calls: unpack once
    [[ -d "$work/yolo" ]] || "$python" -m training.data unpack .carry/pack-yolo/shard-* --out "$work/yolo" >/dev/null
    init=()
    [[ -f .carry/init.pt ]] && init=(--init .carry/init.pt)
    hours=$("$python" -c "print($minutes / 60)")
    "$python" -m training.detector.train --data "$work/yolo"/dataset.yaml --device "$yolo_device" --hours "$hours" \
        --imgsz 640 --batch 64 --workers "$workers" --cache ram --project "$work/runs" --name ui-yolov8n "${init[@]}" "$@" \
        2>&1 | stdbuf -oL tr '\r' '\n' | grep --line-buffered -v "Caching images" | tee "$out/train.log" | { grep -E "all |Epoch|rror" || true; }
    cp "$work/runs/ui-yolov8n"/results.csv "$work/runs/ui-yolov8n"/args.yaml "$out/" || true
    send_back weights -C "$work/runs/ui-yolov8n"/weights best.pt last.pt
    ;;
detector-sweep)
    # the recipes of training/detector/sweep.py from `.carry/base.pt`, judged on `.carry/eval-screens`
    [[ -d "$work/yolo" ]] || "$python" -m training.data unpack .carry/pack-yolo/shard-* --out "$work/yolo" >/dev/null
    "$python" -m training.detector.sweep --data "$work/yolo"/dataset.yaml --screens .carry/eval-screens \
        --base .carry/base.pt --out "$work/sweep" --minutes "$minutes" --device "$yolo_device" \
        --workers "$workers" "$@" 2>&1 | stdbuf -oL tr '\r' '\n' | grep --line-buffered -v "Caching images" \
        | tee "$out/sweep.log" | { grep -E "^[a-z-]+/e|skipped|best|rror" || true; }
    cp "$work/sweep"/sweep.json "$work/sweep"/sweep.md "$out/"
    [[ -f "$work/sweep"/best-tuned.pt ]] && send_back weights -C "$work/sweep" best-tuned.pt
    ;;
reader)
    # the whole reader fine-tuned (training/reader/finetune.py) on `.carry/pack-reader` (python -m
    # training.reader pack --weights): packed train and val views and the ImageNet weights in float16
    # RUN names the run (several recipes in one call: RUN=a ... && RUN=b ...)
    run=${RUN:-reader}
    "$python" -m training.reader finetune .carry/pack-reader --out "$work/$run" --minutes "$minutes" \
        --device "$device" --weights .carry/pack-reader/mobilenet_v2-features-fp16.pt "$@" 2>&1 \
        | tee "$out/$run.log" | { grep -E "^step|rror|^\{" || true; }
    cp "$work/$run"/metrics.jsonl "$out/$run.metrics.jsonl"
    send_back "$run" -C "$work/$run" $(cd "$work/$run" && ls ./*.pt)
    ;;
attributes)
    [[ -d "$work/attr" ]] || "$python" -m training.data unpack .carry/pack-attr/shard-* --out "$work/attr" >/dev/null
    resume=()
    [[ -d "$work/runs/attributes"/last ]] && resume=(--resume)
    "$python" -m training.attributes train --data "$work/attr" --out "$work/runs/attributes" --device "$device" \
        --workers "$workers" --minutes "$minutes" "${resume[@]}" "$@" 2>&1 | tee "$out/train.log" \
        | { grep -E "val|stopped|rror" || true; }
    cp "$work/runs/attributes"/loss.jsonl "$work/runs/attributes"/train_config.json "$out/"
    send_back attributes -C "$work/runs/attributes" best  # last/ holds the optimiser: too big to return
    ;;
*)
    echo "unknown kind $kind: detector, detector-sweep, reader or attributes" >&2
    exit 2
    ;;
esac
ls -la "$out"
