"""The spawner of ``python -m bpe_ref classroom``: one machine, one unix account, a home per user.

JupyterHub's ``SimpleLocalProcessSpawner`` starts every user's server as the account the hub runs
as (root in a container), with ``HOME`` set to a folder of its own and no unix user created. That
is what a workshop on one machine needs, and it isolates nobody: every user's code can read every
other user's files, the instructor's gradebook included. The guide says so, and says what to use
for a class that must be isolated (solutions/README.md, "A class on a JupyterHub").

This subclass adds one thing: the instructor's server starts in the course folder (the folder of
``nbgrader_config.py``), because nbgrader's formgrader takes the course from the folder its server
starts in; students start in their home folder, where ``fetch`` puts the labs.

JupyterHub imports this module from the generated ``jupyterhub_config.py``; nothing else does.
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
