"""An MkDocs hook: drop the Sphinx role prefixes (``:class:``, ``:meth:``...) the docstrings use.

The docstrings are written for reading in the source and in ``help()``, where ``:class:`Children``` is a common
convention; mkdocstrings renders the backquoted name as code and leaves the role before it as text.  This hook
removes that prefix from the rendered pages, so the reference reads ``Children``, not ``:class:Children``.
"""

from __future__ import annotations

import re
from typing import Any

ROLE_BEFORE_CODE = re.compile(r":(?:class|meth|func|data|attr|mod|exc|obj):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    """MkDocs hook: remove each role prefix written just before an inline code element."""
    return ROLE_BEFORE_CODE.sub("", html)
