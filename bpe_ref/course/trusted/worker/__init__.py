"""The untrusted side of grading, one concern a module, each auditable on its own (standard library only).

- :mod:`.wire`: the tagged JSON values cross in, both ways; the trusted side imports it from here.
- :mod:`.confinement`: what the worker applies to itself: Landlock, a seccomp filter, rlimits.
- :mod:`.keeper`: the worker's parent, which counts and kills its processes and answers the calls
  the filter refused (and the connects it makes for it).
- ``__main__.py``: the worker loop, the script :mod:`..sandbox` starts as ``python -I -S``; its
  siblings are imported there as top-level modules of this folder, never the course's package.
"""

from .wire import Foreign, decode, encode

__all__ = ["Foreign", "decode", "encode"]
