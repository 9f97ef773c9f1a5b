"""The gateway websocket: HELLO, IDENTIFY/READY, heartbeats, RESUME and dispatches."""

from __future__ import annotations

import asyncio
import json
import logging
import zlib
from collections import deque
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from tests.fakediscord import payloads
from tests.fakediscord.errors import Violation

if TYPE_CHECKING:
    from tests.fakediscord.state import State

log = logging.getLogger("fakediscord.gateway")

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE_STATE = 0, 1, 2, 3, 4
RESUME, RECONNECT, REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 6, 7, 8, 9, 10, 11
ACK_DELAY = 0.05  # seconds: a heartbeat's round trip

HEARTBEAT_INTERVAL_MS = 41250
MESSAGE_CONTENT = 1 << 15
RESUME_BUFFER = 1000
IDENTIFY_SPACING = 5.0  # seconds between two IDENTIFYs of one max_concurrency bucket
DAILY_IDENTIFIES = 1000
GUILD_EVENTS = ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE")  # the guild is ``id``


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard a guild's events go to, as Discord computes it (no guild: shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % count


class Connection:
    """One websocket. Frames go through a queue so zlib stream order is preserved."""

    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self._zlib = zlib.compressobj() if compress else None
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop())
        self.session: BotSession | None = None
        self.dropped = False  # closed by the fake on purpose, so the session may RESUME

    @property
    def open(self) -> bool:
        return not self.ws.closed

    def send(self, frame: dict[str, Any]) -> None:
        self._queue.put_nowait(frame)

    async def _write_loop(self) -> None:
        while (frame := await self._queue.get()) is not None:
            text = json.dumps(frame, separators=(",", ":"))
            try:
                if self._zlib is None:
                    await self.ws.send_str(text)
                else:
                    # One compressor per connection; every message ends with a sync flush
                    # (00 00 ff ff), which is how discord.py finds message boundaries.
                    data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                log.debug("dropping frames for a closed connection")
                return

    async def close(self, code: int = 1000) -> None:
        self._queue.put_nowait(None)
        await self._writer
        await self.ws.close(code=code)


class BotSession:
    """A gateway session: one IDENTIFY, possibly carried over several sockets by RESUME."""

    def __init__(self, number: int, intents: int, shard: list[int] | None) -> None:
        self.number = number
        self.session_id = f"fake-session-{number}"
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.ready = False  # the client has processed READY and every GUILD_CREATE
        self.closed = False
        self.resumable = True
        self.ready_seq = 0
        self.connection: Connection | None = None
        self._buffer: deque[dict[str, Any]] = deque(maxlen=RESUME_BUFFER)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "ready" if self.ready else "starting"
        return f"<BotSession #{self.number} {state} seq={self.seq}>"

    @property
    def live(self) -> bool:
        return not self.closed and self.connection is not None and self.connection.open

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self._buffer.append(frame)
        if self.live:
            assert self.connection is not None
            self.connection.send(frame)

    def replay_after(self, seq: int) -> list[dict[str, Any]]:
        return [f for f in self._buffer if f["s"] > seq]

    def owns(self, guild_id: int | None) -> bool:
        """Whether the guild's events reach this session (an unsharded one gets them all)."""
        return self.shard is None or shard_of(guild_id, self.shard[1]) == self.shard[0]


