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
