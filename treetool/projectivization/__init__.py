"""Projectivization: optimal (Nederhof 2019, :mod:`.optimal`), pseudo-projective
with its inverse (Nivre & Nilsson 2005 as MaltParser, :mod:`.pseudo`), and the
per-sentence driver the ``projectivize`` command and library users call (:mod:`.driver`)."""
