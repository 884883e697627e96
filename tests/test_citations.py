"""References in tracked sources and documents resolve inside the repository (issue 24).

Papers are cited by author, year and section ("Nederhof 2019, §6"), never by
the file names of their text conversions, which exist only outside the
repository; and every ``tests/``, ``benchmarks/`` or ``examples/`` script a
docstring or page points to must exist.
"""

import re
import shutil
import unicodedata
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


# An author-year citation: "Nederhof 2019", "Goldberg & Nivre 2012", "Cohen et al. 2012", "Honnibal, Goldberg &
# Johnson 2013", "(Fredman, 1975)"; the first author's surname and the year name the paper.
SURNAME = r"[A-ZÁÉÍÓÚÑÄÖÜ][\w\-]*"
CITATION = re.compile(rf"\b({SURNAME})(?:'s)?(?:(?:,\s+{SURNAME})*\s+(?:&|and)\s+{SURNAME}|\s+et al\.)?,?\s+\(?"
                      r"((?:19|20)\d\d)\b")
REFERENCE_ENTRY = re.compile(rf"^- \*\*({SURNAME}).*? ((?:19|20)\d\d)\.\*\*(.*?)(?=^- |^#|\Z)", re.M | re.S)
LINK = re.compile(r"https://(?:aclanthology\.org|doi\.org|arxiv\.org)/\S+")
#: Capitalised words a year follows that are not authors (venues, and a sentence's first word).
NOT_AUTHORS = {"CoNLL", "Annotate", "Projective"}


def _key(surname: str, year: str) -> tuple[str, str]:
    ascii_name = unicodedata.normalize("NFKD", surname).encode("ascii", "ignore").decode()
    return ascii_name.lower(), year


def _references() -> list[tuple[tuple[str, str], str]]:
    """(first author, year) and the text of each entry of the References page (two may share a key)."""
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    return [(_key(m.group(1), m.group(2)), m.group(3)) for m in REFERENCE_ENTRY.finditer(text)]


def test_every_reference_links_its_paper_by_doi_acl_anthology_or_arxiv() -> None:
    references = _references()
    assert len(references) >= 20 and _key("Nederhof", "2019") in dict(references)
    assert [key for key, entry in references if not LINK.search(entry)] == []


def test_the_citation_pattern_reads_each_form() -> None:
    text = ("(Nederhof 2019, §6); Goldberg & Nivre 2012; Cohen et al. 2012; Honnibal, Goldberg &\n"
            "Johnson 2013; Attardi's 2006 system; (Fredman, 1975); Fernández-González & Gómez-Rodríguez (2018)")
    assert [_key(*m.groups()) for m in CITATION.finditer(text)] == [
        ("nederhof", "2019"), ("goldberg", "2012"), ("cohen", "2012"), ("honnibal", "2013"), ("attardi", "2006"),
        ("fredman", "1975"), ("fernandez-gonzalez", "2018")]


def test_every_paper_the_code_and_pages_cite_is_on_the_references_page() -> None:
    references = dict(_references())
    skipped = {"references.md", "RESULTS.md", "CHANGELOG.md"}
    cited = {(path.relative_to(ROOT).as_posix(), _key(*m.groups()))
             for path in tracked_files() if path.suffix in (".py", ".md") and path.name not in skipped
             and not path.relative_to(ROOT).as_posix().startswith("tests/") and path.exists()
             for m in CITATION.finditer(path.read_text(encoding="utf-8")) if m.group(1) not in NOT_AUTHORS}
    assert len(cited) > 50
    assert sorted((path, key) for path, key in cited if key not in references) == []
