"""The package installs and runs on its own: the bid models are package data, found through
``importlib.resources`` from a checkout, a zip import, an installed wheel or sdist and an
editable install.

The slow tests build the wheel and the sdist offline (``pip wheel --no-build-isolation`` and
setuptools' own ``build_sdist``, from a copy of the files a build reads, so the checkout gets no
``build/`` or ``*.egg-info``), install each (and a copy of the sources in editable mode) with
``pip install --no-deps --no-index`` into a fresh virtual environment, and run the
``callbreak-lab`` command there from a folder outside the repository with ``PYTHONPATH``
cleared. The fresh environment reuses the test environment's
dependencies through a ``.pth`` file naming its site-packages (``--system-site-packages`` would
give the base interpreter's site-packages, not this virtual environment's); that folder also
holds the editable install of the checkout, so every run checks that ``callbreak_lab`` is the
copy installed in the fresh environment.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import site
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import callbreak_lab
from callbreak_lab import PRESETS
from callbreak_lab.bidding.datasets import PROFILES
from callbreak_lab.bidding.model import (
    MODELS_ENV,
    load_model,
    model_paths,
    recommend_call,
    shipped_models,
)
from callbreak_lab.seat.playmodel import load_play_model

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "callbreak_lab"
#: what a build reads besides the package (pyproject: readme; MANIFEST.in: the sdist's files)
BUILD_FILES = ("pyproject.toml", "README.md", "MANIFEST.in")
#: the bid models and the play policies (``seat.playmodel``), one of each per profile
MODEL_FILES = sorted(
    f"{kind}_{p}.{ext}" for kind in ("bid", "play") for p in PROFILES for ext in ("joblib", "json")
)
#: the match equity's recorded deals, one file and its card a preset
EQUITY_FILES = sorted(f"equity_{p}.{ext}" for p in PRESETS for ext in ("npz", "json"))
#: the play-out scale of the cards' outcomes and its card (``seat.scale``)
SCALE_FILES = ["scale.json", "scale_card.json"]
SHIPPED = sorted(MODEL_FILES + EQUITY_FILES + SCALE_FILES)
#: the card-chance model of "why this call" and its card (``bidding.cardchances``)
WHY_FILES = ["why_cards.joblib", "why_cards.json"]
SHIPPED = sorted([*SHIPPED, *WHY_FILES])
#: the assets of the service's documentation pages, with their licences (service/static/)
STATIC_FILES = sorted(
    p.relative_to(PACKAGE).as_posix()
    for p in (PACKAGE / "service" / "static").rglob("*")
    if p.is_file()
)

HAND = "AKQ2.T98.765.432"
# README's tour: the deal of seed 7 (values 3 1 3 2) and the position where seat 3, holding
# A642.Q8.Q76.AK87 as dealt, leads trick 11 and the A♣ is the card to play at the table
DEAL = "Q9.KQ2.K85.AQ862 J8532.843.J93.J5 AKT7.J96.762.T93 64.AT75.AQT4.K74"
SPOT_HAND = "A642.Q8.Q76.AK87"
SPOT_PLAYS = (
    "5D 9D KD QD | 6H QH TH 5H | 7C TC JC 9C | 2C 5C 8C QC | JS QS KS AS | "
    "4S 7S 9S 3S | 8D AD 6D 2D | 9H 8H 4H 8S | 4D JH 7D JD | 3C 4C 3H KC"
)


def _env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point a child at the checkout or at
    other models, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", MODELS_ENV)}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    """Run a command; its stdout (a failure shows stdout and stderr)."""
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


# --- quick: the checkout and a zip import ----------------------------------------------------


def test_the_shipped_models_are_package_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the checkout the package reads its models from ``callbreak_lab/models/`` through
    importlib.resources; pyproject's package-data puts every one of them in the wheel, and
    ``make models`` (scripts/make_models.py) writes there by default."""
    import importlib.util

    monkeypatch.delenv(MODELS_ENV, raising=False)
    folder = shipped_models()
    assert isinstance(folder, Path) and folder.resolve() == PACKAGE / "models"
    shipped = sorted(p.name for p in folder.iterdir() if p.suffix in (".joblib", ".json", ".npz"))
    assert shipped == SHIPPED
    for profile in PROFILES:
        model_file, card_file = model_paths(profile)
        assert (model_file, card_file) == (
            folder / f"bid_{profile}.joblib",
            folder / f"bid_{profile}.json",
        )
        assert load_model(profile).profile == profile
        assert load_play_model(profile).coef_.size
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["callbreak_lab"]
    for name in MODEL_FILES + EQUITY_FILES + SCALE_FILES:
        assert any(fnmatch.fnmatch(f"models/{name}", p) for p in patterns), name
    for name in WHY_FILES:
        assert any(fnmatch.fnmatch(f"models/{name}", p) for p in patterns), name
    for name in STATIC_FILES:  # the service's /docs and /redoc assets and their licences
        assert any(fnmatch.fnmatch(name, p) for p in patterns), name

    spec = importlib.util.spec_from_file_location(
        "make_models", REPO / "scripts" / "make_models.py"
    )
    assert spec is not None and spec.loader is not None
    make_models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_models)
    assert make_models._args([]).models.resolve() == folder.resolve()
    make_models.check_models_folder(folder)  # the checkout's package reads what it writes
    monkeypatch.setattr(make_models, "MODELS", folder.parent / "elsewhere")
    with pytest.raises(SystemExit, match="imported from"):
        make_models.check_models_folder(folder.parent / "elsewhere")


