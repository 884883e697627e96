"""References in tracked sources and documents resolve inside the repository (issue 24).

Papers are cited by author, year and section ("Nederhof 2019, §6"), never by
the file names of their text conversions, which exist only outside the
repository; and every ``tests/``, ``benchmarks/`` or ``examples/`` script a
docstring or page points to must exist.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".py", ".md", ".toml", ".yml", ".yaml")
#: Written in two pieces so that this file does not match itself.
PAPER_FILE = re.compile("papers" + r"/0")
SCRIPT_PATH = re.compile(r"\b(?:tests|benchmarks|examples)/[A-Za-z0-9_/]+\.py\b")


def tracked_files() -> list[Path]:
    """The files git tracks with one of SUFFIXES (a checkout without git cannot tell tracked from generated)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in listed.decode().split("\0") if name.endswith(SUFFIXES)]


def broken_references(text: str, root: Path) -> list[str]:
    """Every mention in ``text`` of a paper file, or of a script path missing under ``root``."""
    problems = [f"paper file {match.group()!r}..." for match in PAPER_FILE.finditer(text)]
    problems += [f"missing {match.group()}" for match in SCRIPT_PATH.finditer(text) if not (root / match.group()).exists()]
    return problems


def test_the_checker_flags_paper_files_and_missing_scripts(tmp_path: Path) -> None:
    # The paths are joined at run time so that this file's own text cites none of them.
    here, gone, none = ("/".join(parts) for parts in (("tests", "test_here.py"), ("tests", "test_gone.py"),
                                                      ("examples", "none.py")))
    paper = "/".join(("papers", "003"))
    (tmp_path / "tests").mkdir()
    (tmp_path / here).write_text("")
    text = f"see {paper} §6, {here} and {gone}; {none}"
    assert broken_references(text, tmp_path) == [f"paper file {paper[:8]!r}...", f"missing {gone}", f"missing {none}"]
    assert broken_references(f"Nederhof 2019, §6; {here}", tmp_path) == []


def test_no_tracked_file_cites_a_paper_file_or_a_missing_script() -> None:
    files = tracked_files()
    assert any(path.name == "README.md" for path in files)  # the listing is not empty by accident
    problems = [f"{path.relative_to(ROOT)}: {problem}"
                for path in files if path.exists()
                for problem in broken_references(path.read_text(encoding="utf-8", errors="replace"), ROOT)]
    assert problems == []
