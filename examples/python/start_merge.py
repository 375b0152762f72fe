"""Start a document merge from Python, knowing only the published contract (schema/).

    python examples/python/start_merge.py --address 127.0.0.1:7233 --doc a.pdf --doc b.docx [--scheme got] [--param merges=3]

Documents may be PDF (with a text layer), DOCX, HTML, Markdown or plain text: text files are sent as
text; when any is not, every file is sent as it is (`problem.files`, contract.json: problemFiles) and
the worker reads them by content, refusing a scanned, encrypted or damaged one before any LLM call.
Through a codec server with a payload store (--codec-endpoint) the documents travel through the
store, never inline in the history.

Needs `pip install temporalio jsonschema`. The request names one of the task's schemes (schema/tasks.json)
and the worker builds its GoO. Before anything is sent, the request is checked against
schema/run-request.schema.json and its problem against the task's problem schema, so a mistake is
reported here, naming the field (exit code 2). A request the worker refuses (an unknown scheme, a
parameter out of range) fails the run with a ValidationError whose details name each field: reported
the same way. Prints one JSON line per event on stdout: started, progress, then completed or failed.
"""
import argparse
import asyncio
import base64
import dataclasses
import json
import os
import pathlib
import sys
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import jsonschema
import temporalio.converter
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.service import RetryConfig

from remote_codec import RemoteCodec

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schema"
TASK = "doc-merge"


def load(name: str) -> dict:
    return json.loads((SCHEMA_DIR / name).read_text())


CONTRACT = load("contract.json")
# A worker replaying a long history needs more than Temporal's default 10 s a workflow task.
TASK_TIMEOUT = timedelta(seconds=CONTRACT["workflowTaskTimeoutSeconds"])
CATALOGUE = load(CONTRACT["tasks"])
PROGRESS_QUERY = "progress"


class ContractChanged(Exception):
    """The published schemas no longer have a field this client reads."""


def schema_fields(schema: dict, *path: str) -> set[str]:
    """The property names of the (sub)schema at `path` (properties to descend through)."""
    for key in path:
        schema = schema["properties"][key]
    return set(schema["properties"])


def read(value: dict, fields: dict[str, str], known: set[str]) -> dict[str, Any]:
    """The schema's fields this client reads, by their Python names; a field the contract lost fails loudly."""
    missing = sorted(set(fields.values()) - known)
    if missing:
        raise ContractChanged(f"the contract no longer has the fields {missing}: update this client")
    return {name: value.get(field) for name, field in fields.items()}


PROGRESS_FIELDS = schema_fields(load(CONTRACT["queries"][PROGRESS_QUERY]))
RESULT_FIELDS = schema_fields(load(CONTRACT["output"]))
GRS_FIELDS = schema_fields(load(CONTRACT["output"]), "grs")
TOTALS_FIELDS = schema_fields(load(CONTRACT["output"]), "grs", "totals")
THOUGHT_FIELDS = schema_fields(load(CONTRACT["output"]), "best")


@dataclass(frozen=True)
class Progress:
    """The `progress` query's answer (schema/progress.schema.json), the fields this client shows."""

    operations_done: int
    operations_total: int
    running: list[str]
    llm_calls: int
    cost_usd: float

    @classmethod
    def of(cls, value: dict) -> "Progress":
        fields = {"operations_done": "operationsDone", "operations_total": "operationsTotal", "running": "running",
                  "llm_calls": "llmCalls", "cost_usd": "costUsd"}
        return cls(**read(value, fields, PROGRESS_FIELDS))


@dataclass(frozen=True)
class Thought:
    """A thought of the result (run-result.schema.json, `best`)."""

    id: str
    score: float | None
    valid: bool
    state: dict

    @classmethod
    def of(cls, value: dict) -> "Thought":
        return cls(**read(value, {"id": "id", "score": "score", "valid": "valid", "state": "state"}, THOUGHT_FIELDS))


