"""The layering rule, checked by import-linter on every test run.

compliance/ (workspaces, access, documents) is the bottom layer, chunks/
(ingestion) sits on it, agent/ (answering) on top. Domain modules never import
upwards (that is how the three apps used to import each other in a circle);
only wiring and entry points may, and each is named in pyproject.toml's
contract.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_domain_module_imports_a_higher_layer():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout
