"""The layering rule, checked by import-linter on every test run, and the rooms a newcomer reads.

compliance/ (workspaces, access, files) is the bottom layer, law/ (the legal corpus) sits on it, chunks/
(ingestion) on that, agent/ (answering) on top. Domain and API modules never import upwards; only wiring
and entry points may, and each is named with its reason in pyproject.toml's contract. Inside agent/,
answering uses memory, and both use the retrieval engine and monitoring, never the other way round.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENT_PACKAGES = ("retrieval", "answering", "memory", "monitoring", "evaluation")


def test_no_domain_module_imports_a_higher_layer() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout
    assert "Agent packages: answering > memory > retrieval | monitoring KEPT" in result.stdout


def test_no_api_module_imports_a_higher_layer_even_as_an_exception() -> None:
    contract = (ROOT / "pyproject.toml").read_text()
    assert "compliance.api" not in contract.split("[[tool.importlinter.contracts]]", 1)[1]


def test_agent_is_a_few_modules_and_packages_by_capability_each_saying_what_it_owns() -> None:
    modules = [p.name for p in (ROOT / "agent").glob("*.py")]
    assert len(modules) <= 12, modules
    for package in AGENT_PACKAGES:
        init = ROOT / "agent" / package / "__init__.py"
        docstring = ast.get_docstring(ast.parse(init.read_text()))
        assert docstring and len(docstring) > 80, f"agent/{package}/__init__.py says what it owns"
    assert ast.get_docstring(ast.parse((ROOT / "law" / "__init__.py").read_text()))