def test_the_models_load_from_a_zip_import(tmp_path: Path) -> None:
    """The package imported from a zip archive finds its models inside the archive (joblib
    loads a temporary copy) and calls as the checkout does."""
    archive = tmp_path / "callbreak_lab.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(PACKAGE.rglob("*")):
            rel = path.relative_to(REPO)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc":
                z.write(path, rel.as_posix())
    script = (
        "import json, callbreak_lab\n"
        "from callbreak_lab.bidding.model import recommend_call, shipped_models\n"
        "from callbreak_lab.seat.playmodel import load_play_model\n"
        "assert load_play_model('home').coef_.size\n"
        f"r = recommend_call({HAND!r}, 1, 'online')\n"
        "print(json.dumps([callbreak_lab.__file__, type(shipped_models()).__module__,"
        " r.call, r.expected]))\n"
    )
    out = _run([sys.executable, "-c", script], tmp_path, _env(PYTHONPATH=str(archive)))
    where, module, call, expected = json.loads(out)
    assert where.startswith(str(archive)), where
    assert module.startswith("zipfile"), module  # a folder inside the archive
    here = recommend_call(HAND, 1, "online")
    assert call == here.call
    assert expected == {str(c): v for c, v in here.expected.items()}


# --- slow: build, install, run ---------------------------------------------------------------


def _sources(dest: Path) -> Path:
    """A copy of what a build reads (a build writes ``build/`` and ``*.egg-info`` beside it)."""
    dest.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(REPO / name, dest / name)
    shutil.copytree(
        PACKAGE, dest / "callbreak_lab", ignore=shutil.ignore_patterns("__pycache__", "*.py[cod]")
    )
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel and the sdist, built offline from a copy of the checkout's build inputs."""
    root = tmp_path_factory.mktemp("build")
    src, dist = _sources(root / "src"), root / "dist"
    env = _env()
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    _run([*pip, "--wheel-dir", str(dist), str(src)], root, env)
    sdist_script = (
        "import sys\nfrom setuptools import build_meta\n"
        "print(build_meta.build_sdist(sys.argv[1]))\n"
    )
    _run([sys.executable, "-c", sdist_script, str(dist)], src, env)
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def _wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return z.namelist()


