"""Treebank file formats: CoNLL-U/CoNLL-X (:mod:`.conll`), Penn Treebank brackets
(:mod:`.ptb`), and opening, decompressing and safely writing files (:mod:`.files`)."""