@dataclass(frozen=True)
class RunResult:
    """The workflow's result (schema/run-result.schema.json), the fields this client reads."""

    status: str | None
    best: Thought | None
    no_answer: dict | None
    llm_calls: int
    cost_usd: float
    # The engine's review of the merge (grs.review): clause counts, disagreements, decided text.
    review: dict | None

    @classmethod
    def of(cls, value: dict) -> "RunResult":
        top = read(value, {"status": "status", "best": "best", "no_answer": "noAnswer", "grs": "grs"}, RESULT_FIELDS)
        totals = read(top["grs"]["totals"], {"llm_calls": "llmCalls", "cost_usd": "costUsd"}, TOTALS_FIELDS)
        review = read(top["grs"], {"review": "review"}, GRS_FIELDS)["review"]
        best = Thought.of(top["best"]) if top["best"] else None
        return cls(status=top["status"], best=best, no_answer=top["no_answer"], review=review, **totals)


@dataclass(frozen=True)
class Issue:
    """One offending field: its path in the request, and what is wrong with it."""

    path: str
    message: str


class RunRefused(Exception):
    """The request cannot run: refused here by a schema, or by the worker (a ValidationError)."""

    def __init__(self, where: str, issues: list[Issue]):
        super().__init__(f"{where}:\n" + "\n".join(f"  - {i.path or '(root)'}: {i.message}" for i in issues))
        self.where = where
        self.issues = issues


def schema_issues(instance: Any, schema: dict, prefix: str = "") -> list[Issue]:
    """Every way `instance` breaks `schema`, with paths written as the worker writes them (`problem.documents[0]`)."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    issues = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        path = prefix
        for key in error.absolute_path:
            path = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))
        issues.append(Issue(path, error.message))
    return issues


def check(request: dict) -> None:
    """The request against the contract, and its problem against the task's own schema, before anything is sent."""
    issues = schema_issues(request, load(CONTRACT["input"]["args"][0]))
    sent_as_files = "files" in request["problem"]
    problem_schema = CONTRACT["problemFiles"] if sent_as_files else CATALOGUE["tasks"][request["task"]]["problem"]
    issues += schema_issues(request["problem"], load(problem_schema), "problem")
    if issues:
        raise RunRefused("refused before sending (the published schemas)", issues)


def problem_of(paths: list[str]) -> dict:
    """Text files as documents; otherwise every file as it is, for the worker to read (PDF, DOCX, HTML...)."""
    contents = [pathlib.Path(p).read_bytes() for p in paths]
    try:
        texts = [c.decode("utf-8") for c in contents]
        if all(not t.lstrip().lower().startswith(("<!doctype html", "<html")) and "\0" not in t for t in texts):
            return {"documents": texts}
    except UnicodeDecodeError:
        pass
    return {"files": [{"name": pathlib.Path(p).name, "base64": base64.b64encode(c).decode("ascii")} for p, c in zip(paths, contents)]}


def merge_request(problem: dict, scheme: str, params: dict, budget_usd: float | None, model: str | None = None) -> dict:
    # The scheme's size defaults to the problem's (for doc-merge: the number of documents); the worker labels the run with both.
    request = {
        "task": TASK,
        "problem": problem,
        # A bare name when the paper's values will do; the object form when parameters are set.
        "scheme": {"name": scheme, "params": params} if params else scheme,
        "labels": {"client": "python"},
    }
    if model is not None:
        # The model the workers' endpoint serves; left out, the contract's default (the simulator's).
        request["llm"] = {"model": model}
    if budget_usd is not None:
        request["budget"] = {"maxCostUsd": budget_usd}
    return request