@pytest.mark.slow
def test_the_wheel_and_the_sdist_hold_the_models(built: dict[str, Path]) -> None:
    """Both carry the sixteen model files and no evaluation report, plot or test; the sdist's
    files are the package's, README.md and the build's configuration."""
    version = callbreak_lab.__version__
    assert built["wheel"].name == f"callbreak_lab-{version}-py3-none-any.whl"
    names = _wheel_names(built["wheel"])
    models = sorted(n.removeprefix("callbreak_lab/models/") for n in names if "/models/" in n)
    assert models == SHIPPED
    reports = [
        n
        for n in names
        if (n.endswith(".png") and "/static/" not in n) or fnmatch.fnmatch(n, "*/evaluation-*")
    ]
    assert reports == []
    static = sorted(n.removeprefix("callbreak_lab/") for n in names if "/static/" in n)
    assert static == STATIC_FILES and "service/static/redoc/LICENSE" in static
    assert all(
        n.startswith(("callbreak_lab/", f"callbreak_lab-{version}.dist-info/")) for n in names
    )
    with tarfile.open(built["sdist"]) as tar:
        files = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()]
    top = f"callbreak_lab-{version}"
    assert built["sdist"].name == f"{top}.tar.gz"
    assert sorted(f.removeprefix("callbreak_lab/models/") for f in files if "/models/" in f) == (
        SHIPPED
    )
    assert {f.split("/")[0] for f in files} <= {
        "callbreak_lab",
        "callbreak_lab.egg-info",
        "PKG-INFO",
        "README.md",
        "pyproject.toml",
        "setup.cfg",
        "MANIFEST.in",
    }
    in_wheel = {n for n in names if n.startswith("callbreak_lab/")}
    assert in_wheel == {f for f in files if f.startswith("callbreak_lab/")}


