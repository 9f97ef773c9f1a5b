"""docs/architecture.md names its hops as `file: function`: each must still exist, so the
page can't quietly describe code that has moved or gone."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOP = re.compile(r"`([\w/]+\.py): ([\w.]+)`")


def defined(path: Path) -> set[str]:
    """Every top-level function and class of ``path``, and each class's methods, as
    ``name`` and ``Class.method``."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names.update(f"{node.name}.{item.name}" for item in node.body
                         if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
    return names


def test_every_hop_the_architecture_page_names_exists():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    hops = HOP.findall(text)
    assert len(hops) > 20  # the page still names its hops this way
    missing = [f"{file}: {name}" for file, name in hops
               if not (ROOT / file).is_file() or name not in defined(ROOT / file)]
    assert not missing, missing


def test_a_renamed_function_is_caught(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("class A:\n    def b(self):\n        pass\n\ndef c():\n    pass\n")
    assert defined(module) == {"A", "A.b", "c"}
    assert "A.gone" not in defined(module)


REF = re.compile(r"`(?:([\w/]+\.py): )?([A-Z_a-z][\w]*(?:\.\w+)?)`|→")


def sources() -> dict[str, list[tuple[Path, str]]]:
    """Every function and method of the project's packages by ``name`` and
    ``Class.method``: where it is defined, and its source."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for path in [*ROOT.glob("bot/**/*.py"), *ROOT.glob("cogs/**/*.py"),
                 *ROOT.glob("rules/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        for node in ast.parse(text).body:
            items = [(node.name, node)] if isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef) else \
                [(f"{node.name}.{item.name}", item) for item in node.body
                 if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)] \
                if isinstance(node, ast.ClassDef) else []
            for name, item in items:
                found.setdefault(name, []).append(
                    (path, ast.get_source_segment(text, item) or ""))
    return found


def arrows(text: str) -> list[tuple[tuple[str | None, str], tuple[str | None, str]]]:
    """Each ``A → B`` on the page: the reference just before an arrow and just after."""
    pairs, last, arrow = [], None, False
    for match in REF.finditer(text):
        if match[0] == "→":
            arrow = last is not None
            continue
        ref = (match[1], match[2])
        if arrow:
            pairs.append((last, ref))
        last, arrow = ref, False
    return pairs


def test_every_arrow_on_the_architecture_page_is_a_call_in_the_code():
    """`A` → `B` says A calls B: B's name is called in A's own source (so the page
    follows the code's hops, not only its names)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    code = sources()
    pairs = arrows(text)
    assert len(pairs) > 25
    wrong = []
    for (file_a, a), (_file_b, b) in pairs:
        defined_a = [(path, source) for path, source in code.get(a, [])
                     if file_a is None or path == ROOT / file_a]
        callee = b.rpartition(".")[2]
        if len(defined_a) != 1 or not re.search(rf"\b{callee}\(", defined_a[0][1]):
            wrong.append(f"{a} → {b}")
    assert not wrong, wrong


def test_a_hop_that_is_not_a_call_is_caught():
    code_pairs = arrows("`cogs/live/owner.py: LiveTable.saw` → `LiveTable.wake` → "
                        "`Flights.outcome`")
    assert code_pairs == [(("cogs/live/owner.py", "LiveTable.saw"), (None, "LiveTable.wake")),
                          ((None, "LiveTable.wake"), (None, "Flights.outcome"))]
    code = sources()
    (_, wake), = code["LiveTable.wake"]
    assert re.search(r"\bwake\(", code["LiveTable.saw"][0][1])
    assert not re.search(r"\boutcome\(", wake)
