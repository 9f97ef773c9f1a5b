"""No sentence is glued together outside the catalogue where a language punctuates
(issue 37): an f-string, a ``+`` or a ``join`` that puts a ``:`` ``;`` ``!`` or ``?`` next to a
translated part loses French's narrow no-break space before it ("Dessus des piles: …"), and
fixes the order of the parts for every language. Such a line is a catalogue entry instead
(``{title} : {cards}.``), or a list joined by ``cogs.i18n.translator.list_of``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRANSLATE = {"_", "n_", "gettext", "ngettext", "pgettext", "npgettext"}
PUNCTUATION = re.compile(r"[:;!?](?!//)")  # (not a URL's "://")
# Being rebuilt from catalogue entries where the pictures are drawn (their own change);
# remove each line here when it is gone.


def _translated(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` holds a translation call, or a name given one in its function."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in TRANSLATE:
                return True
        if isinstance(inner, ast.Name) and inner.id in names:
            return True
    return False


def _literal(nodes: list[ast.expr]) -> str:
    return "".join(n.value for n in nodes if isinstance(n, ast.Constant)
                   and isinstance(n.value, str))


def glued(path: Path) -> set[str]:
    """The expressions of ``path`` that glue punctuation to a translated part."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and _translated(node.value, names):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(function):
            if isinstance(node, ast.JoinedStr):
                parts = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
                bad = PUNCTUATION.search(_literal(node.values)) and any(
                    _translated(p, names) for p in parts)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                sides = [node.left, node.right]
                bad = PUNCTUATION.search(_literal(sides)) and any(
                    _translated(s, names) for s in sides)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "join" and isinstance(node.func.value, ast.Constant)):
                bad = PUNCTUATION.search(str(node.func.value.value)) and any(
                    _translated(a, names) for a in node.args)
            else:
                bad = False
            if bad:
                found.add(ast.unparse(node))
    return found


def test_no_punctuation_is_glued_to_translated_text_in_cogs():
    found = {(str(path.relative_to(ROOT)), text)
             for path in sorted((ROOT / "cogs").rglob("*.py")) for text in glued(path)}
    assert not found, "\n".join(sorted(f"{p}: {t}" for p, t in found))


def test_the_glue_scan_can_fail(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def alt(tops, lang):\n"
        "    _ = translator(lang).gettext\n"
        "    title = _('Stack tops')\n"
        "    a = f'{title}: {tops}.'\n"
        "    b = _('Every hand') + ': '\n"
        "    c = '; '.join(_(t) for t in tops)\n"
        "    d = _('{title}: {cards}.').format(title=title, cards=tops)\n"
        "    e = f'https://example.com/{title}'\n"
        "    return a, b, c, d, e\n", encoding="utf-8")
    assert glued(sample) == {"f'{title}: {tops}.'", "_('Every hand') + ': '",
                             "'; '.join((_(t) for t in tops))"}
