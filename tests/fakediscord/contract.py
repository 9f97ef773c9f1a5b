"""Discord's own contract: every request body the bot sends is checked against the
request-body schema Discord publishes for that operation.

The schemas come from Discord's OpenAPI description of its HTTP API, copied with its
MIT licence into ``openapi/``. A body that does not match is refused the way Discord
refuses it (400, 50035 Invalid Form Body), so it becomes a violation naming the operation
and the path in the body, beside the limits ``limits.py`` checks by hand.

Where the published schema is stricter than Discord in practice, an allowance below says
so by name; there is no blanket one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tests.fakediscord.errors import APIError, FormErrors
from tests.fakediscord.schema import Check, Compiler

SPEC = Path(__file__).parent / "openapi" / "discord-openapi.json"
API_PREFIX = "/api/v10"
METHODS = ("get", "put", "post", "patch", "delete")

# Allowance: Discord reads a snowflake given as a JSON integer as well as a string, and
# discord.py sends some that way: ``allowed_mentions.users`` (the bot's turn pings),
# ``attachments[].id`` beside uploaded files and ``message_reference.message_id``. The
# published SnowflakeType says "a string of digits".
SNOWFLAKE = {
    "type": ["string", "integer"],
    "pattern": "^(0|[1-9][0-9]*)$",
    "minimum": 0,
    "format": "snowflake",
}

# Discord's own codes where the checker's finding is the same thing (see limits.py).
DISCORD_CODES = {"SCHEMA_REQUIRED": "BASE_TYPE_REQUIRED", "SCHEMA_LENGTH": "BASE_TYPE_BAD_LENGTH"}


def allow(spec: dict[str, Any]) -> dict[str, Any]:
    """The document with the allowances above written into it."""
    spec["components"]["schemas"]["SnowflakeType"] = SNOWFLAKE
    return spec


@dataclass
class Operation:
    """One documented route and method, with its request body's schema."""

    method: str
    template: str
    name: str
    schema: dict[str, Any] | None
    pattern: re.Pattern[str]
    _check: Check | None = field(default=None, repr=False)

    def checker(self, compiler: Compiler) -> Check:
        """Compiled on this operation's first request, and kept."""
        if self._check is None:
            assert self.schema is not None
            self._check = compiler.compile(self.schema)
        return self._check


class Contract:
    """The documented operations, found by method and request path."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.compiler = Compiler(spec)
        # Keyed by (method, number of path segments); literal segments first, so
        # ``/messages/@original`` wins over ``/messages/{message_id}``.
        self._routes: dict[tuple[str, int], list[Operation]] = {}
        for template, methods in spec["paths"].items():
            for method, op in methods.items():
                if method not in METHODS:
                    continue
                operation = Operation(
                    method.upper(),
                    template,
                    op.get("operationId", f"{method} {template}"),
                    _body_schema(op),
                    _compile(template),
                )
                key = (operation.method, template.count("/"))
                self._routes.setdefault(key, []).append(operation)
        for operations in self._routes.values():
            operations.sort(key=lambda o: o.template.count("{"))

    @property
    def operations(self) -> list[Operation]:
        return [op for ops in self._routes.values() for op in ops]

    def operation(self, method: str, path: str) -> Operation | None:
        path = path.removeprefix(API_PREFIX)
        for operation in self._routes.get((method, path.count("/")), ()):
            if operation.pattern.fullmatch(path):
                return operation
        return None

    def check(self, method: str, path: str, payload: Any) -> None:
        """Refuse ``payload`` as Discord would if it does not match the operation's schema.

        Undocumented routes and operations without a JSON request body are not checked.
        """
        operation = self.operation(method, path)
        if operation is None or operation.schema is None:
            return
        problem = operation.checker(self.compiler)(payload)
        if problem is None:
            return
        errors = FormErrors()
        code = DISCORD_CODES.get(problem.code, problem.code)
        errors.add(problem.where, code, f"{operation.name}: {problem.message}")
        raise APIError(400, 50035, "Invalid Form Body", errors=errors, kind="contract")


@cache
def contract() -> Contract:
    """The contract, read once per test process (the document is about 1 MB)."""
    return Contract(allow(json.loads(SPEC.read_text(encoding="utf-8"))))


def check(method: str, path: str, payload: Any) -> None:
    """Refuse a request body that breaks Discord's published contract (see ``Contract``)."""
    contract().check(method, path, payload)


def _body_schema(op: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON body's schema. A multipart body's ``payload_json`` part has this same
    shape; its ``files[n]`` parts are read apart from it."""
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    return None if content is None else content["schema"]


def _compile(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts))
