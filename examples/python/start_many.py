"""Start many document merges at once through the published contract (schema/), and wait for them all.

    python examples/python/start_many.py --address 127.0.0.1:17233 --codec-endpoint http://127.0.0.1:17245 \\
        --count 200 --docs a.txt b.txt c.txt --id-prefix batch-1 [--seed 0]

Run i merges --docs with the request's seed --seed + i: that seed is its request key (`seed-<n>`),
and the run is the workflow `<id-prefix>-<i>`. The same --docs and --seed with another --id-prefix
ask exactly the same requests again under new workflow ids, so two batches compare run by run.
Every run is started at once (no client-side limit: the deployment's workers decide the pace).

Builds on start_merge.py (the same request, checks, connection and answer). Prints one JSON line per
run as it ends: workflowId, requestKey, startedAt and endedAt (this client's clock, seconds since the
epoch: the start call to the result in hand), status (completed, noAnswer or failed), answerSha256 (the
SHA-256 of the merged text, UTF-8) or error; then a summary line. Exit code 0 when every run completed.
"""
import argparse
import asyncio
import hashlib
import math
import os
import sys
import time

from temporalio.client import WorkflowFailureError

from start_merge import CONTRACT, TASK_TIMEOUT, RunRefused, RunResult, check, connect, emit, failure_of, merge_request, merged_text, problem_of


def request_of(problem: dict, seed: int, sample: int) -> dict:
    request = merge_request(problem, "got", {}, None)
    request["seed"] = seed
    request["labels"]["sample"] = sample
    return request


async def run(client, request: dict, workflow_id: str, task_queue: str) -> dict:
    """One run from its start call to its result, as a line of the report; a failure is reported, never raised."""
    line = {"event": "run", "workflowId": workflow_id, "requestKey": f"seed-{request['seed']}", "startedAt": time.time()}
    try:
        handle = await client.start_workflow(
            CONTRACT["workflowType"], request, id=workflow_id, task_queue=task_queue, task_timeout=TASK_TIMEOUT
        )
        result = RunResult.of(await handle.result())
        if result.best is None or result.status == "noAnswer":
            line["status"] = "noAnswer"
        else:
            line["status"] = "completed"
            line["answerSha256"] = hashlib.sha256(merged_text(result).encode("utf-8")).hexdigest()
    except WorkflowFailureError as error:
        line.update(status="failed", error=str(failure_of(error)))
    except Exception as error:  # noqa: BLE001 -- one run's failure is a line of the report, not the end of the batch
        line.update(status="failed", error=f"{type(error).__name__}: {error}")
    line["endedAt"] = time.time()
    emit(line)
    return line


def percentile(values: list[float], p: int) -> float | None:
    """The p-th percentile by nearest rank."""
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)], 3) if ordered else None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default=None, help="default: the contract's task queue")
    parser.add_argument("--codec-endpoint", default=None,
                        help="a codec server (got codec-server), for a deployment that encrypts or stores its payloads")
    parser.add_argument("--count", type=int, default=10, help="how many runs")
    parser.add_argument("--docs", nargs="+", required=True, help="the documents every run merges")
    parser.add_argument("--seed", type=int, default=0, help="run i's request has the seed --seed + i")
    parser.add_argument("--id-prefix", required=True, help="run i is the workflow <id-prefix>-<i>")
    args = parser.parse_args()

    problem = problem_of(args.docs)
    requests = [request_of(problem, args.seed + i, i) for i in range(args.count)]
    try:
        for request in requests:
            check(request)
    except RunRefused as refused:
        print(refused, file=sys.stderr)
        return 2
    client = await connect(args.address, args.namespace, args.codec_endpoint)
    task_queue = args.task_queue or CONTRACT["defaultTaskQueue"]
    started = time.time()
    lines = await asyncio.gather(*(run(client, r, f"{args.id_prefix}-{i}", task_queue) for i, r in enumerate(requests)))
    wall = time.time() - started
    seconds = [line["endedAt"] - line["startedAt"] for line in lines if line["status"] == "completed"]
    completed = len(seconds)
    emit({
        "event": "summary",
        "count": args.count,
        "completed": completed,
        "noAnswer": sum(line["status"] == "noAnswer" for line in lines),
        "failed": sum(line["status"] == "failed" for line in lines),
        "wallSeconds": round(wall, 3),
        "runsPerMinute": round(completed / wall * 60, 2),
        "p50Seconds": percentile(seconds, 50),
        "p95Seconds": percentile(seconds, 95),
    })
    return 0 if completed == args.count else 1


if __name__ == "__main__":
    code = asyncio.run(main())
    # As start_merge.py: leave without finalizing the SDK's native runtime threads.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
