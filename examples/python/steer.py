"""Steer a running Graph of Thoughts run from Python, knowing only the published contract (schema/).

    python examples/python/steer.py --address 127.0.0.1:7233 --workflow-id <id> pause [--by Ann] [--reason "..."]
    python examples/python/steer.py --workflow-id <id> resume
    python examples/python/steer.py --workflow-id <id> budget --max-cost 2.5 [--max-tokens 200000]
    python examples/python/steer.py --workflow-id <id> prune --operation fix   (or --thought gen/0.1)
    python examples/python/steer.py --workflow-id <id> instruct --operation "merge[3]" --text "Keep the 30-day notice."

Sends the run's `steer` update (contract.json: updates.steer, decision 100) after checking the request
against schema/steer-request.schema.json, so a mistake is reported here, naming the field, before the
server is contacted. The run checks it again as it stands (paused already, a budget not above what it
has spent, ...) and refuses it with a reason, recording nothing. Prints the run's state after the steer
as one JSON line; exit code 2 for a refused steer. Needs `pip install temporalio jsonschema`.
"""
import argparse
import asyncio
import json
import os
import pathlib
import sys

import jsonschema
from temporalio.client import Client, WorkflowUpdateFailedError

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schema"
CONTRACT = json.loads((SCHEMA_DIR / "contract.json").read_text())
UPDATE = "steer"
SCHEMA = json.loads((SCHEMA_DIR / CONTRACT["updates"][UPDATE]["args"][0]).read_text())


def steer_request(args: argparse.Namespace) -> dict:
    request: dict = {"action": args.action}
    if args.action == "budget":
        request["budget"] = {k: v for k, v in (("maxCostUsd", args.max_cost), ("maxTokens", args.max_tokens)) if v is not None}
    for field in ("operation", "thought", "text"):
        if getattr(args, field) is not None:
            request[field] = getattr(args, field)
    if args.by:
        request["by"] = args.by
    if args.reason:
        request["reason"] = args.reason
    return request


def schema_problem(request: dict) -> str | None:
    # The schema is one branch per action: the request is checked against its action's branch.
    branches = {b["properties"]["action"]["const"]: b for b in SCHEMA["oneOf"]}
    if request["action"] not in branches:
        return f"action: expected one of {', '.join(branches)}, got {request['action']!r}"
    for error in jsonschema.Draft202012Validator(branches[request["action"]]).iter_errors(request):
        where = ".".join(str(p) for p in error.absolute_path) or "(request)"
        return f"{where}: {error.message}"
    return None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--workflow-id", required=True)
    parser.add_argument("action", help="pause, resume, budget, prune or instruct")
    parser.add_argument("--max-cost", type=float, default=None, help="with budget: USD the run may spend in all")
    parser.add_argument("--max-tokens", type=int, default=None, help="with budget: tokens the run may use in all")
    parser.add_argument("--operation", default=None, help="with prune or instruct: the operation (a part: merge[3])")
    parser.add_argument("--thought", default=None, help="with prune: the thought")
    parser.add_argument("--text", default=None, help="with instruct: the instructions")
    parser.add_argument("--by", default=os.environ.get("USER"), help="who asks (default: $USER)")
    parser.add_argument("--reason", default=None)
    args = parser.parse_args()

    request = steer_request(args)
    problem = schema_problem(request)
    if problem:
        print(f"invalid steer: {problem}", file=sys.stderr)
        return 2
    client = await Client.connect(args.address, namespace=args.namespace)
    try:
        outcome = await client.get_workflow_handle(args.workflow_id).execute_update(UPDATE, request)
    except WorkflowUpdateFailedError as refused:
        print(f"refused: {refused.cause.message if refused.cause else refused}", file=sys.stderr)
        return 2
    print(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    code = asyncio.run(main())
    # As start_merge.py: leave without finalizing the SDK's native runtime threads.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
