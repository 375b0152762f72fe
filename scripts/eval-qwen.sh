#!/usr/bin/env bash
# The paper's experiment on Qwen2.5-Coder-1.5B (issue 21), cell by cell. Hours of CPU time:
# run it in the background (`nohup bash scripts/eval-qwen.sh >> docs/eval-qwen/progress.log 2>&1 &`);
# each cell's folder holds a journal (runs.jsonl), so rerunning the script resumes where it stopped
# and a finished cell costs nothing. Progress: docs/eval-qwen/progress.log.
set -euo pipefail
cd "$(dirname "$0")/.."
# OUT: where the cells' folders go (another checkout's docs/eval-qwen, say, while this one is a work tree).
OUT=${OUT:-docs/eval-qwen}
DATA=../shared/data/got-examples
# Passes of growing sample counts, so every cell has a first answer before any cell has ten;
# a pass resumes the cell's journal, so raising the count only runs the samples still missing.
PASSES=${PASSES:-2 5 10}
COMMON=(--llm local --local-model qwen2.5-coder-1.5b --schemes io,cot,tot,got
  --dataset-dir "$DATA" --temperature 1.0 --price-input 1.5 --price-output 2 --concurrency 8)

# The NDA rows the clause-by-clause comparison runs on (not row 7, the one its prompts were read on).
MERGE_ROWS=${MERGE_ROWS:-0-6,8-10}

# CELLS="sorting-64 keyword-counting" runs only those cells, so a second process on the other core can
# take cells the first has not reached; give the two processes different cells.
CELLS=${CELLS:-}
# TASK_QUEUE=got-local-2 for the second process: each process's worker then serves its own runs only.
# On one queue the first process's model took the second's calls too, and the second model idled.
# Without it the runs go to the model's own queue (got-local-qwen2.5-coder-1.5b, decision 80).
if [[ -n ${TASK_QUEUE:-} ]]; then COMMON+=(--task-queue "$TASK_QUEUE"); fi

cell() { # name, then eval's own flags
  local name=$1
  shift
  if [[ -n $CELLS && " $CELLS " != *" $name "* ]]; then return 0; fi
  echo "== $(date -u +%FT%TZ) $name ($SAMPLES samples): start"
  npm run --silent got -- eval "${COMMON[@]}" --samples "$SAMPLES" --out "$OUT/$name" "$@"
  echo "== $(date -u +%FT%TZ) $name ($SAMPLES samples): done"
}

# Ordered by what the paper's claims need first: sorting (GoT against ToT), then document merging
# (GoT against IO), then the other tasks.
for SAMPLES in $PASSES; do
  cell sorting-32 --task sorting --sizes 32 --max-tokens 512
  cell doc-merge --task doc-merge --max-tokens 1536
  cell sorting-64 --task sorting --sizes 64 --max-tokens 768
  cell set-intersection-32 --task set-intersection --sizes 32 --max-tokens 512
  # Keyword counting has no scheme named got: the paper's GoT4/GoT8/GoTx split the text; GoT8 stands for GoT.
  cell keyword-counting --task keyword-counting --max-tokens 1024 --schemes io,cot,tot,got8
  cell set-intersection-64 --task set-intersection --sizes 64 --max-tokens 768
  # GoT with the input cut by the engine instead of the LLM (decision 83): the graph without the
  # split the model gets wrong. Beside the cells above, whose GoT is the paper's.
  cell sorting-32-split-engine --task sorting --sizes 32 --max-tokens 512 --schemes got --param split=engine
  cell sorting-64-split-engine --task sorting --sizes 64 --max-tokens 768 --schemes got --param split=engine
  cell set-intersection-32-split-engine --task set-intersection --sizes 32 --max-tokens 512 --schemes got --param split=engine
  # The paper's GoT (and IO) with answers in the task's schema, whose lists the local server's grammar
  # holds to their known length (decision 85): the split the model gets wrong as text comes out right.
  cell sorting-32-structured --task sorting --sizes 32 --max-tokens 512 --schemes io,got --structured-output auto
  cell sorting-64-structured --task sorting --sizes 64 --max-tokens 768 --schemes io,got --structured-output auto
  # The merges section by section although the NDAs fit one prompt (decision 87): asked for all four
  # whole, the model restates the first; each section's versions at a time, it keeps them.
  cell doc-merge-sectioned --task doc-merge --max-tokens 1536 --schemes io,cot,got --param sections=always
  # The paper's other merge graph: each half of the NDAs merged on its own (two documents a prompt), then the halves.
  cell doc-merge-got2 --task doc-merge --max-tokens 1536 --schemes got2
  # Clause by clause (issue 38, decisions 91 and 97): the engine aligns the clauses, the model merges one
  # group at a time; beside it on the same ten NDA rows, io section by section and the paper's got and tot.
  cell doc-merge-clauses --task doc-merge --max-tokens 512 --schemes clauses --rows "$MERGE_ROWS"
  cell doc-merge-sectioned-rows --task doc-merge --max-tokens 1536 --schemes io --param sections=always --rows "$MERGE_ROWS"
  cell doc-merge-rows --task doc-merge --max-tokens 1536 --schemes got,tot --rows "$MERGE_ROWS"
done
