"""Logging that never shows a secret: the bot token and interaction tokens are redacted.

discord.py logs whole gateway events and HTTP requests at DEBUG. Interaction tokens in them
(``"token": "…"``, and in ``/interactions/<id>/<token>/…`` and ``/webhooks/<app>/<token>``
URLs) let anyone answer as the bot for 15 minutes; the bot token lets anyone *be* the bot.
``RedactSecrets`` is a handler filter: every record that reaches a handler, from any logger
and at any level, is formatted, redacted, and stored back with no arguments left to format.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings

REDACTED = "[redacted]"

# "token": "…" in JSON, and 'token': '…' in the repr of a dict (gateway events at DEBUG).
_TOKEN_FIELD = re.compile(r"""(?P<key>(?P<q>["'])(?:token|access_token)(?P=q)\s*:\s*)"""
                          r"""(?P<v>["'])(?:\\.|(?!(?P=v)).)*(?P=v)""")
# /interactions/<id>/<token>/callback and /webhooks/<application id>/<token>[/…]
_TOKEN_PATH = re.compile(r"(?P<head>/(?:interactions|webhooks)/\d+/)[^/\s?#'\"]+")
# Something shaped like a Discord bot token (three dot-separated base64 parts).
_BOT_TOKEN = re.compile(r"\b[A-Za-z\d_-]{20,}\.[A-Za-z\d_-]{6,7}\.[A-Za-z\d_-]{27,}\b")
# Authorization: Bot <token> / Bearer <token>, in any header dump.
_AUTH = re.compile(r"""(?P<head>Authorization["']?\s*[:=]\s*["']?(?:Bot|Bearer)\s+)"""
                   r"""[^\s"',}]+""", re.IGNORECASE)


class RedactSecrets(logging.Filter):
    """Replace the given secrets, and anything shaped like a Discord token, by ``[redacted]``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret containing another is replaced whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        text = _TOKEN_FIELD.sub(lambda m: f"{m['key']}{m['v']}{REDACTED}{m['v']}", text)
        text = _TOKEN_PATH.sub(lambda m: f"{m['head']}{REDACTED}", text)
        text = _AUTH.sub(lambda m: f"{m['head']}{REDACTED}", text)
        return _BOT_TOKEN.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            # A broken format string: let the handler report it, with nothing formatted.
            record.msg, record.args = self.redact(str(record.msg)), None
        else:
            record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            # The formatter would render the traceback later, unredacted: render it now.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def redact_logs(secrets: Iterable[str] = (),
                logger: logging.Logger | None = None) -> RedactSecrets:
    """Attach one ``RedactSecrets`` to every handler of ``logger`` (default: the root).

    Records of every logger propagate to the root's handlers, so they all pass through it.
    """
    redactor = RedactSecrets(secrets)
    for handler in (logger or logging.getLogger()).handlers:
        handler.addFilter(redactor)
    return redactor


TEXT_FORMAT = "%(asctime)s %(levelname)s %(who)s%(name)s: %(message)s"


class JSONFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message (and the process, shards and
    traceback when there are some), for log shippers."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": self.formatTime(record), "level": record.levelname,
            "logger": record.name, "message": record.getMessage()}
        for key in ("process_number", "shards"):
            value = getattr(record, key, None)
            if value is not None:
                line[key.removesuffix("_number")] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["traceback"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        # ISO 8601 with milliseconds: what log shippers parse without configuration.
        return super().formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}"


class NameProcess(logging.Filter):
    """Stamp every record with this process's number and shards (in a cluster), so that
    both formats can say which process wrote the line."""

    def __init__(self, number: int | None, shards: str | None) -> None:
        super().__init__()
        self.number, self.shards = number, shards
        parts = ([f"process {number}"] if number is not None else []) + \
            ([f"shards {shards}"] if shards is not None else [])
        self.who = f"[{', '.join(parts)}] " if parts else ""

    def filter(self, record: logging.LogRecord) -> bool:
        record.process_number, record.shards, record.who = self.number, self.shards, self.who
        return True


def setup_logging(settings: Settings) -> None:
    """Log to stderr at ``LOG_LEVEL``, as text or JSON (``LOG_FORMAT``), every line naming
    its process and shards in a cluster, with every secret redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter() if settings.log_format == "json"
                         else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(NameProcess(settings.process,
                                  str(settings.shards) if settings.shards else None))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # No token in the logs, at any level: the bot's own, and the players' interaction tokens.
    redact_logs([settings.token])
