"""Logging that never shows a secret: the bot token and interaction tokens are redacted.

discord.py logs whole gateway events and HTTP requests at DEBUG. Interaction tokens in them
(``"token": "…"``, and in ``/interactions/<id>/<token>/…`` and ``/webhooks/<app>/<token>``
URLs) let anyone answer as the bot for 15 minutes; the bot token lets anyone *be* the bot.
``RedactSecrets`` is a handler filter: every record that reaches a handler, from any logger
and at any level, is formatted, redacted, and stored back with no arguments left to format.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

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
