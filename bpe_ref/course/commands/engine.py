"""``--engine local|dask``: where ``train`` counts and ``encode-corpus`` encodes. ``dask`` runs step 10's
map on a local cluster (``--workers K``) or a running one (``--scheduler tcp://host:8786``, whose
workers must see the corpus at the same paths).
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from distributed import Client

ENGINES = ("local", "dask")


def add_engine_arguments(parser: argparse.ArgumentParser, local_help: str) -> None:
    parser.add_argument("--engine", choices=ENGINES, default="local",
                        help=f"local: {local_help}; dask: a Dask cluster, local (--workers) or at --scheduler (default: local)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="with --engine dask: a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a "
                             "local cluster for this command)")


def check_engine_arguments(args: argparse.Namespace) -> None:
    """Options that do not go together, refused before any work."""
    if args.scheduler is not None and args.engine != "dask":
        raise ValueError("--scheduler is for --engine dask (pass both)")
    if args.engine == "dask" and importlib.util.find_spec("distributed") is None:
        raise ValueError("--engine dask needs the dask and distributed packages: pip install -e \".[dev]\"")


@contextmanager
def dask_client(scheduler: str | None, num_workers: int | None) -> Iterator[Client]:
    """:func:`bpe_ref.distributed.connect`, saying on standard error which cluster it uses and
    where its dashboard is (an unreachable scheduler: ``ConnectionError`` naming the address)."""
    from ...distributed import connect

    if scheduler is None:
        print(f"starting a local Dask cluster ({'one worker per core' if num_workers is None else num_workers} "
              f"worker{'' if num_workers == 1 else 's'})...", file=sys.stderr)
    # A scheduler lost mid-run is said in one line (bpe_ref.distributed.ClusterLost); Dask's client
    # would log a traceback of its attempts to reconnect as well, from its own thread, even after
    # the block has ended: so its errors stay silenced for the rest of the command (set after the
    # import, where Dask sets its loggers' levels from its config).
    import distributed  # noqa: F401

    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    with connect(scheduler, num_workers) as client:
        workers = client.nthreads()
        where = "local cluster" if scheduler is None else f"scheduler {scheduler}"
        print(f"Dask {where}: {len(workers)} worker{'' if len(workers) == 1 else 's'}, "
              f"{sum(workers.values())} threads", file=sys.stderr)
        dashboard = client.dashboard_link
        if importlib.util.find_spec("bokeh") is None and scheduler is None:
            dashboard += " (it shows plots once the bokeh package is installed: pip install bokeh)"
        print(f"Dask dashboard: {dashboard}", file=sys.stderr)
        yield client
