"""Reading request bodies and writing responses the way Discord's API does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from tests.fakediscord.errors import APIError, FormErrors


def json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # discord.py only decodes JSON when Content-Type is exactly this, without a charset.
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    body = json.dumps(data, separators=(",", ":")).encode()
    return web.Response(body=body, status=status, headers=all_headers)


def no_content() -> web.Response:
    return web.Response(status=204)


@dataclass
class UploadedFile:
    """One ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class Body:
    payload: Any  # a dict for messages, a list for bulk command upserts
    files: list[UploadedFile]


async def read_body(request: web.Request) -> Body:
    """Parse a JSON body, or a multipart body with ``payload_json`` and ``files[n]``."""
    if not request.can_read_body:
        return Body({}, [])
    if request.content_type.startswith("multipart/"):
        return await _read_multipart(request)
    raw = await request.read()
    if not raw:
        return Body({}, [])
    try:
        payload = json.loads(raw)
    except ValueError:
        raise APIError(400, 50109, "The request body contains invalid JSON.") from None
    return Body(payload, [])


async def _read_multipart(request: web.Request) -> Body:
    payload: dict[str, Any] = {}
    files: list[UploadedFile] = []
    reader = await request.multipart()
    async for part in reader:
        if not isinstance(part, BodyPartReader):
            continue  # Discord does not nest multipart bodies
        name = part.name or ""
        if name == "payload_json":
            payload = json.loads(await part.text())
        elif name.startswith("files[") and name.endswith("]"):
            index = int(name[6:-1])
            data = bytes(await part.read(decode=False))
            files.append(
                UploadedFile(
                    index, part.filename or f"file{index}", data, part.headers.get("Content-Type")
                )
            )
        else:
            errors = FormErrors()
            errors.add((name,), "UNKNOWN_FIELD", "Unknown multipart field")
            errors.raise_if_any()
    return Body(payload, files)
