"""A compact JSON Schema checker for the subset Discord's OpenAPI description uses.

Each schema is compiled once into a plain function ``value -> Problem | None``. Discord's
unions (``oneOf``/``anyOf`` of component kinds, interaction callback kinds, "null or an
object") are told apart up front by the value's JSON type and its ``type`` field, so a
button is checked against the button schema only, not against all twelve component
schemas, and a problem inside it is reported at its own path. A keyword outside the
subset is refused when compiling, so a newer document cannot slip past unchecked.

Annotations (``format``, ``contentEncoding``, descriptions) are not asserted, as in
JSON Schema 2020-12 by default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "format",
        "contentEncoding",
        "x-discord-union",
        "examples",
        "example",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    }
)
JSON_TYPES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    dict: "object",
    list: "array",
    type(None): "null",
}


@dataclass
class Problem:
    """What is wrong and where; ``path`` is built innermost first while unwinding."""

    code: str
    message: str
    path: list[str | int] = field(default_factory=list)

    def at(self, key: str | int) -> Problem:
        self.path.append(key)
        return self

    @property
    def where(self) -> tuple[str | int, ...]:
        return tuple(reversed(self.path))


Check = Callable[[Any], Problem | None]


def json_type(value: Any) -> str:
    kind = JSON_TYPES.get(type(value), "unknown")
    if kind == "number" and value.is_integer():
        return "integer"
    return kind


def show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Compiler:
    """Compiles schemas from one document; ``$ref``s are compiled once and shared."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._refs: dict[str, Check] = {}

    def compile(self, schema: dict[str, Any] | bool) -> Check:
        if schema is True:
            return _accept
        if schema is False:
            return lambda value: Problem("SCHEMA_FALSE", "nothing is allowed here")
        unknown = set(schema) - ANNOTATIONS - {k for group in KEYWORDS for k in group}
        if unknown:
            raise ValueError(f"schema keywords this checker does not know: {sorted(unknown)}")
        checks = [make(self, schema) for group, make in KEYWORDS.items() if group & schema.keys()]
        if not checks:
            return _accept
        return checks[0] if len(checks) == 1 else _every(checks)

    def resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#/"):
            raise ValueError(f"only local $refs are supported, not {ref!r}")
        node: Any = self.document
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node  # type: ignore[no-any-return]

    def ref(self, ref: str) -> Check:
        """A reference, compiled on first use; a placeholder breaks recursion."""
        if ref not in self._refs:
            target: list[Check] = []
            self._refs[ref] = lambda value: target[0](value)
            target.append(self.compile(self.resolve(ref)))
            self._refs[ref] = target[0]
        return self._refs[ref]

    def kinds(self, schema: dict[str, Any]) -> frozenset[str] | None:
        """The JSON types a schema can accept (None: any), looking through refs."""
        if "$ref" in schema:
            return self.kinds(self.resolve(schema["$ref"]))
        declared = schema.get("type")
        if declared is None:
            for part in schema.get("allOf", ()):
                if (found := self.kinds(part)) is not None:
                    return found
            return None
        kinds = frozenset([declared] if isinstance(declared, str) else declared)
        return kinds | {"integer"} if "number" in kinds else kinds

    def tags(self, schema: dict[str, Any]) -> frozenset[Any] | None:
        """The values of the ``type`` field an object schema accepts (None: any)."""
        if "$ref" in schema:
            return self.tags(self.resolve(schema["$ref"]))
        tag = schema.get("properties", {}).get("type")
        if isinstance(tag, dict):
            if "const" in tag:
                return frozenset([tag["const"]])
            if "enum" in tag:
                return frozenset(tag["enum"])
        return None


def _accept(value: Any) -> None:
    return None


# -- keywords ----------------------------------------------------------------------


PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def _type(c: Compiler, schema: dict[str, Any]) -> Check:
    allowed = c.kinds({"type": schema["type"]})
    assert allowed is not None
    exact = frozenset(t for kind in allowed for t in PYTHON_TYPES[kind])
    wanted = " or ".join(sorted(allowed))

    def check(value: Any) -> Problem | None:
        # ``type(value) in``: a bool is not an integer; 2.0 is one, as JSON has it.
        if type(value) in exact or json_type(value) in allowed:
            return None
        return Problem("SCHEMA_TYPE", f"{show(value)} is not of type {wanted}")

    return check


def _enum(c: Compiler, schema: dict[str, Any]) -> Check:
    allowed = schema["enum"]
    # JSON equality: ``true`` is not ``1``, so the key says whether a value is a boolean.
    lookup = {(isinstance(v, bool), v) for v in allowed if _hashable(v)}

    def check(value: Any) -> Problem | None:
        if _hashable(value):
            if (isinstance(value, bool), value) in lookup:
                return None
        elif value in allowed:
            return None
        return Problem("SCHEMA_ENUM", f"{show(value)} is not one of {show(allowed)}")

    return check


def _const(c: Compiler, schema: dict[str, Any]) -> Check:
    return _enum(c, {"enum": [schema["const"]]})