class Gateway:
    """Accepts bot connections and routes events to them."""

    def __init__(self, state: State, token: str) -> None:
        self.state = state
        self.token = token
        self.url = ""
        self.sessions: list[BotSession] = []
        self.connections: set[Connection] = set()
        # Sharding, off by default (one session gets everything, as a small bot's does).
        # With a shard count, IDENTIFY must name a shard, each session gets its shard's
        # guilds only, and IDENTIFYs are paced per max_concurrency bucket.
        self.shard_count: int | None = None
        self.max_concurrency = 1
        self.identified: dict[int, float] = {}  # bucket → when its last IDENTIFY came
        self.identifies = 0
        # A hand-over: every ready session of the guild's shard gets each interaction.
        self.handover = False

    # -- routing --------------------------------------------------------------
    def active(self, guild_id: int | None = None, *, shard: int | None = None
               ) -> BotSession | None:
        """The newest ready session for the guild (or ``shard``); interactions go there."""
        return next(iter(self.ready_sessions(guild_id, shard=shard)), None)

    def ready_sessions(self, guild_id: int | None = None, *, shard: int | None = None
                       ) -> list[BotSession]:
        """The ready sessions that receive the guild's (or ``shard``'s) events, newest
        first."""
        if shard is not None and self.shard_count is not None:
            guild_id = shard << 22  # a guild id on that shard
        return [s for s in reversed(self.sessions) if s.ready and s.live and s.owns(guild_id)]

    def broadcast(self, event: str, data: dict[str, Any], intent: int) -> None:
        guild = data.get("id") if event in GUILD_EVENTS else data.get("guild_id")
        guild_id = int(guild) if guild is not None else None
        for session in self.sessions:
            # A dropped but resumable session keeps buffering, so RESUME can replay.
            if (session.closed and not session.resumable) or not session.intents & intent:
                continue
            if not session.owns(guild_id):
                continue
            session.dispatch(event, self._redact(session, event, data))

    def _redact(self, session: BotSession, event: str, data: dict[str, Any]) -> dict[str, Any]:
        """Strip message content the bot has no intent to read, as Discord does."""
        if event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE") or session.intents & MESSAGE_CONTENT:
            return data
        bot_id = str(self.state.bot.id)
        if data["author"]["id"] == bot_id or any(
            m["id"] == bot_id for m in data.get("mentions", ())
        ):
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    # -- the websocket handler ------------------------------------------------
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        compress = request.query.get("compress")
        if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
            log.error(
                "unsupported gateway parameters %s; use json and zlib-stream", dict(request.query)
            )
            await ws.close(code=4002, message=b"unsupported encoding")
            return ws
        conn = Connection(ws, compress=compress == "zlib-stream")
        self.connections.add(conn)
        conn.send({"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                if not await self._on_frame(conn, frame):
                    break
        finally:
            self.connections.discard(conn)
            session = conn.session
            if session is not None and session.connection is conn:
                session.closed = True
                # A clean 1000/1001 close from the client ends the session for good.
                session.resumable = conn.dropped or ws.close_code not in (1000, 1001)
                log.info("bot session #%s disconnected (code %s)", session.number, ws.close_code)
            await conn.close()
            self.state.changed()
        return ws

    async def _on_frame(self, conn: Connection, frame: dict[str, Any]) -> bool:
        op = frame.get("op")
        data: Any = frame.get("d")
        if op == HEARTBEAT:
            # Acknowledged after a network's round trip, as Discord's is: discord.py notes
            # when it sent a heartbeat only after handing it over, so an instant answer can
            # beat that note and read as a heartbeat a whole interval late ("Can't keep up").
            asyncio.get_running_loop().call_later(ACK_DELAY, conn.send, {"op": HEARTBEAT_ACK})
            session = conn.session
            if (
                session
                and not session.ready
                and isinstance(data, int)
                and data >= session.ready_seq
            ):
                session.ready = True
                self.state.changed()
        elif op == IDENTIFY:
            if data.get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return False
            if self.shard_count is not None and not await self._may_identify(conn, data):
                return conn.open
            self._identify(conn, data)
        elif op == RESUME:
            await self._resume(conn, data)
        elif op == REQUEST_MEMBERS:
            guild = self.state.guilds.get(int(data["guild_id"]))
            if guild and conn.session:
                conn.session.dispatch("GUILD_MEMBERS_CHUNK", payloads.members_chunk(guild, data))
        elif op in (PRESENCE, VOICE_STATE):
            pass
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")
            return False
        return True

    def _identify(self, conn: Connection, data: dict[str, Any]) -> None:
        # A fresh IDENTIFY means the bot gave up on its old sessions (a restart).
        for old in self.sessions:
            if old.closed:
                old.resumable = False
        session = BotSession(len(self.sessions) + 1, int(data.get("intents", 0)), data.get("shard"))
        session.connection = conn
        conn.session = session
        self.sessions.append(session)
        guilds = [g for g in self.state.guilds.values() if session.owns(g.id)]
        session.dispatch(
            "READY",
            payloads.ready(
                self.state, session.session_id, self.url, session.shard, [g.id for g in guilds]
            ),
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", payloads.guild_create(self.state, guild))
        self._barrier(session)
        log.info("bot identified as session #%s", session.number)

    async def _may_identify(self, conn: Connection, data: dict[str, Any]) -> bool:
        """A sharded bot's IDENTIFY must name a valid shard, and come at least 5 s after the
        previous one of its bucket (``shard_id % max_concurrency``): else Discord answers
        op 9, and the fake counts a violation."""
        assert self.shard_count is not None
        shard = data.get("shard")
        if not (
            isinstance(shard, list)
            and len(shard) == 2
            and shard[1] == self.shard_count
            and 0 <= shard[0] < shard[1]
        ):
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return False
        bucket = shard[0] % self.max_concurrency
        now = self.state.clock()
        last = self.identified.get(bucket)
        if last is not None and now - last < IDENTIFY_SPACING:
            self.state.violations.append(
                Violation(
                    method="GATEWAY",
                    path=f"IDENTIFY shard {shard}",
                    status=0,
                    code=INVALID_SESSION,
                    message=f"IDENTIFY {now - last:.2f}s after the previous one in bucket "
                    f"{bucket} (at least {IDENTIFY_SPACING:.0f}s)",
                    kind="identify",
                )
            )
            log.warning("IDENTIFY too soon for shard %s: op 9", shard)
            conn.send({"op": INVALID_SESSION, "d": False})
            self.state.changed()
            return False
        self.identified[bucket] = now
        self.identifies += 1
        return True

    async def _resume(self, conn: Connection, data: dict[str, Any]) -> None:
        session = next((s for s in self.sessions if s.session_id == data.get("session_id")), None)
        if session is None or not session.resumable or data.get("token") != self.token:
            conn.send({"op": INVALID_SESSION, "d": False})
            return
        old = session.connection
        session.connection, session.closed, session.ready = conn, False, False
        conn.session = session
        if old is not None and old is not conn and old.open:
            await old.close(4000)
        for frame in session.replay_after(int(data.get("seq") or 0)):
            conn.send(frame)
        session.dispatch("RESUMED", {})
        self._barrier(session)

    def _barrier(self, session: BotSession) -> None:
        # Ask for a heartbeat: its sequence number proves the client has read
        # (and, since discord.py parses in order, processed) everything so far.
        session.ready_seq = session.seq
        assert session.connection is not None
        session.connection.send({"op": HEARTBEAT, "d": None})

    async def reconnect(self, session: BotSession) -> None:
        """Send op 7 RECONNECT; discord.py will come back with RESUME."""
        if session.connection:
            session.connection.dropped = True
            session.connection.send({"op": RECONNECT, "d": None})

    async def drop(self, session: BotSession, code: int = 4000) -> None:
        """Close the socket abruptly, as a network blip would."""
        if session.connection:
            session.connection.dropped = True
            await session.connection.ws.close(code=code)

    async def close_all(self) -> None:
        for conn in list(self.connections):
            await conn.ws.close(code=1001)