def param(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def failure_of(error: WorkflowFailureError) -> Exception:
    """The run's failure as this client reads it: a refused request with its issues, or a run failed for another reason."""
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type == "ValidationError":
        # The first detail lists the issues, each with the path of its field.
        found = [d for detail in cause.details for d in (detail if isinstance(detail, list) else [detail])]
        issues = [Issue(d.get("path", ""), d.get("message", "")) for d in found if isinstance(d, dict)]
        return RunRefused("refused by the worker (ValidationError)", issues or [Issue("", cause.message)])
    if isinstance(cause, ApplicationError) and cause.type in CONTRACT["failures"]:
        return RuntimeError(f"{cause.type}: {cause.message} ({CONTRACT['failures'][cause.type]})")
    return RuntimeError(str(cause or error))


async def connect(address: str, namespace: str, codec_endpoint: str | None) -> Client:
    """A client of the deployment; through its codec server when it encrypts or stores its payloads."""
    converter = temporalio.converter.default()
    if codec_endpoint:
        converter = dataclasses.replace(converter, payload_codec=RemoteCodec(codec_endpoint, namespace))
    # A server restarting (an upgrade, a crash) leaves calls unanswered for a few seconds: ride it out.
    retry = RetryConfig(max_elapsed_time_millis=120_000, max_retries=60)
    return await Client.connect(address, namespace=namespace, data_converter=converter, retry_config=retry)


def review_of(result: RunResult) -> dict | None:
    """The engine's review of the answer, when it reviewed the best thought."""
    return result.review if result.review and result.best and result.review.get("thought") == result.best.id else None


def merged_text(result: RunResult) -> str:
    """The merged document of a run with an answer: a person's decisions on disagreements make it, else the model's merge."""
    return (review_of(result) or {}).get("decidedText") or result.best.state["merged"]


def emit(event: dict) -> None:
    print(json.dumps(event), flush=True)


async def first_progress(handle, result: asyncio.Task) -> Progress | None:
    """Progress once the worker has checked the request and built the scheme's GoO (until then it counts no operations)."""
    while not result.done():
        progress = Progress.of(await handle.query(PROGRESS_QUERY))
        if progress.operations_total > 0:
            return progress
        await asyncio.wait([result], timeout=0.1)
    return None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default=None, help="default: the contract's task queue")
    parser.add_argument("--doc", action="append", required=True, help="a document to merge (repeat)")
    parser.add_argument("--scheme", default="got", help=f"one of {', '.join(CATALOGUE['tasks'][TASK]['schemes'])} (schema/tasks.json)")
    parser.add_argument("--param", action="append", type=param, default=[], help="a tunable parameter of the scheme, name=value (repeat)")
    parser.add_argument("--model", default=None, help="the model the workers' LLM endpoint serves (llm.model)")
    parser.add_argument("--budget-usd", type=float, default=None)
    parser.add_argument("--out", default=None, help="write the merged document here")
    parser.add_argument("--codec-endpoint", default=None,
                        help="a codec server (got codec-server), for a deployment that encrypts or stores its payloads")
    args = parser.parse_args()

    request = merge_request(problem_of(args.doc), args.scheme, dict(args.param), args.budget_usd, args.model)
    try:
        check(request)
        client = await connect(args.address, args.namespace, args.codec_endpoint)
        handle = await client.start_workflow(
            CONTRACT["workflowType"],
            request,
            id=f"got-doc-merge-python-{uuid.uuid4().hex[:8]}",
            task_queue=args.task_queue or CONTRACT["defaultTaskQueue"],
            task_timeout=TASK_TIMEOUT,
        )
        emit({"event": "started", "workflowId": handle.id})
        running = asyncio.ensure_future(handle.result())
        progress = await first_progress(handle, running)
        if progress:
            emit({"event": "progress", "progress": progress.__dict__})
        try:
            result = RunResult.of(await running)
        except WorkflowFailureError as error:
            raise failure_of(error) from error
    except RunRefused as refused:
        emit({"event": "failed", "type": "ValidationError", "where": refused.where, "issues": [i.__dict__ for i in refused.issues]})
        print(refused, file=sys.stderr)
        return 2
    except RuntimeError as failed:
        emit({"event": "failed", "type": "RunFailed", "message": str(failed)})
        print(failed, file=sys.stderr)
        return 1

    if result.best is None or result.status == "noAnswer":
        reason = (result.no_answer or {}).get("reason", "no final thought was scored")
        emit({"event": "noAnswer", "workflowId": handle.id, "reason": reason})
        return 4
    review = review_of(result)
    merged = merged_text(result)
    if args.out:
        pathlib.Path(args.out).write_text(merged)
    emit({
        "event": "completed",
        "workflowId": handle.id,
        "bestScore": result.best.score,
        "merged": merged,
        "llmCalls": result.llm_calls,
        "costUsd": result.cost_usd,
        **({"review": {**review["counts"], "disagreements": len(review["disagreements"])}} if review else {}),
    })
    return 0


if __name__ == "__main__":
    code = asyncio.run(main())
    # The SDK's native runtime threads can still be alive while the interpreter finalizes, which
    # sometimes aborts the process after the work is done; leave without finalizing instead.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
