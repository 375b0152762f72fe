#!/usr/bin/env bash
# Prompt optimisation measured on Qwen2.5-Coder-1.5B (issue 24), step by step: candidates proposed from
# the model's failures on training rows, a study searching them on training rows, then the paper's
# prompts and the study's best prompts scored on the same test rows. Each step writes into its own
# folder under docs/prompt-study/ and reattaches to its runs, so rerunning the script resumes where it
# stopped and a finished step costs nothing. Run it in the background:
#   nohup bash scripts/prompt-study-qwen.sh >> docs/prompt-study/progress.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=docs/prompt-study/sorting-32
DATA=../shared/data/got-examples
TEST=${TEST:-10}
# The settings of the paper's experiment on this model (docs/eval-qwen): the paper's temperature and GPT-3.5 prices.
LLM=(--llm local --local-model qwen2.5-coder-1.5b --temperature 1.0 --price-input 1.5 --price-output 2 --max-tokens 512)

step() { echo "== $(date -u +%FT%TZ) $1"; }

step "propose: sort instructions from IO's failures on 8 training rows, 2 example sets"
npm run --silent got -- prompts propose "${LLM[@]}" --task sorting --prompt sort --scheme io \
  --dataset "$DATA/sorting_032.csv" --cases 8 --instructions 4 --example-sets 2 --examples 2 --out "$OUT/proposal"

step "study: IO's sort prompt (instruction x examples) on up to 8 training rows, 8 trials"
npm run --silent got -- tune "${LLM[@]}" --task sorting --scheme io --size 32 --dataset "$DATA/sorting_032.csv" \
  --samples 8 --trials 8 --min-samples 4 --batch 4 --prompt-candidates "$OUT/proposal/candidates.json" --out "$OUT/study"

step "test: the paper's prompts on $TEST test rows"
npm run --silent got -- eval "${LLM[@]}" --task sorting --schemes io --sizes 32 --samples "$TEST" \
  --dataset-dir "$DATA" --concurrency 1 --out "$OUT/test-paper"

if [ -f "$OUT/study/best-prompts.json" ]; then
  step "test: the study's best prompts on the same $TEST test rows"
  npm run --silent got -- eval "${LLM[@]}" --task sorting --schemes io --sizes 32 --samples "$TEST" \
    --dataset-dir "$DATA" --concurrency 1 --prompts "$OUT/study/best-prompts.json" --out "$OUT/test-tuned"
else
  step "test: the study chose the paper's prompts (no best-prompts.json): nothing more to score"
fi
step "done"
