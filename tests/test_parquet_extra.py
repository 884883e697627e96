"""Without pyarrow, ``--format parquet`` is a one-line usage error naming the extra that installs it (issue 26).

Apart from tests/test_parquet.py, which skips when pyarrow is absent: this test runs either way, hiding pyarrow
when it is installed.
"""

from __future__ import annotations

import builtins
import importlib.util
import sys

from conftest import SAMPLE_DATA, run_cli as run


def test_without_pyarrow_parquet_is_a_one_line_error_naming_the_extra(tmp_path, monkeypatch):
    real_import, real_find_spec = builtins.__import__, importlib.util.find_spec

    def without_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", without_pyarrow)
    monkeypatch.setattr(importlib.util, "find_spec",  # what the run asks first: it leaves the import to the writer
                        lambda name, *args: None if name == "pyarrow" else real_find_spec(name, *args))
    for command in (("annotate", "--system", "arc-eager"), ("oracle",)):
        result = run(command[0], SAMPLE_DATA / "en_sample.conllu", *command[1:], "--format", "parquet",
                     "-o", tmp_path / "x.parquet")
        assert result.returncode == 2 and result.stdout == b""
        assert result.stderr.count(b"\n") == 1 and b"pip install 'treetool[parquet]'" in result.stderr
    assert list(tmp_path.iterdir()) == []
