"""A payload codec that leaves the work to a codec server (`got codec-server`).

A deployment that encrypts its payloads (GOT_CODEC_KEYS) or keeps large ones in a payload store
(GOT_STORE) runs a codec server speaking Temporal's remote codec protocol: POST /encode and
POST /decode with {"payloads": [...]} in protobuf JSON. Routing this client's payloads through it
lets Python read and write that deployment's runs without holding its keys or store credentials.
"""
import asyncio
import urllib.request
from typing import List, Sequence

from google.protobuf import json_format
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.converter import PayloadCodec


class RemoteCodec(PayloadCodec):
    def __init__(self, endpoint: str, namespace: str = "default") -> None:
        self._endpoint = endpoint.rstrip("/")
        self._namespace = namespace

    async def encode(self, payloads: Sequence[Payload]) -> List[Payload]:
        return await self._call("encode", payloads)

    async def decode(self, payloads: Sequence[Payload]) -> List[Payload]:
        return await self._call("decode", payloads)

    async def _call(self, action: str, payloads: Sequence[Payload]) -> List[Payload]:
        body = json_format.MessageToJson(Payloads(payloads=payloads)).encode()
        request = urllib.request.Request(
            f"{self._endpoint}/{action}",
            data=body,
            headers={"Content-Type": "application/json", "X-Namespace": self._namespace},
            method="POST",
        )

        def post() -> bytes:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read()

        # urllib blocks: keep the event loop (and the SDK's other calls) running meanwhile.
        answer = await asyncio.to_thread(post)
        return list(json_format.Parse(answer, Payloads()).payloads)
