"""The worked example of the documentation (docs/systems.md, "A system of your own"): arc-standard restated as a user-defined system.

Load it with ``load_system("example_system:MyArcStandard")`` (or
``treetool oracle FILE --system example_system:MyArcStandard`` with this folder
on PYTHONPATH). It brings no static oracle, so treetool finds gold sequences by
the generic search; tests/test_oracles_system.py checks that it derives exactly
the trees the built-in arc-standard derives.
"""

from treetool.oracles import Configuration, IllegalAction, TransitionSystem, parse_action


class MyArcStandard(TransitionSystem):
    name = "my-arc-standard"
    monotonic = True  # an arc, once built, is never changed
    detached_words_final = True  # words off the stack and buffer are never touched again

    def initial(self, n, labeled=False):
        return Configuration((0,), tuple(range(1, n + 1)), (-1,) * (n + 1), (None,) * (n + 1) if labeled else None)

    def legal(self, c):
        out = ["SH"] if c.buffer else []
        if len(c.stack) >= 2:
            out += ["LA", "RA"] if c.stack[-2] != 0 else ["RA"]
        return out

    def apply(self, c, action):
        kind, degree, label = parse_action(action)
        if degree != 1 or kind not in self.legal(c):
            raise IllegalAction(action, "not legal here")
        if kind == "SH":
            return Configuration(c.stack + c.buffer[:1], c.buffer[1:], c.heads, c.labels)
        head, dep = (c.stack[-1], c.stack[-2]) if kind == "LA" else (c.stack[-2], c.stack[-1])
        heads = c.heads[:dep] + (head,) + c.heads[dep + 1 :]
        labels = c.labels and c.labels[:dep] + (label,) + c.labels[dep + 1 :]
        stack = c.stack[:-2] + (head,)
        return Configuration(stack, c.buffer, heads, labels)

    def is_final(self, c):
        return len(c.stack) == 1 and not c.buffer


class IgnoresLabels(MyArcStandard):
    """Makes unlabelled configurations even when asked for labelled ones: ``--labeled`` refuses it."""

    def initial(self, n, labeled=False):
        return super().initial(n)


class DuckTypedArcStandard:
    """The same system without subclassing TransitionSystem: load_system wraps it."""

    def __init__(self):
        self._impl = MyArcStandard()

    def initial(self, n, labeled=False):
        return self._impl.initial(n, labeled)

    def legal(self, c):
        return self._impl.legal(c)

    def apply(self, c, action):
        return self._impl.apply(c, action)

    def is_final(self, c):
        return self._impl.is_final(c)


class NotASystem:
    """Lacks ``apply`` and ``is_final``: load_system refuses it."""

    def initial(self, n, labeled=False):
        return None

    def legal(self, c):
        return []


class Incomplete(TransitionSystem):
    """Forgets ``is_final``: load_system refuses it."""

    def initial(self, n, labeled=False):
        return None

    def legal(self, c):
        return []

    def apply(self, c, action):
        return c
