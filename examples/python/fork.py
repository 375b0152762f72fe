"""Fork a recorded Graph of Thoughts run from Python, knowing only the published contract (schema/).

    python examples/python/fork.py --address 127.0.0.1:7233 --parent <id> [--at merge-1] \
        [--instruct "merge[3]=Keep the 30-day notice"] [--model name] [--by Ann] [--reason "..."] [--no-wait]

A fork (contract.json: forks, decision 102) is a run request with `fork.parent` naming the recorded run:
here, the parent's own request (the first event of its history) with `fork` set and the changes asked
for. The worker recalls the parent's calls and takes those made on the same inputs without a call; the
point, the instructions and the model given here are asked again. The fork's `fork` field is checked
against schema/run-request.schema.json first, so a mistake is reported here, naming the field. Starts
the fork on the parent's task queue under `<parent>.fork-<UTC time>` and, unless --no-wait, prints one
JSON line once it ends: its id, the calls it made and those it took from the parent, its cost.
Needs `pip install temporalio jsonschema`.
"""
import argparse
import asyncio
import datetime
import json
import os
import pathlib
import sys

import jsonschema
from temporalio.client import Client

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schema"
CONTRACT = json.loads((SCHEMA_DIR / "contract.json").read_text())
REQUEST_SCHEMA = json.loads((SCHEMA_DIR / CONTRACT["input"]["args"][0]).read_text())
FORK_SCHEMA = REQUEST_SCHEMA["properties"]["fork"]


def fork_spec(args: argparse.Namespace) -> dict:
    spec: dict = {"parent": args.parent}
    if args.at:
        spec["at"] = args.at
    instructions = []
    for given in args.instruct:
        operation, _, text = given.partition("=")
        instructions.append({"operation": operation, "text": text})
    if instructions:
        spec["instructions"] = instructions
    for key in ("by", "reason"):
        if getattr(args, key):
            spec[key] = getattr(args, key)
    return spec


def schema_problem(spec: dict) -> str | None:
    for error in jsonschema.Draft202012Validator(FORK_SCHEMA).iter_errors(spec):
        where = ".".join(str(p) for p in error.absolute_path)
        return f"fork{'.' + where if where else ''}: {error.message}"
    return None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--parent", required=True, help="the workflow id of the run to fork")
    parser.add_argument("--at", default=None, help="an operation, a part (merge[3]) or a thought id to start anew from")
    parser.add_argument("--instruct", action="append", default=[], help="<operation>=<text>; repeatable")
    parser.add_argument("--model", default=None, help="another model for the calls asked again")
    parser.add_argument("--by", default=os.environ.get("USER"), help="who asks (default: $USER)")
    parser.add_argument("--reason", default=None)
    parser.add_argument("--no-wait", action="store_true")
    args = parser.parse_args()

    spec = fork_spec(args)
    problem = schema_problem(spec)
    if problem:
        print(f"invalid fork: {problem}", file=sys.stderr)
        return 2
    client = await Client.connect(args.address, namespace=args.namespace)
    parent = client.get_workflow_handle(args.parent)
    described = await parent.describe()
    history = await parent.fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    [request] = await client.data_converter.decode(started.input.payloads)
    request["fork"] = {**spec, "parentRunId": described.run_id}
    if args.model:
        request["llm"] = {**request.get("llm", {}), "model": args.model}
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%f")[:-3]
    handle = await client.start_workflow(
        CONTRACT["workflowType"],
        request,
        id=f"{args.parent}.fork-{stamp}",
        task_queue=described.task_queue,
        task_timeout=datetime.timedelta(seconds=CONTRACT["workflowTaskTimeoutSeconds"]),
    )
    if args.no_wait:
        print(json.dumps({"workflowId": handle.id}))
        return 0
    result = await handle.result()
    totals = result["grs"]["totals"]
    print(json.dumps({
        "workflowId": handle.id,
        "parent": args.parent,
        "callsMade": totals["llmCalls"],
        "callsInherited": totals.get("inheritedCalls", 0),
        "costUsd": totals["costUsd"],
    }))
    return 0


if __name__ == "__main__":
    code = asyncio.run(main())
    # As start_merge.py: leave without finalizing the SDK's native runtime threads.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
