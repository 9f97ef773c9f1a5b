"""A message with files, as the one multipart body Discord reads, built as bytes.

discord.py hands every upload to aiohttp's generic form machinery: a form, a writer and a
payload object for each part, each part's headers put together and its file read through
its stream, again for every attempt. The bot uploads a picture on its hottest paths (an open
hand redrawn after a move, the table message), and that machinery was a fair share of what
a picture cost the event loop. Here the parts discord.py made for the request
(``handle_message_parameters``: ``payload_json``, then ``files[n]`` with its filename) are
joined once into bytes: the same fields, which Discord (and aiohttp's reader) parse the same.
"""

from __future__ import annotations

import io
import re
import secrets
from typing import Any

from aiohttp import BytesPayload

# A filename written as it is between quotes: no quote, backslash, line break or letter
# outside ASCII that a header would have to escape (the bot's are ``hand.png`` and such).
PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
JSON_PART = (b'Content-Disposition: form-data; name="payload_json"\r\n'
             b"Content-Type: application/json\r\n\r\n")
FILE_PART = b'Content-Disposition: form-data; name="%s"; filename="%s"\r\nContent-Type: %s\r\n\r\n'


def multipart_body(multipart: list[dict[str, Any]]) -> BytesPayload | None:
    """The parts of a request (discord.py's ``MultipartParameters.multipart``) as one
    ``multipart/form-data`` body; None if one is not a part this writes plainly (a file not
    held in memory, a filename that needs escaping): discord.py sends those as it does."""
    parts: list[tuple[bytes, bytes]] = []
    for part in multipart:
        name, value = part["name"], part["value"]
        if name == "payload_json" and isinstance(value, str):
            parts.append((JSON_PART, value.encode()))
            continue
        filename = part.get("filename")
        if not isinstance(value, io.BytesIO) or filename is None or \
                not PLAIN_NAME.fullmatch(filename) or not PLAIN_NAME.fullmatch(name.replace(
                    "[", "").replace("]", "")):
            return None
        data = value.getvalue()[value.tell():]
        kind = part.get("content_type") or "application/octet-stream"
        parts.append((FILE_PART % (name.encode(), filename.encode(), kind.encode()), data))
    boundary = secrets.token_hex(16).encode()
    while any(boundary in data for _head, data in parts):  # never, but it must not be
        boundary = secrets.token_hex(16).encode()
    dash = b"--" + boundary
    pieces: list[bytes] = []
    for head, data in parts:
        pieces += (dash, b"\r\n", head, data, b"\r\n")
    pieces += (dash, b"--\r\n")
    return BytesPayload(b"".join(pieces),
                        content_type="multipart/form-data; boundary=" + boundary.decode())
