#!/usr/bin/env bash
# Prompt optimisation measured on Qwen2.5-Coder-1.5B (issue 24), cell by cell: candidates proposed from
# the model's failures on training rows, a study searching them on training rows, then the paper's
# prompts and the study's best prompts scored on the same test rows. Each step writes into its own
# folder under docs/prompt-study/<cell>/ and reattaches to its runs, so rerunning the script resumes
# where it stopped and a finished step costs nothing. Run it in the background:
#   nohup bash scripts/prompt-study-qwen.sh >> docs/prompt-study/progress.log 2>&1 &
# Each instance loads its own copy of the model on one thread: on two cores two instances (CELLS=...)
# run two cells at once.
# Summary: npx tsx scripts/prompt-study-report.ts (writes docs/prompt-study/results.md).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=../shared/data/got-examples
TEST=${TEST:-10}
# The settings of the paper's experiment on this model (docs/eval-qwen): the paper's temperature and GPT-3.5 prices.
# A task queue of its own: runs of the evaluation (scripts/eval-qwen.sh) left in flight wait for that
# script instead of sharing the model with this one.
LLM=(--llm local --local-model qwen2.5-coder-1.5b --temperature 1.0 --price-input 1.5 --price-output 2 --task-queue got-prompt-study)

step() { echo "== $(date -u +%FT%TZ) $1"; }

# cell <name> <task> <prompt> <dataset file> <size> <max tokens>
cell() {
  local name=$1 task=$2 prompt=$3 file=$4 size=$5 tokens=$6
  local out=docs/prompt-study/$name
  local common=("${LLM[@]}" --task "$task" --max-tokens "$tokens")

  step "$name propose: $prompt instructions from IO's failures on 8 training rows, 2 example sets"
  npm run --silent got -- prompts propose "${common[@]}" --prompt "$prompt" --scheme io --size "$size" \
    --dataset "$DATA/$file" --cases 8 --instructions 4 --example-sets 2 --examples 2 --out "$out/proposal"

  step "$name study: IO's $prompt prompt (instruction x examples) on up to 8 training rows, 8 trials"
  npm run --silent got -- tune "${common[@]}" --scheme io --size "$size" --dataset "$DATA/$file" \
    --samples 8 --trials 8 --min-samples 4 --batch 4 --prompt-candidates "$out/proposal/candidates.json" --out "$out/study"

  step "$name test: the paper's prompts on $TEST test rows"
  npm run --silent got -- eval "${common[@]}" --schemes io --sizes "$size" --samples "$TEST" \
    --dataset-dir "$DATA" --concurrency 1 --out "$out/test-paper"

  if [ -f "$out/study/best-prompts.json" ]; then
    step "$name test: the study's best prompts on the same $TEST test rows"
    npm run --silent got -- eval "${common[@]}" --schemes io --sizes "$size" --samples "$TEST" \
      --dataset-dir "$DATA" --concurrency 1 --prompts "$out/study/best-prompts.json" --out "$out/test-tuned"
  else
    step "$name test: the study chose the paper's prompts (no best-prompts.json): nothing more to score"
  fi
  step "$name done"
}

# CELLS picks cells (e.g. CELLS=keyword-counting, to run it beside another instance on the other core).
CELLS=${CELLS:-sorting-32 keyword-counting}
for name in $CELLS; do
  case $name in
  sorting-32) cell sorting-32 sorting sort sorting_032.csv 32 512 ;;
  keyword-counting) cell keyword-counting keyword-counting count countries.csv 12 1024 ;;
  *) echo "unknown cell $name" >&2 && exit 2 ;;
  esac
done
