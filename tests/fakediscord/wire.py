"""Reading request bodies and writing responses the way Discord's API does."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, hdrs, web

from tests.fakediscord.errors import APIError, FormErrors


def json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # discord.py only decodes JSON when Content-Type is exactly this, without a charset.
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    body = json.dumps(data, separators=(",", ":")).encode()
    return web.Response(body=body, status=status, headers=all_headers)


def no_content(headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=204, headers=headers)


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
    # The header as sent, not ``request.content_type``: that parses it with the standard
    # library's email parser, whose cache never hits here (each body has its own boundary),
    # and it cost more than the rest of reading the body. The multipart reader checks it.
    if request.headers.get(hdrs.CONTENT_TYPE, "").lower().startswith("multipart/"):
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
        name, filename = _form_field(part)
        if name == "payload_json":
            payload = json.loads(await part.text())
        elif name.startswith("files[") and name.endswith("]"):
            index = int(name[6:-1])
            data = bytes(await part.read(decode=False))
            files.append(
                UploadedFile(
                    index, filename or f"file{index}", data, part.headers.get("Content-Type")
                )
            )
        else:
            errors = FormErrors()
            errors.add((name,), "UNKNOWN_FIELD", "Unknown multipart field")
            errors.raise_if_any()
    return Body(payload, files)


# ``form-data; name="files[0]"; filename="hand.png"``, as multipart writers send a form's
# fields: quoted values with no escapes or percent-encoding.
_PLAIN = re.compile(r'form-data((?:; ?[a-z]+="[^"\\%]*")*)', re.IGNORECASE)
_PARAMETER = re.compile(r'; ?([a-z]+)="([^"\\%]*)"', re.IGNORECASE)


def _form_field(part: BodyPartReader) -> tuple[str, str | None]:
    """A part's name and filename, from its Content-Disposition. The plain form is read
    here; any other (escapes, ``filename*``) by aiohttp, whose parser is exact but builds its
    character tables again on every call: that was most of reading a body with files."""
    header = part.headers.get(hdrs.CONTENT_DISPOSITION, "")
    plain = _PLAIN.fullmatch(header)
    if plain is None:
        return part.name or "", part.filename
    fields = {key.lower(): value for key, value in _PARAMETER.findall(plain[1])}
    return fields.get("name", ""), fields.get("filename")
