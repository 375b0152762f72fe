"""Start a document merge from Python, knowing only the published contract (schema/).

    python examples/python/start_merge.py --address 127.0.0.1:7233 --doc a.txt --doc b.txt

Needs `pip install temporalio jsonschema`. The request is validated against
schema/run-request.schema.json before it is sent, so a mistake is reported here, naming the field.
"""
import argparse
import asyncio
import dataclasses
import json
import os
import sys
import pathlib
import uuid

import jsonschema
import temporalio.converter
from temporalio.client import Client
from temporalio.service import RetryConfig

from remote_codec import RemoteCodec

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schema"


def load(name: str) -> dict:
    return json.loads((SCHEMA_DIR / name).read_text())


def merge_request(documents: list[str], scheme_goo: dict, budget_usd: float | None) -> dict:
    request = {
        "task": "doc-merge",
        "problem": {"documents": documents},
        "goo": scheme_goo,
        "labels": {"scheme": "python-got", "size": len(documents)},
    }
    if budget_usd is not None:
        request["budget"] = {"maxCostUsd": budget_usd}
    return request


# The paper's GoT for document merging, written as data: merge 5 times, judge, keep 3, aggregate,
# judge, keep the best, improve it, judge, keep the best.
def got_goo() -> dict:
    judge = {"kind": "llm", "prompt": "judge", "samples": 3}
    return {
        "version": 1,
        "operations": [
            {"id": "merge", "type": "generate", "prompt": "merge", "k": 5},
            {"id": "judge-merges", "type": "score", "inputs": ["merge"], "scorer": judge},
            {"id": "best-3", "type": "keepBestN", "inputs": ["judge-merges"], "n": 3, "higherIsBetter": True},
            {"id": "aggregate", "type": "aggregate", "inputs": ["best-3"], "prompt": "aggregate", "k": 5},
            {"id": "judge-aggregates", "type": "score", "inputs": ["aggregate"], "scorer": judge},
            {"id": "best", "type": "keepBestN", "inputs": ["judge-aggregates", "best-3"], "n": 1, "higherIsBetter": True},
            {"id": "improve", "type": "generate", "inputs": ["best"], "prompt": "improve", "k": 3},
            {"id": "judge-improved", "type": "score", "inputs": ["improve"], "scorer": judge},
            {"id": "final", "type": "keepBestN", "inputs": ["judge-improved", "best"], "n": 1, "higherIsBetter": True},
        ],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default=None, help="default: the contract's task queue")
    parser.add_argument("--doc", action="append", required=True, help="a document to merge (repeat)")
    parser.add_argument("--budget-usd", type=float, default=None)
    parser.add_argument("--out", default=None, help="write the merged document here")
    parser.add_argument("--codec-endpoint", default=None,
                        help="a codec server (got codec-server), for a deployment that encrypts or stores its payloads")
    args = parser.parse_args()

    contract = load("contract.json")
    request = merge_request([pathlib.Path(p).read_text() for p in args.doc], got_goo(), args.budget_usd)
    jsonschema.validate(request, load("run-request.schema.json"))

    converter = temporalio.converter.default()
    if args.codec_endpoint:
        converter = dataclasses.replace(converter, payload_codec=RemoteCodec(args.codec_endpoint, args.namespace))
    # A server restarting (an upgrade, a crash) leaves calls unanswered for a few seconds: ride it out.
    retry = RetryConfig(max_elapsed_time_millis=120_000, max_retries=60)
    client = await Client.connect(args.address, namespace=args.namespace, data_converter=converter, retry_config=retry)
    handle = await client.start_workflow(
        contract["workflowType"],
        request,
        id=f"got-doc-merge-python-{uuid.uuid4().hex[:8]}",
        task_queue=args.task_queue or contract["defaultTaskQueue"],
    )
    print(json.dumps({"event": "started", "workflowId": handle.id}), flush=True)
    progress = await handle.query("progress")
    print(json.dumps({"event": "progress", "progress": progress}), flush=True)
    result = await handle.result()
    best = result["best"]
    if args.out:
        pathlib.Path(args.out).write_text(best["state"]["merged"])
    print(json.dumps({
        "event": "completed",
        "workflowId": handle.id,
        "bestScore": best["score"],
        "merged": best["state"]["merged"],
        "llmCalls": result["grs"]["totals"]["llmCalls"],
        "costUsd": result["grs"]["totals"]["costUsd"],
    }), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    # The SDK's native runtime threads can still be alive while the interpreter finalizes, which
    # sometimes aborts the process after the work is done; leave without finalizing instead.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
