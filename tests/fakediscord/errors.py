"""Discord-shaped API errors and the records the fake keeps about them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Path = tuple[str | int, ...]


class FormErrors:
    """Collects field errors into Discord's nested ``errors`` object.

    Discord reports ``{"components": {"0": {"components": {"5": {"_errors": [...]}}}}}``;
    discord.py flattens that into ``components.0.components.5: ...`` in the
    exception text, so keeping the exact shape keeps bot-side messages realistic.
    """

    def __init__(self, prefix: Path = ()) -> None:
        self.prefix = prefix
        self.tree: dict[str, Any] = {}
        self.flat: list[tuple[str, str, str]] = []

    def add(self, path: Path, code: str, message: str) -> None:
        full = self.prefix + path
        node = self.tree
        for part in full:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
        self.flat.append((".".join(str(p) for p in full), code, message))

    def __bool__(self) -> bool:
        return bool(self.flat)

    def raise_if_any(self) -> None:
        if self:
            raise APIError(400, 50035, "Invalid Form Body", errors=self)


class APIError(Exception):
    """An error the REST server answers with, exactly as Discord would."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        errors: FormErrors | None = None,
        kind: str = "api",
    ) -> None:
        detail = message
        if errors:
            detail += ": " + "; ".join(f"{where}: {msg}" for where, _, msg in errors.flat)
        super().__init__(detail)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.kind = kind

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors.tree
        return body


def unknown(what: str, code: int) -> APIError:
    return APIError(404, code, f"Unknown {what}", kind="unknown")


def unknown_channel() -> APIError:
    return unknown("Channel", 10003)


def unknown_message() -> APIError:
    return unknown("Message", 10008)


def unknown_webhook() -> APIError:
    return unknown("Webhook", 10015)


def unknown_interaction() -> APIError:
    return APIError(404, 10062, "Unknown interaction", kind="interaction")


def already_acknowledged() -> APIError:
    return APIError(400, 40060, "Interaction has already been acknowledged.", kind="interaction")


def empty_message() -> APIError:
    return APIError(400, 50006, "Cannot send an empty message", kind="form")


def missing_permissions() -> APIError:
    return APIError(403, 50013, "Missing Permissions", kind="permission")


def missing_access() -> APIError:
    return APIError(403, 50001, "Missing Access", kind="permission")


def invalid_webhook_token() -> APIError:
    """An interaction token used after its lifetime (15 minutes on Discord)."""
    return APIError(401, 50027, "Invalid Webhook Token", kind="token_expired")


def followup_limit() -> APIError:
    """The sixth follow-up of an interaction no guild installation authorises.

    Discord's JSON error code 40094, "This interaction has hit the maximum number
    of follow up messages" (docs: topics/opcodes-and-status-codes, JSON error codes;
    the 5 follow-up cap for user-installed apps is in interactions/receiving-and-
    responding, "Followup Messages").
    """
    return APIError(
        400,
        40094,
        "This interaction has hit the maximum number of follow up messages",
        kind="followup_limit",
    )


def not_author() -> APIError:
    return APIError(403, 50005, "Cannot edit a message authored by another user", kind="permission")


@dataclass
class Violation:
    """One request the fake refused because real Discord would have refused it."""

    method: str
    path: str
    status: int
    code: int
    message: str
    kind: str
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    payload: Any = None

    def __str__(self) -> str:
        where = "; ".join(f"{p}: {m}" for p, _, m in self.errors)
        suffix = f" ({where})" if where else ""
        return f"{self.method} {self.path} -> {self.status} {self.code} {self.message}{suffix}"


@dataclass
class RateLimitHit:
    """A 429 the fake emitted; discord.py will have slept and retried.

    ``scope`` is ``"global"`` for the per-bot limit (``channel_id`` is then None)
    and ``"shared"`` for a per-channel bucket; ``route`` is the route template,
    e.g. ``POST /channels/{channel_id}/messages``, for counting per route.
    """

    method: str
    path: str
    channel_id: int | None
    retry_after: float
    at: float
    scope: str = "shared"
    route: str = ""
