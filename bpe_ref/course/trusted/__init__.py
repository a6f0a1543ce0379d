"""Trusted grading: the score comes from a process the submission cannot reach.

- :mod:`.worker`: the untrusted side, a folder of standard-library modules, each read on its own:
  ``worker/__main__.py``, the worker loop, a fresh ``python -I -S`` process that runs the submission's
  cells and answers calls of the learner's functions, in JSON (:mod:`.worker.wire`, the one format
  both sides import), after it confines itself (:mod:`.worker.confinement`) below its keeper
  (:mod:`.worker.keeper`).
- :mod:`.sandbox`: the trusted side's handle on a worker (deadlines, restarts, a function proxy).
- :mod:`.autograde`: the nbgrader preprocessor that replaces ``Execute`` in ``nbgrader autograde``
  (and so in ``python -m bpe_ref grade``): graders run here, with the reference, and decide.
- :mod:`.cells`: which grader each test cell runs, recorded from the source notebooks.
- :mod:`.review`: flags for an instructor's review (what the worker did, restored tampering,
  and, as a hint, capabilities no lab needs that its text uses).
- :mod:`.stand_ins`: the reference's helpers, sent as source, bound in place of the learner's
  earlier functions while a later task is graded, so that one bug costs one task's points.
- :mod:`.verdicts`: what the graders share with this side (the verdict exceptions, the hidden seed).
  Nothing here imports the graders' code (:mod:`bpe_ref.course.checks`): :mod:`.autograde` finds a
  lab's graders by name when it grades.

Threat model
------------
The adversary writes any code in a submitted notebook, knows the course's source and the machine's
layout, and wants points its functions do not earn, or to change another submission's grade.

Defended, on Linux with Landlock (kernel 5.13+; ABI 4+ for TCP, 6+ for signals) and seccomp:

- *Hooks and patches in the notebook* (IPython events, input transformers, custom exception
  handlers, ``sys.excepthook``, patched ``runpy``, import machinery, exception classes, hypothesis):
  no test cell runs in the learner's process; the graders, hypothesis and the comparisons run in
  the trusted process, which executes none of the learner's code. Its verdict is written into the
  test cell's outputs; nbgrader's scoring reads only those.
- *Using the reference anyway* (importing it, its graders' private copy, reading its source from
  disk, a subprocess that runs it): the worker starts without site-packages and can read only the
  standard library, the allowed packages (``regex``) and its scratch folder; it cannot start
  processes (unless a lab allows them) or open network sockets.
- *Reaching a program outside through a unix socket* (a session bus, a database, another grader's
  listener, a system log): Landlock (up to ABI 7) does not stop ``connect`` to a unix socket file,
  nor a datagram sent to one by its path. Where a lab allows no processes, ``socket()`` is refused
  whole; ``socketpair()`` makes stream ends only (connected to each other, they can send nowhere
  else). Where it allows processes (lab 03), ``socket()`` makes unix *stream* sockets only and each
  ``connect`` goes to the keeper, which makes it itself: it reads the address once, opens the socket
  file beneath the scratch folder only (``openat2`` with ``RESOLVE_BENEATH``: no ``..``, no link out),
  takes the caller's socket (``pidfd_getfd``) and connects it to the file it opened, so no address
  is read again after the check; anything else (a path outside, a link out, an abstract name) is
  refused and counted. multiprocessing's forkserver listens in the scratch folder, and connects
  there (the listener sees the keeper as its peer's process). Without the keeper (no user
  notification, or Linux before 5.6) such connects are not stopped, and the isolation line says so.
- *Writing to the gradebook, the package, the course or another submission*: the worker can write
  only in its scratch folder, deleted after grading. Graders are imported once, in the trusted
  process, before any submission runs. The trusted side never opens a file by path in that folder:
  grader inputs (file arguments) are written, ``O_EXCL | O_NOFOLLOW``, to a folder of its own that
  the worker may only read, and the worker's stderr comes through a pipe (a link in the scratch
  folder once made the grader overwrite a file, and show another in a learner's feedback).
- *Faking results*: only JSON comes back, rebuilt into exact builtin types; an object whose
  ``__eq__`` always says yes cannot cross. Inputs are generated, and their count kept, on the
  trusted side: a property check that compared fewer than its minimum of inputs fails. The
  arguments after a call ("inputs left unchanged") are the worker's report, written beside the
  learner's code in one interpreter: the notebook's namespace is ``__main__`` (as in a Jupyter
  kernel, so ``import __main__`` reaches none of the worker loop), and what writes a reply (json's
  C encoder, the wire format's builtins) is bound when the loop is loaded, before any of the
  learner's code, so rebinding ``json.dumps``, a json class's method or ``builtins.dict`` changes
  nothing of it; a reply without the arguments asked for fails (``tests/test_grading_redteam.py``,
  section 19). Each request's id is drawn at random on the trusted side, so a line the learner's code
  writes on the reply pipe is never taken for the reply (section 21). A rewrite through the loop's own
  frames or globals could still forge the report: the text that reaches them, and any rebinding of
  what a module holds, is flagged for review. Not closed: code that replaces the loop's pipes under it
  (``os.dup2`` onto their fds) relays the requests and rewrites every reply, with no text flagged
  (section 21's strict xfail; closing it takes the seccomp filter refusing dup2, dup3, close and
  close_range on those fds).
- *Killing, tracing or signalling the grader*: Landlock scopes signals and ptrace to the sandbox.
- *Hanging or exhausting the machine*: a deadline per cell and per call (the worker is killed and a
  fresh worker replays the cells that ran), a budget per notebook, and rlimits on memory, CPU time
  and file size. On Linux the worker is the child of a *keeper* (:func:`.worker.keeper.keep`), a child
  subreaper that runs none of the learner's code: every process the worker starts stays below it,
  even one that calls ``setsid``, is counted (more than ``Policy.max_processes`` at once kills the
  lot) and is killed when the worker ends; what they left in /dev/shm is removed and flagged, whatever its name, unless
  a live process maps it or holds it open (a concurrent pool's semaphore, found by inode; a pool's semaphore
  left by the killed worker is removed without a flag). The trusted side does
  not rely on the keeper for its own waits: a request is written, and its reply awaited, under one
  deadline (a worker that stops reading, or writes lines that are not the reply, cannot stretch it).
  Nor for the end of the worker's processes: while it holds a sandbox, the grading process is a child
  subreaper too, so the orphans of a keeper that died come to it, not to init, and closing the sandbox
  kills and reaps them, found as its children more confined than itself (the worker's
  no-new-privileges flag and seccomp filter, which every process of the worker's keeps for ever and
  no other child of the grading process has; read from ``/proc/PID/status``, which an undumpable
  process cannot hide). Only its children are signalled (their pids cannot be reused before it reaps
  them), round after round as their own children come to it, for 5 s at most. Closing then waits
  5 s at most for the ends of the worker's pipes, and kills every process still holding one (found by
  the pipes' inodes in ``/proc/*/fd``). The review lists what either killed (the subreaper counts
  those that had left the worker's session; the group kill took the others), with the lost report.
- *Costing the grader*: a reply is read with a size limit; decoding refuses nesting deeper than the
  worker sends and dicts or sets whose keys share one hash (a hash flood of integers
  ``k * (2**61 - 1)`` kept the grader busy for minutes), before building them. The scratch folder is
  walked (twice a second for its size, and at closing for links and special files) through 2 000
  files and folders and 32 levels at most (``Policy.scratch_entries``), links never followed: past
  either the worker is stopped and flagged ("made more than 2000 files and folders in its folder"),
  so a million empty files or a tree thousands deep cost the learner, not the grader. Removing the
  folder still costs what the worker made before the watcher's next look (on a disk where ``rmdir``
  is slow, thousands of folders take seconds).
- *Keeping a stand-in*: while a task is graded, the reference's versions of the earlier tasks'
  functions stand in for the learner's (sent as their source, never the function being graded nor
  a trainer, nor the function of any test cell still to be graded). A learner who catches one has
  a helper that was graded before it could be caught: test cells are graded in the *source's*
  order whatever the submission's (moving a test cell down grades it earlier, where the first
  later test cell stands).
- *Computing the hidden inputs*: hypothesis draws them from the course's secret seed (kept in
  ``trusted_grades/hidden_seed`` next to the gradebook, so a regrade draws the same; a fresh one per
  ``python -m bpe_ref grade``), not from the fixed sequence the public graders show, and from the seed
  alone (not the constants hypothesis would read from the modules loaded so far).
- *Reaching a class's kept inputs*: in ``nbgrader autograde`` every notebook of a class draws the same
  inputs, so each property test's are drawn once, with the reference's answers, by a run of
  hypothesis with no learner's code in it, and kept in the grading process's memory only (never on
  disk, nowhere a worker can read or change); each notebook's calls replay them in order. A notebook
  that fails one runs hypothesis again to shrink its failure: that run draws the same inputs, skips
  those the replay passed and takes the replay's failure at the failing one, so the learner's code
  gets the calls a fresh draw makes, and verdicts and messages are the same
  (``tests/test_grading_class_inputs.py``). A notebook sees no difference but the grader's pace
  between its calls, and whatever it does with that is judged on the same inputs; nothing it does
  changes what is kept for the next. A self-grade draws as it goes.
- *Hard-coding the visible cases*: every task's hidden test uses inputs the notebook never shows
  (generated, or another corpus); visible tests are at most a third of a lab's points.

Not defended, and said so in every grading report (``grade`` prints the isolation in force):

- Without Landlock and seccomp (macOS, Windows, an old Linux kernel, a container that forbids
  them), the worker is only a separate process with time limits (and rlimits where POSIX has them):
  its code can read and write what the user running nbgrader can. Grade a class on Linux, or in a
  container or VM per batch. ``grade --class`` still compares the gradebook with the trusted record
  and flags every capability use, so a tampering submission is visible, but no longer prevented.
- A process that escaped a keeper that died, where the worker has no seccomp filter and no
  no-new-privileges flag (Landlock and seccomp both missing: see the first item), is found only by
  the worker's pipes it holds: one that closed them, or hides its fds from ``/proc`` (an undumpable
  process, when grading does not run as root), may run on, bounded by its rlimits; closing does not
  wait for it, leaves its pipes' streams to their reader threads, and the review says that a process
  was left running. So does it for processes still being forked when the subreaper's 5 s run out.
  The subreaper tells a learner's process from the grading process's other children by its
  confinement, not by its sandbox: closing one sandbox also kills what escaped another one held at
  the same time whose keeper died (the graders hold one at a time).
- A copy of someone else's working code, or code that computes the right answers in a roundabout
  way, earns the points: the grader judges answers, not authorship.
- Checks of *how* a function works are measured from outside the worker (the CPU time of its process
  as the input grows, processes started, bytes read, inputs left unchanged, from ``/proc`` and the
  replies) or forced by inputs on which the wrong method cannot answer right or within its budget.
  Bytes read (lab 03's "never the whole file") are the kernel's ``rchar`` of the worker and of every
  process under its keeper, live, a zombie nobody waited for, or reaped by the keeper (what a reaped
  process read is in its reaper's count: :func:`.measure_worker.tree_read_chars`; one that hides its count, an
  undumpable process to a grader that is not root, makes the count unknown, and the check fails); a file's pages
  mapped instead of read are counted by the keeper, which every ``mmap`` of a file goes by (executable
  or not; it counts the bytes mapped of a grader's input or of a file the worker can write, and lets
  the call go on: a thread that swaps the fd between the keeper's look and the kernel's map is counted
  for the file it held at the look; before Linux 5.5, where opens are not watched, mmaps are not
  counted either); ``splice``/``tee``/``vmsplice``, whose bytes the kernel does not count as read,
  are refused (``tests/test_grading_redteam.py``, section 6).
  The calls of the learner's helpers (task 3 of labs 04 and 05) are counted in the learner's kernel
  only, as the visible test's advice (``checks.running.advice``): graded, nothing is watched, and no
  point rests on a count. Both tests measure the method by its CPU time (V4's visits, V5's heap, and
  lab 05's pushes against the reference's run), so a scan per merge whose calls are made for show,
  or whose count the worker forges, loses the visible point and the hidden ones (a worker gone when a measured call
  returns, whose CPU time so cannot be read, fails the check; its CPU stop is looked at ten times a second, whatever
  the worker writes meanwhile)
  (``tests/test_grading_adversarial.py``, ``METHOD_FOR_SHOW``; ``tests/test_mistakes.py``). What only
  the count saw is no slower method, and costs no points: lab 04's index built in ``train`` without
  ``index_words``, or built a few times; lab 05's pop written in ``train`` instead of a call of
  ``pop_best``. Lab 07's short pretokens, where the heap and step 06's rounds cost the same,
  are decided by inputs: merges reordered by hand, on which the rounds give other tokens than the
  heap (a threshold below which another one-merge-at-a-time loop runs, tiktoken's rescan, gives the
  heap's tokens at the heap's cost on them, and is not told apart). A measurement
  sees the learner's whole process, so code that recognises the measured input and answers it by
  another method than it uses elsewhere is not caught while its answer is right (the merges of
  measured runs are compared with the reference's; those of labs 02, 05, 07 and 08 are drawn from the
  secret seed). A refused system call is counted for the review (below), never for the score.
  Lab 09's ``interleaved`` and ``peak_memory`` take functions, so
  their graders send a *driver* (the reference's code, as source, like a stand-in) that builds a
  fake clock and contenders in the worker, calls the learner's function with them, and reports
  the order of the calls and the collector's state as the contenders saw them. The driver shares the
  worker's interpreter with the learner's function, which can read and rewrite its objects through the
  closures it is handed (a collector left on, with the driver's log rewritten afterwards; a size read
  from the closure of the function to measure), so neither task's points rest on that report alone
  (``tests/test_grading_redteam.py``, section 14). Task 1 is also measured: contenders that keep many
  new objects alive, and a collector callback of the driver's that makes each collection costly, so
  that the worker's CPU time for the call, bounded by the reference's, shows a collector left on
  (some 10 to 40 times the paused cost). Task 6 also gets a function that draws its size when it is
  called and seals it with a public key whose private half stays on the trusted side, so that only a
  measurement of the call finds it. What would disarm these in the worker's interpreter (the
  driver's callback removed, ``os.urandom`` replaced before the call, the function's frame traced)
  and the text that reaches into a closure or a caller's frame are flagged for review
  (``review.INTROSPECTION``, ``review.ATTRIBUTES``), a hint only.
- Review flags from behaviour are what can be seen from outside: the system calls the sandbox
  refused and the files it refused to open, by name and count; processes that left the session,
  files left in /dev/shm, links or special files made in the scratch folder; tampering nbgrader
  restored (a test or read-only cell deleted, edited, or its nbgrader metadata changed: points raised
  on a test cell are put back from the gradebook, and flagged). The seccomp filter sends each call
  it refuses (io_uring, whose queued operations no filter sees; splice and its kin, whose bytes are
  not counted as read; a socket, and a datagram ``socketpair``, as above; a new process or program where the lab
  allows none, a seccomp filter of the worker's own, which could
  otherwise answer refused calls before the keeper sees them, any call of another architecture's
  table) to the keeper by seccomp user notification; the keeper counts it and answers with the
  filter's error, never lets it run. It also sends every ``open``/``openat``/``openat2``/``creat``:
  the keeper reads the path from the caller's memory (``/proc/PID/mem``), resolves it, counts it
  ("read PATH", "write PATH") if it lies outside what the worker gave Landlock, and lets the call go
  on, so Landlock still decides (a path swapped by another thread after the read changes the count,
  never what is allowed; the harmless probes of the interpreter, its loader and the C library are
  not counted: ``pyvenv.cfg``, ``libpython``, the caller's own ``/proc/PID`` once the path is
  resolved (``/proc/self`` is the caller's however it is spelled or reached; the links of another process's
  ``/proc`` entries are not followed with the keeper's rights), the CPU count and the overcommit policy
  under ``/sys`` and ``/proc``, the locale aliases). The worker hands the notification fd
  over and closes its copy before any of the learner's code runs, and Landlock keeps it from taking
  the keeper's (``pidfd_getfd`` needs ptrace). A report names at most 16 calls and 16 files (the rest
  counted together); every call is answered, one round trip each (about 0.1 ms for a refused call;
  0.2 to 1 ms for an open, on a loaded machine: lab 03's grading, whose spawned interpreters open
  some 3 500 files, spends 0.8 to 3.6 s in the keeper), within the notebook's time budget; if the
  keeper dies the kernel refuses every notified call (ENOSYS), opens included. Where
  the kernel has no user notification, the filter refuses the same calls itself and nothing is
  counted; before Linux 5.5 (no "continue") opens are not watched: the isolation line says which.
  The keeper's report is bounded (16 names of files it removed from /dev/shm, the rest counted); a
  report that does not come within 10 s or cannot be read is a flag of its own, never a clean
  record. *Not* counted: other file operations Landlock refuses (``unlink``, ``rename``, ``mkdir``, ``execve``...
  outside the scratch folder), and a signal or ptrace Landlock scoped. The count of refused opens is
  the keeper's model of the rules it gave Landlock, less the probes above; it is not exact against
  code that races it: the keeper reads the path, the call goes on, and the kernel reads it again,
  so a thread that rewrites the path (or swaps a link on it) in between is counted for what it held
  when the keeper read it (Landlock still decides what is opened). Exact whatever the
  code does would take the kernel's answer, which a notification never sees (Landlock's own denial
  log, ABI 7, is the audit subsystem's, closed to an unprivileged grader). The text of the learner's
  cells is still read for capabilities no lab needs, a hint where behaviour cannot be seen (an
  import of the reference just fails, without an open; a hook or a patch is no system call, nor is
  rebinding what a module holds, ``json.dumps = ...``), never a finding; a docstring is not read.
  With Landlock ABI < 6 the worker could signal its keeper.
- The worker can read the system's shared libraries (``/usr/lib``, which on Debian also holds the
  system Python's packages); nothing of the course is there. Disk use is capped per file
  (``RLIMIT_FSIZE``) and in total, in bytes and in entries, by a watcher of the scratch folder.
- The visible tests in the learner's own kernel are advice; a learner can fool them, and only
  fools themselves.
"""
