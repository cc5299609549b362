"""The code as ruff reads it with pyproject.toml's [tool.ruff]: every parameter and return annotated (ANN), and
nothing Pyflakes finds (F): no unused import or variable, no undefined name, no redefinition."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing() -> None:
    ruff = Path(sys.executable).with_name("ruff")
    result = subprocess.run([str(ruff), "check", "--config", str(ROOT / "pyproject.toml"), "--no-cache", str(ROOT)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
