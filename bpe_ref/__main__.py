import sys

from .course.cli import main

sys.exit(main())
