"""The spawner of ``python -m bpe_ref classroom``: one machine, one unix account, a home per user.

JupyterHub's ``SimpleLocalProcessSpawner`` runs every server as the hub's account with a ``HOME`` of
its own: a workshop's setup that isolates nobody (every user can read the instructor's gradebook;
solutions/README.md says what to use for a class). This subclass starts the instructor's server in
the course folder, where the formgrader finds the course; students start in their home, where
``fetch`` puts the labs. Imported by the generated ``jupyterhub_config.py`` only.
"""

from __future__ import annotations

import os

from jupyterhub.spawner import SimpleLocalProcessSpawner
from traitlets import Unicode


class CourseSpawner(SimpleLocalProcessSpawner):
    """``SimpleLocalProcessSpawner`` whose instructor starts in the course folder."""

    instructor = Unicode("instructor", config=True, help="The user whose server starts in the course folder.")
    course_dir = Unicode("", config=True, help="The course folder (holds nbgrader_config.py).")

    def _start_dir(self) -> str:
        if self.user.name == self.instructor and self.course_dir:
            return self.course_dir
        return self.home_dir

    def get_args(self) -> list[str]:
        # The server's root folder is where it starts: the formgrader needs the course folder
        # inside the root, the assignment list puts fetched labs under it.
        return [*super().get_args(), f"--ServerApp.root_dir={self._start_dir()}"]

    def make_preexec_fn(self, name: str):
        home, start = self.home_dir, self._start_dir()

        def preexec() -> None:
            os.makedirs(home, 0o755, exist_ok=True)
            os.chdir(start)

        return preexec
