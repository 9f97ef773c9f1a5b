"""The fake Discord checks the bot's request bodies against the schemas Discord publishes."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.fakediscord import FakeDiscord
from tests.fakediscord.contract import SPEC, Contract, allow, contract
from tests.fakediscord.errors import APIError
from tests.fakediscord.schema import Compiler

# One body of each shape the bot sent while every test file that drives it through the fake
# ran (each operation; each component, embed, mention and option kind), as the fake received
# them, ids shortened in the paths. Add one when the bot starts sending a new shape.
DATA = Path(__file__).resolve().parents[1] / "data"
BODIES = json.loads((DATA / "bot-request-bodies.json").read_text())

BUTTON = {"type": 2, "style": 1, "label": "Play", "custom_id": "nlk:1:2:play"}


def refusal(method: str, path: str, body: Any) -> APIError:
    with pytest.raises(APIError) as caught:
        contract().check(method, path, body)
    return caught.value


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


@pytest.mark.parametrize(
    ("method", "path", "body", "where", "operation"),
    [
        ("POST", "/channels/1/messages", {"content": 5}, "content", "create_message"),
        (
            "POST",
            "/channels/1/messages",
            {"components": [row({**BUTTON, "type": 99})]},
            "components.0.components.0.type",
            "create_message",
        ),
        (
            "PATCH",
            "/channels/1/messages/2",
            {"components": [row({k: v for k, v in BUTTON.items() if k != "style"})]},
            "components.0.components.0.style",
            "update_message",
        ),
        (
            "PATCH",
            "/webhooks/1/token/messages/@original",
            {"embeds": [{"title": "Table", "fields": [{"name": "Seats", "value": 4}]}]},
            "embeds.0.fields.0.value",
            "update_original_webhook_message",
        ),
        (
            "POST",
            "/interactions/1/token/callback",
            {"type": 7, "data": {"components": [row({**BUTTON, "custom_id": 12})]}},
            "data.components.0.components.0.custom_id",
            "create_interaction_response",
        ),
        (
            "POST",
            "/webhooks/1/token",
            {"content": "x", "flags": 64, "allowed_mentions": {"parse": ["everyone", "all"]}},
            "allowed_mentions.parse.1",
            "execute_webhook",
        ),
        (
            "PUT",
            "/applications/1/guilds/2/commands",
            [{"name": "nlk", "description": "NLK", "options": [{"type": 1}]}],
            "0.options.0.name",
            "bulk_set_guild_application_commands",
        ),
    ],
)
def test_a_malformed_body_is_refused_naming_the_operation_and_the_path(
    method: str, path: str, body: Any, where: str, operation: str
) -> None:
    error = refusal(method, "/api/v10" + path, body)
    assert (error.status, error.code, error.kind) == (400, 50035, "contract")
    assert error.errors is not None
    [(found, _, message)] = error.errors.flat
    assert found == where
    assert message.startswith(f"{operation}: ")


@pytest.mark.parametrize("sent", BODIES, ids=lambda sent: sent["operation"])
def test_each_kind_of_body_the_bot_sends_passes(sent: dict[str, Any]) -> None:
    operation = contract().operation(sent["method"], sent["path"])
    assert operation is not None and operation.name == sent["operation"]
    contract().check(sent["method"], sent["path"], sent["body"])


def test_the_bodies_cover_every_operation_the_bot_uses() -> None:
    assert {sent["operation"] for sent in BODIES} >= {
        "bulk_set_guild_application_commands",
        "create_interaction_response",
        "create_message",
        "execute_webhook",
        "update_message",
        "update_original_webhook_message",
    }


@pytest.mark.parametrize(
    ("reference", "accepted"),
    [("1175928471", True), (1175928471, True), ("11a5", False), (-3, False), (1.5, False)],
)
def test_a_snowflake_may_be_a_string_or_an_integer(reference: Any, accepted: bool) -> None:
    body = {"content": "hi", "message_reference": {"message_id": reference}}
    if accepted:
        contract().check("POST", "/api/v10/channels/1/messages", body)
    else:
        error = refusal("POST", "/api/v10/channels/1/messages", body)
        assert error.errors is not None
        assert error.errors.flat[0][0] == "message_reference.message_id"


def sent_with(operation: str, field: str) -> dict[str, Any]:
    return next(
        sent
        for sent in BODIES
        if sent["operation"] == operation and field in json.dumps(sent["body"])
    )


@pytest.mark.parametrize(
    ("operation", "field", "where"),
    [
        ("execute_webhook", '"users": [', "allowed_mentions.users.0"),  # a turn ping
        ("create_interaction_response", '"attachments": [{', "data.attachments.0.id"),  # export
    ],
)
def test_without_the_allowance_the_bot_would_be_refused(
    operation: str, field: str, where: str
) -> None:
    """discord.py sends these snowflakes as integers; the published schema says strings,
    Discord takes both."""
    strict = Contract(json.loads(SPEC.read_text(encoding="utf-8")))
    sent = sent_with(operation, field)
    contract().check(sent["method"], sent["path"], sent["body"])
    with pytest.raises(APIError) as caught:
        strict.check(sent["method"], sent["path"], sent["body"])
    assert caught.value.errors is not None
    assert caught.value.errors.flat[0][0] == where


def test_a_missing_field_and_a_long_one_get_discords_own_codes() -> None:
    button = {k: v for k, v in BUTTON.items() if k != "style"}
    missing = refusal("POST", "/api/v10/channels/1/messages", {"components": [row(button)]})
    long = refusal("POST", "/api/v10/channels/1/messages", {"content": "x" * 4001})
    assert missing.errors is not None and long.errors is not None
    assert missing.errors.flat[0][1] == "BASE_TYPE_REQUIRED"
    assert long.errors.flat[0][:2] == ("content", "BASE_TYPE_BAD_LENGTH")


def test_a_true_is_not_a_one() -> None:
    error = refusal(
        "POST", "/api/v10/channels/1/messages", {"components": [row({**BUTTON, "style": True})]}
    )
    assert error.errors is not None
    assert error.errors.flat[0][0] == "components.0.components.0.style"


def test_every_documented_request_body_compiles() -> None:
    compiled = [
        op.checker(contract().compiler) for op in contract().operations if op.schema is not None
    ]
    assert len(compiled) > 50


def test_a_keyword_the_checker_does_not_know_is_refused_when_compiling() -> None:
    with pytest.raises(ValueError, match="patternProperties"):
        Compiler({}).compile({"type": "object", "patternProperties": {"^x": {}}})


def test_undocumented_routes_are_not_checked() -> None:
    assert contract().operation("POST", "/api/v10/not/a/route") is None
    contract().check("POST", "/api/v10/not/a/route", {"content": 5})


# -- the compact checker agrees with the reference implementation --------------------


def mutations(body: Any, rng: random.Random) -> Iterator[Any]:
    """Copies of ``body`` with one thing broken: a value of another type, a field left
    out, a kind nobody documents."""
    spots = list(_spots(body, ()))
    for path in rng.sample(spots, min(len(spots), 6)):
        broken = copy.deepcopy(body)
        parent, key = _at(broken, path[:-1]), path[-1]
        value = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[key]
        elif isinstance(value, str):
            parent[key] = rng.choice([5, None, ["x"], "x" * 5000])
        elif isinstance(value, bool):
            parent[key] = "yes"
        elif isinstance(value, int):
            parent[key] = rng.choice(["3", 99, -1, 2.5, True])
        elif isinstance(value, list):
            parent[key] = value * 30 if value else {"x": 1}
        else:
            parent[key] = rng.choice([[], "x", 7])
        yield broken


def _spots(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        yield (*path, key)
        if isinstance(value, dict | list):
            yield from _spots(value, (*path, key))


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


@pytest.mark.e2e  # slow: the reference takes up to half a second a body
def test_the_compact_checker_agrees_with_the_jsonschema_package() -> None:
    spec = allow(json.loads(SPEC.read_text(encoding="utf-8")))
    registry: Registry[Any] = Registry().with_resource(
        "urn:discord", Resource.from_contents(spec, default_specification=DRAFT202012)
    )
    rng = random.Random(18)
    compared = refused = 0
    for sent in BODIES:
        operation = contract().operation(sent["method"], sent["path"])
        assert operation is not None and operation.schema is not None
        reference = Draft202012Validator(
            {
                "$ref": "urn:discord#/paths/"
                + _pointer(operation.template)
                + "/"
                + operation.method.lower()
                + "/requestBody/content/application~1json/schema"
            },
            registry=registry,
        )
        check = operation.checker(contract().compiler)
        for body in [sent["body"], *mutations(sent["body"], rng)]:
            expected = reference.is_valid(body)
            assert (check(body) is None) == expected, (operation.name, body)
            compared += 1
            refused += not expected
    assert refused > 15 and compared - refused > len(BODIES)


def _pointer(template: str) -> str:
    return template.replace("~", "~0").replace("/", "~1")


# -- through the fake's own HTTP server ----------------------------------------------


async def test_a_malformed_body_sent_to_the_fake_is_a_violation(fake_discord: FakeDiscord) -> None:
    url = f"{fake_discord.api_base}/channels/{fake_discord.channel_id}/messages"
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    bad = {"content": "table", "embeds": [{"title": "NLK", "fields": [{"name": "x", "value": 3}]}]}
    form = aiohttp.FormData()
    form.add_field(
        "payload_json", json.dumps({"content": ["not", "text"]}), content_type="application/json"
    )
    form.add_field("files[0]", b"replay", filename="replay.json", content_type="application/json")
    async with aiohttp.ClientSession(headers=headers) as session:
        async with session.post(url, json=bad) as resp:
            assert resp.status == 400
            answer = await resp.json()
        async with session.post(url, data=form) as resp:
            assert resp.status == 400
        async with session.post(url, json={"content": "fine", "flags": 4096}) as resp:
            assert resp.status == 200
    assert answer["code"] == 50035
    assert answer["errors"]["embeds"]["0"]["fields"]["0"]["value"]["_errors"][0]["message"] == (
        "create_message: 3 is not of type string"
    )
    json_body, multipart = fake_discord.violations
    assert (json_body.kind, multipart.kind) == ("contract", "contract")
    assert json_body.errors[0][0] == "embeds.0.fields.0.value"
    assert multipart.errors[0][0] == "content"
    assert "create_message" in str(multipart)
    assert [m.content for m in fake_discord.public_messages()] == ["fine"]
    with pytest.raises(AssertionError, match="embeds.0.fields.0.value: create_message"):
        fake_discord.assert_clean()
    fake_discord.violations.clear()
