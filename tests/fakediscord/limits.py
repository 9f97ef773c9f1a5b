"""Discord's documented payload limits, checked the way the API checks them.

Every function adds to a :class:`FormErrors`; the caller raises one
``50035 Invalid Form Body`` with all problems, like Discord does.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakediscord.errors import FormErrors, Path
from tests.fakediscord.models import COMPONENTS_V2, LOCALES

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_FIELDS_MAX = 25
ACTION_ROWS_MAX = 5
ROW_WIDTH = 5
V2_COMPONENTS_MAX = 40
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_PLACEHOLDER_MAX = 150
OPTION_TEXT_MAX = 100
COMMAND_OPTIONS_MAX = 25

EMBED_STRING_LIMITS: dict[tuple[str, ...], int] = {
    ("title",): 256,
    ("description",): 4096,
    ("footer", "text"): 2048,
    ("author", "name"): 256,
}
EMBED_URLS = (("url",), ("image", "url"), ("thumbnail", "url"), ("author", "url"))

SELECT_TYPES = (3, 5, 6, 7, 8)
V2_TYPES = (9, 10, 11, 12, 13, 14, 17)
LINK_STYLE = 5
PREMIUM_STYLE = 6

_URL = re.compile(r"^(https?|attachment)://\S+$")
# Discord: ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$ (the apostrophe is in the
# current docs). \w covers letters and digits of every script; Devanagari and Thai
# are added whole so their combining vowel signs pass too.
_COMMAND_NAME = re.compile(r"^[-_'\w\u0900-\u097f\u0e00-\u0e7f]{1,32}$")


def max_length(errors: FormErrors, path: Path, value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def bad_length(errors: FormErrors, path: Path, value: Any, low: int, high: int) -> None:
    if value is None or len(value) < low or len(value) > high:
        errors.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")


def required(errors: FormErrors, path: Path) -> None:
    errors.add(path, "BASE_TYPE_REQUIRED", "This field is required")


# -- messages ------------------------------------------------------------------


def check_message(payload: dict[str, Any], errors: FormErrors) -> None:
    """Check the fields present in a create/edit message payload."""
    max_length(errors, ("content",), payload.get("content"), CONTENT_MAX)
    if payload.get("embeds"):
        check_embeds(payload["embeds"], errors)
    if payload.get("components"):
        v2 = bool((payload.get("flags") or 0) & COMPONENTS_V2)
        check_components(payload["components"], errors, v2=v2)
        if v2 and (payload.get("content") or payload.get("embeds")):
            errors.add(
                ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' and 'embeds' fields cannot be used when using components v2",
            )
    mentions = payload.get("allowed_mentions")
    if mentions:
        for kind in ("users", "roles"):
            if kind in mentions.get("parse", ()) and mentions.get(kind):
                errors.add(
                    ("allowed_mentions",),
                    "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                    f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
                )


def check_embeds(embeds: list[dict[str, Any]], errors: FormErrors) -> None:
    if len(embeds) > EMBEDS_MAX:
        errors.add(("embeds",), "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        path: Path = ("embeds", i)
        for keys, limit in EMBED_STRING_LIMITS.items():
            value: Any = embed
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            max_length(errors, path + keys, value, limit)
            total += len(value) if isinstance(value, str) else 0
        for keys in EMBED_URLS:
            value = embed
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None and not _URL.match(str(value)):
                errors.add(path + keys, "URL_TYPE_INVALID_URL", "Not a well formed URL.")
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            errors.add((*path, "fields"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, f in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                value = f.get(key)
                if not value:
                    required(errors, (*path, "fields", j, key))
                else:
                    max_length(errors, (*path, "fields", j, key), value, limit)
                    total += len(value)
    if total > EMBED_TOTAL_MAX:
        errors.add(
            ("embeds",),
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}",
        )


# -- components ----------------------------------------------------------------


def check_components(components: list[dict[str, Any]], errors: FormErrors, *, v2: bool) -> None:
    seen: dict[str, Path] = {}
    if v2:
        count = _count(components)
        if count > V2_COMPONENTS_MAX:
            errors.add(
                ("components",),
                "COMPONENT_MAX_TOTAL_COMPONENTS_EXCEEDED",
                f"The message cannot have more than {V2_COMPONENTS_MAX} total components",
            )
        _check_tree(components, ("components",), errors, seen)
        return
    if len(components) > ACTION_ROWS_MAX:
        errors.add(
            ("components",),
            "BASE_TYPE_MAX_LENGTH",
            f"Must be {ACTION_ROWS_MAX} or fewer in length.",
        )
    for i, row in enumerate(components):
        if row.get("type") != 1:
            errors.add(
                ("components", i, "type"),
                "COMPONENT_TYPE_INVALID" if row.get("type") in V2_TYPES else "UNION_TYPE_CHOICES",
                "Components v2 require the IS_COMPONENTS_V2 flag"
                if row.get("type") in V2_TYPES
                else 'Value of field "type" must be one of (1,).',
            )
            continue
        check_action_row(row, ("components", i), errors, seen)


def _count(components: list[dict[str, Any]]) -> int:
    total = 0
    for c in components:
        total += 1 + _count(c.get("components", []))
        total += 1 if isinstance(c.get("accessory"), dict) else 0
    return total


def _check_tree(
    components: list[dict[str, Any]], path: Path, errors: FormErrors, seen: dict[str, Path]
) -> None:
    for i, c in enumerate(components):
        here = (*path, i)
        kind = c.get("type")
        if kind == 1:
            check_action_row(c, here, errors, seen)
        elif kind in (9, 17):
            _check_tree(c.get("components", []), (*here, "components"), errors, seen)
            if isinstance(c.get("accessory"), dict):
                check_interactive(c["accessory"], (*here, "accessory"), errors, seen)
        elif kind == 10:
            bad_length(errors, (*here, "content"), c.get("content"), 1, 4000)
        elif kind in (2, *SELECT_TYPES):
            errors.add(
                here,
                "COMPONENT_LAYOUT_INVALID",
                "Interactive components must be inside an action row",
            )


def check_action_row(
    row: dict[str, Any], path: Path, errors: FormErrors, seen: dict[str, Path]
) -> None:
    children = row.get("components") or []
    if not 1 <= len(children) <= ROW_WIDTH:
        errors.add(
            (*path, "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."
        )
    has_select = any(c.get("type") in SELECT_TYPES for c in children)
    if has_select and len(children) > 1:
        errors.add(
            (*path, "components"),
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
            "The specified component exceeds the maximum width",
        )
    for j, child in enumerate(children):
        check_interactive(child, (*path, "components", j), errors, seen)


def check_custom_id(
    c: dict[str, Any], path: Path, errors: FormErrors, seen: dict[str, Path]
) -> None:
    custom_id = c.get("custom_id")
    if custom_id is None:
        required(errors, (*path, "custom_id"))
        return
    bad_length(errors, (*path, "custom_id"), custom_id, 1, CUSTOM_ID_MAX)
    if custom_id in seen:
        errors.add(
            (*path, "custom_id"),
            "COMPONENT_CUSTOM_ID_DUPLICATED",
            "Component custom id cannot be duplicated",
        )
    seen[custom_id] = path


def check_interactive(
    c: dict[str, Any], path: Path, errors: FormErrors, seen: dict[str, Path]
) -> None:
    kind = c.get("type")
    if kind == 2:
        check_button(c, path, errors, seen)
    elif kind in SELECT_TYPES:
        check_select(c, path, errors, seen)
    elif kind == 11:
        pass  # thumbnail accessory
    else:
        errors.add(
            (*path, "type"), "COMPONENT_TYPE_INVALID", f"Component type {kind} is not allowed here"
        )


def check_button(c: dict[str, Any], path: Path, errors: FormErrors, seen: dict[str, Path]) -> None:
    style = c.get("style")
    if style == LINK_STYLE:
        if not c.get("url"):
            required(errors, (*path, "url"))
        elif not _URL.match(c["url"]) or c["url"].startswith("attachment://"):
            errors.add((*path, "url"), "URL_TYPE_INVALID_URL", "Not a well formed URL.")
        if "custom_id" in c and c["custom_id"] is not None:
            errors.add(
                (*path, "custom_id"),
                "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                "A custom id cannot be specified for link buttons",
            )
    elif style == PREMIUM_STYLE:
        if not c.get("sku_id"):
            required(errors, (*path, "sku_id"))
    elif style in (1, 2, 3, 4):
        check_custom_id(c, path, errors, seen)
        if c.get("url"):
            errors.add(
                (*path, "url"),
                "BUTTON_COMPONENT_URL_NOT_ALLOWED",
                "A url can only be set for link buttons",
            )
    else:
        errors.add(
            (*path, "style"), "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}."
        )
    max_length(errors, (*path, "label"), c.get("label"), BUTTON_LABEL_MAX)
    if style != PREMIUM_STYLE and not c.get("label") and not c.get("emoji"):
        errors.add(path, "BUTTON_COMPONENT_INVALID", "A button must have a label or an emoji")


def check_select(c: dict[str, Any], path: Path, errors: FormErrors, seen: dict[str, Path]) -> None:
    check_custom_id(c, path, errors, seen)
    max_length(errors, (*path, "placeholder"), c.get("placeholder"), SELECT_PLACEHOLDER_MAX)
    low, high = c.get("min_values", 1), c.get("max_values", 1)
    if not 0 <= low <= 25:
        errors.add(
            (*path, "min_values"), "NUMBER_TYPE_MAX", "int value should be between 0 and 25."
        )
    if not 1 <= high <= 25:
        errors.add(
            (*path, "max_values"), "NUMBER_TYPE_MAX", "int value should be between 1 and 25."
        )
    if low > high:
        errors.add(
            (*path, "min_values"),
            "SELECT_COMPONENT_MIN_VALUES_TOO_LARGE",
            "min_values must be less than or equal to max_values",
        )
    if c.get("type") != 3:
        return
    options = c.get("options") or []
    if not 1 <= len(options) <= SELECT_OPTIONS_MAX:
        errors.add(
            (*path, "options"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length."
        )
    if high > len(options) and options:
        errors.add(
            (*path, "max_values"),
            "SELECT_COMPONENT_MAX_VALUES_TOO_LARGE",
            "max_values cannot exceed the number of options",
        )
    values: set[str] = set()
    for k, option in enumerate(options):
        here = (*path, "options", k)
        bad_length(errors, (*here, "label"), option.get("label"), 1, OPTION_TEXT_MAX)
        bad_length(errors, (*here, "value"), option.get("value"), 1, OPTION_TEXT_MAX)
        max_length(errors, (*here, "description"), option.get("description"), OPTION_TEXT_MAX)
        if option.get("value") in values:
            errors.add(
                (*here, "value"),
                "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                "Option values must be unique",
            )
        values.add(option.get("value"))
    if sum(1 for o in options if o.get("default")) > high:
        errors.add(
            (*path, "options"),
            "SELECT_COMPONENT_TOO_MANY_DEFAULTS",
            "Number of default options exceeds max_values",
        )


# -- modals, autocomplete and commands ----------------------------------------


def check_modal(data: dict[str, Any], errors: FormErrors) -> None:
    bad_length(errors, ("title",), data.get("title"), 1, 45)
    seen: dict[str, Path] = {}
    check_custom_id(data, (), errors, seen)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        errors.add(("components",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    for i, top in enumerate(components):
        path: Path = ("components", i)
        inner = top.get("components") or ([top["component"]] if "component" in top else [])
        if top.get("type") == 18:
            bad_length(errors, (*path, "label"), top.get("label"), 1, 45)
        for j, c in enumerate(inner):
            here = (*path, "components", j) if top.get("type") == 1 else (*path, "component")
            check_custom_id(c, here, errors, seen)
            if c.get("type") == 4:
                if top.get("type") == 1:
                    bad_length(errors, (*here, "label"), c.get("label"), 1, 45)
                max_length(errors, (*here, "placeholder"), c.get("placeholder"), 100)
                max_length(errors, (*here, "value"), c.get("value"), 4000)


def check_choices(data: dict[str, Any], errors: FormErrors) -> None:
    choices = data.get("choices") or []
    if len(choices) > 25:
        errors.add(("choices",), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, choice in enumerate(choices):
        bad_length(errors, ("choices", i, "name"), choice.get("name"), 1, 100)
        max_length(errors, ("choices", i, "value"), choice.get("value"), 100)


def check_command(cmd: dict[str, Any], errors: FormErrors, path: Path) -> None:
    """A command as Discord validates it on create and bulk overwrite."""
    kind = cmd.get("type", 1)
    chat_input = kind == 1
    _check_name(cmd, errors, path, chat_input=chat_input, what="Command")
    if chat_input:
        _check_description(cmd, errors, path)
    _check_options(cmd.get("options") or [], errors, (*path, "options"))


def _check_options(options: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    if len(options) > COMMAND_OPTIONS_MAX:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    for i, option in enumerate(options):
        here = (*path, i)
        if option.get("type") in (1, 2):
            check_command({**option, "type": 1}, errors, here)
        else:
            _check_name(option, errors, here, chat_input=True, what="Option")
            _check_description(option, errors, here)
            _check_choices(option.get("choices") or [], errors, (*here, "choices"))
        if option.get("name") in names:
            errors.add(
                (*here, "name"),
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                "Option names must be unique",
            )
        names.add(option.get("name"))


def _check_name(
    item: dict[str, Any], errors: FormErrors, path: Path, *, chat_input: bool, what: str
) -> None:
    def valid(name: Any) -> bool:
        if not isinstance(name, str):
            return False
        if not chat_input:  # user and message commands may use spaces and capitals
            return 1 <= len(name) <= 32
        return bool(_COMMAND_NAME.match(name)) and name == name.lower()

    if not valid(item.get("name")):
        errors.add((*path, "name"), "APPLICATION_COMMAND_INVALID_NAME", f"{what} name is invalid")
    for locale, name in _localizations(item, "name_localizations", errors, path):
        if not valid(name):
            errors.add(
                (*path, "name_localizations", locale),
                "APPLICATION_COMMAND_INVALID_NAME",
                f"{what} name is invalid",
            )


def _check_description(item: dict[str, Any], errors: FormErrors, path: Path) -> None:
    bad_length(errors, (*path, "description"), item.get("description"), 1, 100)
    for locale, text in _localizations(item, "description_localizations", errors, path):
        bad_length(errors, (*path, "description_localizations", locale), text, 1, 100)


def _check_choices(choices: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    if len(choices) > COMMAND_OPTIONS_MAX:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, choice in enumerate(choices):
        bad_length(errors, (*path, i, "name"), choice.get("name"), 1, 100)
        max_length(errors, (*path, i, "value"), choice.get("value"), 100)
        for locale, name in _localizations(choice, "name_localizations", errors, (*path, i)):
            bad_length(errors, (*path, i, "name_localizations", locale), name, 1, 100)


def _localizations(
    item: dict[str, Any], key: str, errors: FormErrors, path: Path
) -> list[tuple[str, Any]]:
    """The ``key`` map's entries with a valid locale; unknown locales are errors."""
    found = item.get(key) or {}
    valid = []
    for locale, value in found.items():
        if locale in LOCALES:
            valid.append((locale, value))
        else:
            errors.add(
                (*path, key, locale),
                "ENUM_TYPE_COERCE",
                f'Value "{locale}" is not a valid enum value.',
            )
    return valid