def _properties(c: Compiler, schema: dict[str, Any]) -> Check:
    known = schema.get("properties", {})
    each = {name: c.compile(sub) for name, sub in known.items()}
    required = list(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    other = None if extra is True else c.compile(extra)
    low, high = schema.get("minProperties", 0), schema.get("maxProperties")
    sized = low > 0 or high is not None

    def check(value: Any) -> Problem | None:
        if not isinstance(value, dict):
            return None
        for name in required:
            if name not in value:
                return Problem("SCHEMA_REQUIRED", "this field is required").at(name)
        for name, item in value.items():
            sub = each.get(name, other)
            if sub is not None and (problem := sub(item)) is not None:
                return problem.at(name)
        if sized and (len(value) < low or (high is not None and len(value) > high)):
            return Problem("SCHEMA_PROPERTIES", f"must have {_range(low, high)} fields")
        return None

    return check


def _items(c: Compiler, schema: dict[str, Any]) -> Check:
    each = c.compile(schema["items"]) if "items" in schema else None
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    unique = schema.get("uniqueItems", False)

    def check(value: Any) -> Problem | None:
        if not isinstance(value, list):
            return None
        if len(value) < low or (high is not None and len(value) > high):
            return Problem(
                "SCHEMA_LENGTH", f"must hold {_range(low, high)} items, not {len(value)}"
            )
        if each is not None:
            for index, item in enumerate(value):
                if (problem := each(item)) is not None:
                    return problem.at(index)
        if unique and len({json.dumps(item, sort_keys=True) for item in value}) < len(value):
            return Problem("SCHEMA_UNIQUE", "items must be unique")
        return None

    return check


def _string(c: Compiler, schema: dict[str, Any]) -> Check:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None

    def check(value: Any) -> Problem | None:
        if not isinstance(value, str):
            return None
        if len(value) < low or (high is not None and len(value) > high):
            return Problem("SCHEMA_LENGTH", f"must be {_range(low, high)} long, not {len(value)}")
        if pattern is not None and not pattern.search(value):
            return Problem("SCHEMA_PATTERN", f"{show(value)} does not match {pattern.pattern}")
        return None

    return check


def _number(c: Compiler, schema: dict[str, Any]) -> Check:
    low, high = schema.get("minimum"), schema.get("maximum")

    def check(value: Any) -> Problem | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if low is not None and value < low:
            return Problem("SCHEMA_RANGE", f"{value} is less than {low}")
        if high is not None and value > high:
            return Problem("SCHEMA_RANGE", f"{value} is more than {high}")
        return None

    return check


def _ref(c: Compiler, schema: dict[str, Any]) -> Check:
    return c.ref(schema["$ref"])


def _all_of(c: Compiler, schema: dict[str, Any]) -> Check:
    parts = [c.compile(part) for part in schema["allOf"]]
    return parts[0] if len(parts) == 1 else _every(parts)


def _every(checks: list[Check]) -> Check:
    def check(value: Any) -> Problem | None:
        for each in checks:
            if (problem := each(value)) is not None:
                return problem
        return None

    return check


def _union(c: Compiler, schema: dict[str, Any], keyword: str) -> Check:
    """``oneOf``/``anyOf``: only branches of the value's kind can match, so only they run."""
    if all(set(b) - ANNOTATIONS == {"const"} for b in schema[keyword]):
        # Discord's enumerations are unions of named constants: one lookup, not one try each.
        return _enum(c, {"enum": [b["const"] for b in schema[keyword]]})
    branches = [(c.kinds(b), _keys(c.tags(b)), c.compile(b)) for b in schema[keyword]]
    exactly_one = keyword == "oneOf"
    wanted = " or ".join(sorted({kind for kinds, _, _ in branches for kind in kinds or ()}))
    chosen: dict[tuple[str, Any], list[Check]] = {}

    def candidates(kind: str, tag: Any) -> list[Check]:
        """The branches a value of this JSON type and ``type`` field could match."""
        if (kind, tag) not in chosen:
            chosen[kind, tag] = [
                run
                for kinds, tags, run in branches
                if (kinds is None or kind in kinds) and (tag is None or tags is None or tag in tags)
            ]
        return chosen[kind, tag]

    def check(value: Any) -> Problem | None:
        kind = json_type(value)
        tag = _key(value.get("type")) if kind == "object" else None
        runs = candidates(kind, tag)
        if not runs:
            if tag is not None and candidates(kind, None):
                return Problem(
                    "SCHEMA_UNION", f"{show(value['type'])} is not a documented type here"
                ).at("type")
            return Problem("SCHEMA_UNION", f"{show(value)} is not of type {wanted}")
        problems = []
        passed = 0
        for run in runs:
            problem = run(value)
            if problem is None:
                passed += 1
                if not exactly_one:
                    return None
            else:
                problems.append(problem)
        if passed == 1 or (passed and not exactly_one):
            return None
        if passed:
            return Problem("SCHEMA_UNION", "matches more than one of the allowed kinds")
        return max(problems, key=lambda p: len(p.path))

    return check


def _range(low: int, high: int | None) -> str:
    return f"at least {low}" if high is None else f"{low} to {high}"


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _key(tag: Any) -> Any:
    """A ``type`` field as a lookup key (None: the value has none to go by)."""
    if tag is None:
        return None
    if _hashable(tag):
        return isinstance(tag, bool), tag  # JSON's true is not 1
    return ("not a name",)  # a list or object: no documented kind has it


def _keys(tags: frozenset[Any] | None) -> frozenset[Any] | None:
    return None if tags is None else frozenset(_key(tag) for tag in tags)


# Keywords that are checked together, in this order (the value's type first).
KEYWORDS: dict[frozenset[str], Callable[[Compiler, dict[str, Any]], Check]] = {
    frozenset({"type"}): _type,
    frozenset({"enum"}): _enum,
    frozenset({"const"}): _const,
    frozenset({"$ref"}): _ref,
    frozenset({"allOf"}): _all_of,
    frozenset({"oneOf"}): lambda c, s: _union(c, s, "oneOf"),
    frozenset({"anyOf"}): lambda c, s: _union(c, s, "anyOf"),
    frozenset(
        {"properties", "required", "additionalProperties", "minProperties", "maxProperties"}
    ): _properties,
    frozenset({"items", "minItems", "maxItems", "uniqueItems"}): _items,
    frozenset({"minLength", "maxLength", "pattern"}): _string,
    frozenset({"minimum", "maximum"}): _number,
}