def _fresh_venv(where: Path) -> Path:
    """A virtual environment that sees this environment's packages after its own; its
    python."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=300
    )
    python = where / "bin" / "python"
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    lines = [f"import site; site.addsitedir({d!r})" for d in dirs if Path(d).is_dir()]
    (Path(own) / "_callbreak_test_environment.pth").write_text("\n".join(lines) + "\n")
    return python


@pytest.fixture(scope="module")
def installed(
    built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], tuple[Path, Path]]:
    """``installed(kind)``: a fresh virtual environment with the wheel, the sdist or an
    editable install of a copy of the sources (made once per kind); its folder and the folder
    its ``callbreak_lab`` must come from."""
    made: dict[str, tuple[Path, Path]] = {}

    def venv_of(kind: str) -> tuple[Path, Path]:
        if kind not in made:
            root = tmp_path_factory.mktemp(kind)
            venv = root / "venv"
            python = _fresh_venv(venv)
            pip = [str(python), "-m", "pip", "install", "--no-deps", "--no-index"]
            pip.append("--ignore-installed")  # the editable install of the checkout is seen
            if kind == "editable":
                target = _sources(root / "src")
                pip += ["--no-build-isolation", "--editable", str(target)]
            else:
                target = venv
                if kind == "sdist":
                    pip.append("--no-build-isolation")  # built with this environment's setuptools
                pip.append(str(built[kind]))
            _run(pip, root, _env())
            made[kind] = venv, target
        return made[kind]

    return venv_of


@pytest.mark.slow
@pytest.mark.timeout(1500)
@pytest.mark.parametrize("kind", ["wheel", "sdist", "editable"])
def test_installed_package_runs_outside_the_repository(
    kind: str, installed: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    venv, home = installed(kind)
    python = venv / "bin" / "python"
    work = tmp_path / "work"  # the folder every command runs in: no data/, no models/
    work.mkdir()
    env = _env(NUMBA_CACHE_DIR=str(venv.parent / "numba"), MPLBACKEND="Agg")

    probe = (
        "import importlib.metadata, json, sys\n"
        "import callbreak_lab\n"
        "from callbreak_lab.widgets import call_advisor, play_against_bots\n"
        "from callbreak_lab.bidding.model import shipped_models\n"
        "from callbreak_lab.seat.playmodel import load_play_model\n"
        "assert load_play_model('online').coef_.size\n"
        "print(json.dumps({'file': callbreak_lab.__file__, 'models': str(shipped_models()),\n"
        "    'version': callbreak_lab.__version__,\n"
        "    'metadata': importlib.metadata.version('callbreak_lab'),\n"
        "    'widgets': sys.modules['callbreak_lab.widgets.views'].__file__}))\n"
    )
    seen = json.loads(_run([str(python), "-c", probe], work, env))
    for key in ("file", "models", "widgets"):
        assert Path(seen[key]).is_relative_to(home), (key, seen[key])  # not the checkout's
    version = callbreak_lab.__version__
    assert seen["version"] == seen["metadata"] == version
    assert sorted(p.name for p in Path(seen["models"]).iterdir()) == SHIPPED

    cli = [str(venv / "bin" / "callbreak-lab")]
    assert _run([*cli, "--version"], work, env).strip() == f"callbreak-lab {version}"
    assert _run([str(python), "-m", "callbreak_lab", "--version"], work, env).strip() == (
        f"callbreak-lab {version}"
    )

    text = _run([*cli, "evaluate", "--rules", "online", HAND], work, env)
    assert "No broken requirements found." in _run([str(python), "-m", "pip", "check"], work, env)
    match = [*cli, "evaluate", "--rules", "online", HAND, "--totals", "0,3,0,0"]
    assert "wins the match" in _run([*match, "--deal-of-match", "5"], work, env)  # package data
    evaluated = json.loads(_run([*cli, "--json", "evaluate", "--rules", "online", HAND], work, env))
    here = recommend_call(HAND, 0, "online")
    assert evaluated == json.loads(json.dumps(here.to_dict()))
    assert f"suggested call: {here.call}" in text

    if kind != "wheel":
        # the solver's commands run the same modules as from the wheel (above): what differs
        # between the three installs is where the package and its data are found, checked above
        assert list(work.iterdir()) == []
        return
    solved = json.loads(_run([*cli, "--json", "solve", "--rules", "modern", DEAL], work, env))
    assert solved["tricks"] == [3, 1, 3, 2]
    argv = ["advise", "--rules", "online", SPOT_HAND, "--plays", SPOT_PLAYS, "--calls", "2,2,2,4"]
    advice = json.loads(_run([*cli, "--json", *argv], work, env))
    assert (advice["seat"], advice["best"], advice["exact"]) == (3, "AC", True)
    assert [c["card"] for c in advice["cards"]] == ["AC", "2S", "6S"]
    assert list(work.iterdir()) == []  # nothing written where the commands ran


@pytest.mark.slow
@pytest.mark.notebook
@pytest.mark.timeout(600)
def test_notebook_01_runs_on_the_installed_wheel(
    installed: Callable[[str], tuple[Path, Path]], tmp_path: Path
) -> None:
    """Notebook 01 (the page ``make app`` serves), copied out of the repository, runs top to
    bottom on a kernel of the wheel's environment."""
    venv, _ = installed("wheel")
    python = venv / "bin" / "python"
    notebook = tmp_path / "01_evaluate_a_hand.ipynb"
    shutil.copy2(REPO / "notebooks" / notebook.name, notebook)
    kernels = tmp_path / "jupyter" / "kernels" / "installed"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "the installed wheel",
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    script = (
        "import json, sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "nb.cells.append(nbformat.v4.new_code_cell("
        "'import callbreak_lab; print(callbreak_lab.__file__)'))\n"
        "NotebookClient(nb, timeout=120, kernel_name='installed',"
        " resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
        "errors = [o for c in nb.cells if c.cell_type == 'code' for o in c.outputs"
        " if o.output_type == 'error']\n"
        "print(json.dumps({'errors': errors, 'file': nb.cells[-1].outputs[0]['text']}))\n"
    )
    env = _env(
        JUPYTER_PATH=str(tmp_path / "jupyter"),
        JUPYTER_PLATFORM_DIRS="1",
        MPLBACKEND="Agg",
        NUMBA_CACHE_DIR=str(venv.parent / "numba"),
    )
    out = json.loads(_run([str(python), "-c", script, str(notebook), str(tmp_path)], tmp_path, env))
    assert out["errors"] == []
    assert Path(out["file"].strip()).is_relative_to(venv), out["file"]
