"""treetool: prepare treebanks for transition-based parsing.

The core package: sentence and tree types, streaming readers and writers,
errors, and tree algorithms (projectivity, gap degree, projectivization).
"""

__version__ = "0.1.0"
