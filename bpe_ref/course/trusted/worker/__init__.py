"""The untrusted side of grading, one concern a module (standard library only): :mod:`.wire` (the
values, both ways), :mod:`.confinement` (Landlock, seccomp, rlimits), :mod:`.keeper` (the worker's
parent) and ``__main__.py``, the worker loop :mod:`..sandbox` starts as ``python -I -S``, which
imports its siblings as top-level modules of this folder, never the course's package.
"""

from .wire import Foreign, decode, encode

__all__ = ["Foreign", "decode", "encode"]
