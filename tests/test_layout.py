"""The package's layout keeps its promises: the pure library loads no widget, plot or web code,
argument parsing stays in the command line's modules, and no module reaches into another
module's private names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "callbreak_lab"

#: The layers of the package, lowest first: a module imports (at load time or lazily inside a
#: function) only modules of its own layer or of a lower one. The faces come last; nothing
#: imports them.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "core",
        (
            "callbreak_lab", "callbreak_lab.cards", "callbreak_lab.rules", "callbreak_lab.game",
            "callbreak_lab.errors", "callbreak_lab.render",
        ),
    ),
    ("util", ("callbreak_lab.util",)),
    ("solver", ("callbreak_lab.solver",)),
    ("bidding", ("callbreak_lab.bidding",)),
    ("seat", ("callbreak_lab.seat",)),
    ("analysis", ("callbreak_lab.analysis",)),
    ("arena", ("callbreak_lab.arena",)),
    (
        "faces",
        (
            "callbreak_lab.widgets", "callbreak_lab.service", "callbreak_lab.cli",
            "callbreak_lab.__main__",
        ),
    ),
]  # fmt: skip


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    """The index in ``LAYERS`` of ``module`` (the longest matching prefix wins)."""
    best, length = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = i, len(prefix)
    assert best >= 0, f"{module} is in no layer"
    return best


def _all_imports(path: Path) -> list[str]:
    """Every ``callbreak_lab`` module ``path`` imports, at load time or inside a function
    (relative imports resolved); ``from pkg import name`` counts as ``pkg.name`` when that is
    a module."""
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in _walk_running(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[: len(package) - node.level + 1]
                base = ".".join(stem + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.append(sub if _is_module(sub) else base)
    return [m for m in found if m.split(".")[0] == "callbreak_lab"]


def _walk_running(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` that can run: everything but the bodies of ``if TYPE_CHECKING:``
    (imports for the type checker only)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").exists() or (
        PACKAGE.parent / rel / "__init__.py"
    ).exists()


def test_imports_flow_one_way_from_the_faces_to_the_core() -> None:
    """faces -> arena -> analysis -> seat -> bidding -> solver -> core: no module imports one of
    a higher layer, even lazily (docs/architecture.md)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        me = _module_name(path)
        for other in _all_imports(path):
            if _layer(other) > _layer(me):
                bad.append(f"{me} ({LAYERS[_layer(me)][0]}) imports {other}")
    assert bad == []


def test_every_layer_is_in_the_package() -> None:
    for _, prefixes in LAYERS:
        for prefix in prefixes:
            assert _is_module(prefix), prefix


#: The pure library: every module below the faces, and the widgets' controllers (the logic of
#: the notebooks' views, which loads no widget itself).
PURE = [
    _module_name(p)
    for p in sorted(PACKAGE.rglob("*.py"))
    if _layer(_module_name(p)) < len(LAYERS) - 1
] + [
    "callbreak_lab.widgets.controllers",
    "callbreak_lab.widgets.play_controllers",
    "callbreak_lab.widgets.table_controller",
    "callbreak_lab.widgets.after_deal",
    "callbreak_lab.widgets.page",
    "callbreak_lab.widgets.board_controller",
]
FORBIDDEN = ("ipywidgets", "matplotlib", "fastapi", "starlette", "uvicorn", "IPython")


def test_the_pure_library_imports_no_widget_plot_or_web_code() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {PURE!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def _private_imports(path: Path) -> list[str]:
    """``from X import _name`` of a private name, or any import from a private module
    ``X._mod`` (not ``__future__``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
            private_module = any(part.startswith("_") for part in node.module.split("."))
            found += [
                f"{path.relative_to(PACKAGE.parent)}: from {'.' * node.level}{node.module} "
                f"import {a.name}"
                for a in node.names
                if private_module or (a.name.startswith("_") and not a.name.startswith("__"))
            ]
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    """The solver's kernel modules (``solver/_*.py``) share their private kernels with each
    other and with the solver's facade; nothing else imports a private name."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        solver_inside = path.parent.name == "solver"
        for line in _private_imports(path):
            module = line.split(" from ", 1)[1].split(" import ")[0]
            if solver_inside and module.startswith(("callbreak_lab.solver", ".")):
                continue
            bad.append(line)
    assert bad == []


#: What the renderers (``callbreak_lab/render/``) may import at module level besides each other.
CORE = ("callbreak_lab.cards", "callbreak_lab.rules", "callbreak_lab.game", "callbreak_lab.errors")


def _module_level_imports(path: Path) -> list[str]:
    """The ``callbreak_lab`` modules ``path`` imports when it loads: neither inside a function
    nor under ``if TYPE_CHECKING:``."""
    found = []
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return [m for m in found if m.split(".")[0] == "callbreak_lab"]


def test_the_renderers_import_only_the_core() -> None:
    """The render package draws the core types and the analysis results, but loads only the
    core: the results' types are imported for type checking only, so no analysis module is
    loaded by rendering and none sits in an import circle with it."""
    paths = sorted((PACKAGE / "render").glob("*.py"))
    assert {p.stem for p in paths} >= {"__init__", "html", "style", "svg", "text"}
    bad = [
        f"{p.name}: {m}"
        for p in paths
        for m in _module_level_imports(p)
        if m not in CORE and not m.startswith("callbreak_lab.render.")
    ]
    assert bad == []


def test_a_lines_json_loads_no_renderer() -> None:
    """A line's JSON names the cards of the rules' reasons in letters without loading any
    renderer; its text loads the text renderer when asked."""
    code = (
        "import json, sys\n"
        "from callbreak_lab import Deal, Position, play_out, random_player\n"
        "from callbreak_lab.analysis.lines import playout_line\n"
        "p = Position(Deal.random(3), 'online')\n"
        "play_out(p, random_player(0))\n"
        "for _ in range(3):\n"
        "    p.unplay()\n"
        "line = playout_line(p)\n"
        "print(json.dumps(line.to_dict()['steps'][0]['restriction']))\n"
        "print(sorted(m for m in sys.modules if m.startswith('callbreak_lab.render')))\n"
        "line.text()\n"
        "print(sorted(m for m in sys.modules if m.startswith('callbreak_lab.render')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == '"must follow clubs (every one beats the 2C)"'
    assert out[1] == "[]"
    assert "'callbreak_lab.render.text'" in out[2]


def test_argument_parsing_lives_in_the_cli() -> None:
    """``argparse`` is imported by ``callbreak_lab/cli/`` only: the library's functions take
    arguments, the command line turns options into them."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] == "argparse" for n in names):
                bad.append(str(path.relative_to(PACKAGE.parent)))
    assert bad == []
