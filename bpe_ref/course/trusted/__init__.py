"""Trusted grading: the score comes from a process the submission cannot reach.

- :mod:`.worker`: the untrusted side, standard-library modules each read on its own: the worker
  loop (``worker/__main__.py``, a fresh ``python -I -S`` process that runs the submission's cells
  and answers calls of its functions), the wire format both sides import (:mod:`.worker.wire`),
  its confinement (:mod:`.worker.confinement`) and its keeper (:mod:`.worker.keeper`).
- :mod:`.sandbox`: the trusted side's handle on a worker (deadlines, restarts, a function proxy).
- :mod:`.autograde`: the nbgrader preprocessor that replaces ``Execute`` in ``nbgrader autograde``
  (and in ``python -m bpe_ref grade``): the graders run here, with the reference, and decide.
- :mod:`.cells`: which grader each test cell runs, recorded from the source notebooks.
- :mod:`.review`: flags for an instructor's review; :mod:`.measure_worker`: the kernel's counters.
- :mod:`.stand_ins`: the reference's helpers, sent as source, bound in place of the learner's
  earlier functions while a later task is graded, so that one bug costs one task's points.
- :mod:`.verdicts`: what the graders share with this side (the verdicts, the hidden seed).
  Nothing here imports the graders (:mod:`bpe_ref.course.checks`): :mod:`.autograde` finds a
  lab's graders by name when it grades.

Threat model
------------
The adversary writes any code in a submitted notebook, knows the course's source and the machine's
layout, and wants points its functions do not earn, or to change another submission's grade.

Defended, on Linux with Landlock (kernel 5.13+; ABI 4+ for TCP, 6+ for signals) and seccomp:

- *Hooks and patches in the notebook* (IPython events, input transformers, ``sys.excepthook``,
  patched ``runpy``, import machinery, exception classes, hypothesis): no test cell runs in the
  learner's process. Graders, hypothesis and comparisons run in the trusted process, which runs
  none of the learner's code, and write the verdict into the test cell's outputs, which are all
  that nbgrader's scoring reads.
- *Using the reference anyway* (importing it, reading its source, a subprocess that runs it): the
  worker starts without site-packages and can read only the standard library, the allowed packages
  (``regex``) and its scratch folder; it cannot start processes (unless a lab allows them) or open
  network sockets.
- *Reaching a program outside through a unix socket*: Landlock (up to ABI 7) stops neither a
  ``connect`` to a unix socket file nor a datagram sent to one by path. Where a lab allows no
  processes, ``socket()`` is refused whole, and ``socketpair()`` makes stream ends only (connected
  to each other, they reach nothing else). Where it does (lab 03), ``socket()`` makes unix stream
  sockets only and the keeper makes each ``connect`` itself: it reads the address once, opens the
  socket file beneath the scratch folder only (``openat2``, ``RESOLVE_BENEATH``: no ``..``, no link
  out), takes the caller's socket (``pidfd_getfd``) and connects it to the file it opened, so no
  address is read twice; anything else is refused and counted. multiprocessing's forkserver listens
  and connects in the scratch folder. Without the keeper (no user notification, Linux before 5.6)
  such connects are not stopped, and the isolation line says so.
- *Writing to the gradebook, the package, the course or another submission*: the worker writes
  only in its scratch folder, deleted after grading; graders are imported in the trusted process
  before any submission runs. The trusted side never opens a path in that folder: grader inputs are
  written ``O_EXCL | O_NOFOLLOW`` to a folder of its own that the worker may only read, and the
  worker's stderr comes through a pipe (a link in the scratch folder once made the grader overwrite
  a file, and show another in a learner's feedback).
- *Faking results*: only JSON comes back, rebuilt into exact builtin types, so an object whose
  ``__eq__`` always says yes cannot cross; each NaN is rebuilt as a float of its own, as the worker's code sees it
  (json's one shared NaN compared equal to itself inside tuples: lab 05's heap entries holding NaN sorted right here
  and in no order in the worker's heap; ``tests/test_grading_redteam.py``, section 26).
  Inputs are generated, and counted, on the trusted side: a
  property check that compared fewer than its minimum of inputs fails. The arguments after a call
  ("inputs left unchanged") are the worker's report, written beside the learner's code in one
  interpreter: the notebook's namespace is ``__main__`` (as in a kernel, so ``import __main__``
  reaches none of the worker loop), and what writes a reply (json's C encoder, the wire format's
  builtins) is bound before any learner code runs, so rebinding ``json.dumps``, a json class's method
  or ``builtins.dict`` changes nothing of it; a reply without the arguments asked for fails
  (``tests/test_grading_redteam.py``, section 19). Request ids are drawn at random on the trusted
  side, so a line the learner writes on the reply pipe is never taken for the reply (section 21).
  The loop's two fds sit at the top fd numbers, which the seccomp filter of every thread and process
  of the worker keeps: ``dup2``/``dup3`` onto them are refused and counted, ``close`` of them and
  ``close_range`` over them refused (a cell that put pipes of its own in their place relayed the
  requests and rewrote every reply). Being the learner's process's, they can still be read, written
  and reopened through ``/proc/self/fd``; so every reply is sealed, a keyed BLAKE2b of the request
  as the loop read it and of the reply, under a key sent before any learner's code runs, and a line
  not so sealed for the request sent is not a reply (a thread that answered the requests itself,
  or rewrote them, lost the call). The key (a hasher keyed with it) is held by a thread of the loop's own, in its locals only
  (``worker/__main__.py``, ``_serving``): it reads the requests, hands each to the main thread, which runs the cells
  and calls as a kernel does (signals, the collector, fork), and seals and writes the reply handed back. The frames
  below a cell, a signal handler's, a failed cell's traceback (in ``gc.garbage`` too) are the main thread's and hold
  no key (section 28: ``traceback``'s ``capture_locals``, a ``SIGALRM`` handler's frame and ``gc.DEBUG_SAVEALL`` each
  read it while the loop ran there, with no audit event). The sealing thread runs none of the learner's code: it
  calls no Python function and looks up nothing a cell can rebind, makes no object the collector tracks (a collection
  started there runs the learner's callbacks and finalizers on it, their frames' ``f_back`` its frame), drops none of
  the learner's objects, takes no signal and never raises (the filter refuses ``fcntl(F_SETFL)`` and
  ``ioctl(FIONBIO)`` on its pipes). An audit hook (``sys.addaudithook``) refuses what reaches its frames or the
  cells it shares with the main thread: ``sys._current_frames``, ``gc.get_objects`` and ``get_referrers`` (every
  frame is an object on Python 3.10), ``gc.get_referents`` of a frame (which holds its function), hooks run on
  every thread (``sys._setprofileallthreads``, ``sys._settraceallthreads``, ``sys.monitoring``), and every event
  raised on that thread; no lab uses them. What the learner's code puts in the two threads' queues, which the
  dispatcher's frame shows, wakes a thread for nothing; what it takes stalls the loop (section 28). What the notebook
  is handed (``get_ipython``, ``display``, the spies) is defined in a namespace of its own: defined in the loop's
  file, their ``__globals__`` were the loop's, and a cell rebound ``_sealed`` there to be handed the key, with no
  frame read (section 28). Still open: what builds a reply runs on the main thread, beside the learner's code, so
  the arguments after a call can be reported as they came without the key: the loop's and the wire format's
  globals, reached from a frame below a cell (``f_globals``) or a function's ``__globals__``, rebound (``encode``),
  or the dispatcher's cells rewritten by a trace function (``sys.settrace`` and a frame's ``f_trace``: a traced
  frame's locals are written back). Closing it needs the arguments encoded where no learner's code runs (the
  sealing thread, with no object the collector tracks made there: not ``wire.encode``). Native code too: ``ctypes``
  reads any memory of the worker (the keyed hasher's state) and can raise an exception in the sealing
  thread (``PyThreadState_SetAsyncExc``); a process a lab lets it fork keeps that state in its copy of memory
  (``/proc/self/mem`` is refused by Landlock). A collection that starts on the sealing thread through no allocation of
  its own (checked on CPython 3.11: none does; 3.12 runs a scheduled collection on whichever thread next checks the
  interpreter's eval breaker, not checked) would run the learner's code there; memory exhausted as it allocates does
  (section 34, a strict xfail): a cell lowered its data limit (``RLIMIT_DATA``) to just above the worker's use,
  emptied MemoryError's free list, set a collection at every allocation and wrote the loop a line of 1 MiB; making
  the sealing thread's MemoryError, once its ``except`` is entered, is an allocation the collector counts, so the
  cell's callback ran there, kept a frame whose ``f_back`` is the sealing frame and never returned (the worker is
  not ended), and a thread of the cell took the keyed hasher from that frame's locals and sealed every reply itself.
  Refusing the limit's lowering would narrow it, not close it (the sandbox's own limit of the address space, filled
  with mappings never touched, fails allocations too; one try, the line 100 MiB, stalled the worker instead: not
  shown): a frame that may fail to allocate cannot hold the key, so closing it means sealing outside the learner's
  process (the keeper, whose memory the learner's code cannot read). Until these close, a reply, the arguments after
  a call included, is the learner's process's word; the seal stops code that neither reads the loop's memory, nor
  rebinds what builds its replies, nor runs on the sealing thread. What a reply so forged can claim is bounded: its
  answers are computed by code in the worker, whose CPU time, processes and reads are measured from outside as any
  call's are, and compared with the reference's; so it earns what a notebook earns honestly that binds the graded
  name to a function working on a copy of its arguments. What it adds is the worker's own report beside the answer:
  the arguments after a call (a task's "leave it unchanged", and the in-place updates of lab 02, whose right values it
  must still compute) and lab 03's new dict where the call runs.
  Rebinding what a module holds and reaching a caller's frame are flagged for review.
- *Killing, tracing or signalling the grader*: Landlock scopes signals and ptrace to the sandbox.
- *Hanging or exhausting the machine*: a limit per cell and per call (the worker is killed and a
  fresh one replays the cells that ran), a budget per notebook, rlimits on memory, CPU time and file
  size. What the worker's loop and the reference's code there open at a path the learner's code chose (lab 03's driver
  the file of count_chunk's module, its ``__file__``, and the reference's module it writes for task 4 beside it; the
  loop a ``%%writefile`` cell's file and a traceback's source lines, at a code object's ``co_filename``) is opened
  ``O_NONBLOCK`` and taken only if a regular file (a module read of at most 1 MiB): a fifo or a pipe's
  ``/proc/self/fd`` there blocked the read until the request's backstop of wall time, 240 s a call at 0 CPU, call
  after call, and a cell so stopped lost its names (``tests/test_grading_redteam.py``, section 44). The learner's own
  code that waits (a sleep, a read of its fifo) still costs its notebook that backstop, once a request. The limit of a
  cell or call is CPU time, so that a busy machine fails no honest call (a wall-clock limit of
  30 s once failed lab 01's training at load 13 to 18 on 2 cores, some 5 s of CPU): the worker's and every process's
  under its keeper, live, a zombie or reaped (:func:`.measure_worker.tree_cpu_seconds`, from ``/proc``, ten times a
  second, from 0.1 s in: a call that ends before costs no look). A process whose parent ignores ``SIGCHLD`` (or set
  ``SA_NOCLDWAIT``, which ``/proc`` does not show) is reaped by the kernel alone, and its time reaches no parent's count
  (forks that each burned 50 ms and ended unwaited for ran 3 s through a call's limit of 1 s and a notebook's budget of
  1.5 s; ``tests/test_grading_redteam.py``, section 32). So where a lab allows processes (lab 03 only), the filter sends
  the keeper every ``rt_sigaction`` of ``SIGCHLD``, and the keeper reads the new action from the caller's memory and
  refuses ``SIG_IGN`` and ``SA_NOCLDWAIT`` (``EPERM``, counted for review; an action it cannot read too; a handler, as
  multiprocessing's forkserver sets, goes on), and the filter refuses a subreaper of the learner's own
  (``prctl(PR_SET_CHILD_SUBREAPER)``): every process is waited for by its parent or by the keeper (orphans come to it),
  or stays a zombie, its time in ``/proc``. The keeper, which the filter sends every ``exit_group`` too, also reads each
  ending process's own CPU time (all its threads') and adds it up, and the count is the larger of the two: the reaped
  children's way, or the live processes' own time and the ended ones'. The action is read once, as a path is for opens:
  a thread that rewrites it between the keeper's read and the kernel's has its children reaped alone after all; the
  ended processes' count still holds each that ends by ``exit_group``, and one that ends by a signal (a ``SIGKILL`` of
  its own, a fault) is then stopped only by the notebook's wall-clock backstop. Without user notification that goes on
  (Linux before 5.5) the keeper sees neither, and the filter refuses only the subreaper. A
  request that waits instead (a sleep, a lock, a pipe, a stopped process) is stopped by a backstop,
  ``Policy.wall_factor`` times its limit of the wall time in which none of those processes, nor the keeper, ran or
  waited for a CPU; the notebook's budget (``total_timeout``) is CPU time too, the trusted process's and every worker's (read
  before a request once a second, or at each when all CPUs could have spent it since the last reading), with a
  backstop of ``wall_factor`` times it in wall time. The worker is the child of a *keeper* (:func:`.worker.keeper.keep`),
  a child subreaper that runs none of the learner's code: every process the worker starts stays below it, ``setsid`` or
  not, is counted (more than ``Policy.max_processes`` at once kills the lot) and is killed when the
  worker ends. Where the kernel allows unprivileged user and mount namespaces, a lab with processes
  gets a /dev/shm of its own (a tmpfs of ``Policy.shm_mb``, no capabilities kept), which no other
  grading sees: all it holds at the end is removed and flagged (a pool's semaphore left by the
  killed worker unflagged). Elsewhere, in the machine's /dev/shm, Landlock lets them make no file
  (Linux 5.14+): the keeper makes each one (an open with O_CREAT, a link) from the path it read once
  and answers with the fd, so it knows every name made and its inode, whatever a thread swaps; at the
  end every new name of those inodes, or of a file they held when killed, is removed and flagged,
  never what another live process holds (``tests/test_grading_redteam.py``, section 13; before 5.14
  Landlock lets them make regular files there and the keeper takes the names it saw opened with
  O_CREAT: a name linked from a file that is gone, or a path swapped after the keeper's read, is left).
  No folders, symlinks, renames, pipes, sockets or devices there. The trusted side relies on the keeper for neither its waits
  nor the end of the worker's processes: a request is written, and its reply awaited, under one
  deadline (a worker that stops reading, or writes other lines, cannot stretch it); and while it
  holds a sandbox the grading process is a child subreaper too, so the orphans of a keeper that
  died come to it, and closing kills and reaps its children more confined than itself (the worker's
  no-new-privileges flag and seccomp filter, kept by every descendant for ever and by no other child
  of the grading process; read from ``/proc/PID/status``, which an undumpable process cannot hide),
  only children (their pids cannot be reused before they are reaped), round after round, 5 s at
  most. Closing then waits 5 s at most for the ends of the worker's pipes and kills every process
  still holding one (found by the pipes' inodes in ``/proc/*/fd``). The review lists what either
  killed, with the lost report.
- *Costing the grader*: a cell's IPython syntax is turned into Python here (IPython's ``TransformerManager``, which
  tokenizes the whole cell again for each ``%magic`` line: 1,000 of them cost 12 to 24 s of CPU, 160 KB of them minutes,
  in one call between requests) under the cell's limit of this process's CPU time, past which the cell goes as it is
  (section 35); a reply is read with a size limit (4 MiB), and what the grader writes into the notebook is capped here
  (20,000 characters a stream; an error's message 2,000, its traceback 30 lines): the worker's caps are the learner's
  process's globals, and a cell that rebound them made every cell's outputs 4 MiB, gigabytes in the grading process
  for a notebook of a thousand cells (section 39); decoding refuses nesting deeper than the
  worker sends and dicts or sets whose keys share one hash (integers ``k * (2**61 - 1)`` kept the
  grader busy for minutes) before building them. The scratch folder is walked (twice a second for
  its size, at closing for links and special files) through at most ``Policy.scratch_entries``
  entries and 32 levels, links never followed; past either the worker is stopped and flagged, so a
  million empty files or a tree thousands deep cost the learner, not the grader (removing the folder
  still costs what the worker made before the watcher's next look). The instructor's pages of a submission
  (nbgrader's feedback, the formgrader) highlight its code with Pygments' Python lexer, whatever its metadata names,
  and a cell past 20,000 characters not at all (:func:`bpe_ref.course.printable.code_html`): IPython's lexer, which
  the labs name, took time growing as the square of a line's length (16 KB of ``a.a.a...``, 5 s of CPU), and a
  submission of such cells held the class's ``generate_feedback`` and the formgrader's one thread for hours (section
  39).
- *Keeping a stand-in*: while a task is graded, the reference's versions of the earlier tasks'
  functions stand in for the learner's (sent as source; never the function being graded, a
  trainer, or the function of a test cell still to be graded). Test cells are graded in the
  *source's* order whatever the submission's, so a stand-in caught is a helper already graded.
- *Computing the hidden inputs*: hypothesis draws them from the course's secret seed (kept in
  ``trusted_grades/hidden_seed`` beside the gradebook, so a regrade draws the same; a fresh one per
  ``python -m bpe_ref grade``), from the seed alone, not from the fixed sequence the public graders
  show nor the constants of the modules loaded so far.
- *Reaching a class's kept inputs*: in ``nbgrader autograde`` every notebook of a class draws the
  same inputs, so each property test's are drawn once, with the reference's answers, by a run with
  no learner's code in it, and kept in the grading process's memory only; each notebook's calls
  replay them in order. A notebook that fails one shrinks its failure by a fresh run that draws the
  same inputs, skips those the replay passed and takes the replay's failure at the failing one: the
  learner's code gets the calls a fresh draw makes, with the same verdicts and messages
  (``tests/test_grading_class_inputs.py``). Nothing a notebook does changes what is kept for the
  next. A self-grade draws as it goes. ``python -m bpe_ref autograde --jobs N`` runs N such
  processes at once, each drawing them once from the same seed, which it makes before they start.
- *Making a notebook ungradable*: what the trusted grader writes into the autograded notebook is UTF-8 text (a lone
  surrogate a cell printed or an exception's message held crosses the wire, JSON-escaped, and nbgrader could not
  write the notebook: "not graded"; section 35), and the learner's nbgrader metadata is put back as above.
- *Hiding a flag from the instructor*: the reports (``grade --class``, ``grade``) and nbgrader's log print text the
  submission chose (a path it opened, as the keeper read it; an error message; a grade_id nbgrader does not know), and
  a terminal obeys the escape codes in it: a refused open of a path of cursor and erase codes wiped the flagged row
  and wrote a clean one in its place. Every line the reports print, and every record of nbgrader's console log
  (``nbgrader_config.py``), has its control and format characters written as escapes (:mod:`bpe_ref.course.printable`;
  ``tests/test_grading_redteam.py``, section 25).
- *Running a script where the instructor looks*: nbgrader's feedback and formgrade templates render a markdown cell's
  HTML as it is, so a submission's ``<script>`` ran in the formgrader, on an origin whose API sets any student's
  grades. ``nbgrader_config.py`` replaces the exporter's ``markdown2html`` (:func:`bpe_ref.course.printable.markdown_html`):
  what markdown makes is kept, HTML written in it is shown as text, links go to safe protocols only (section 37), a
  cell's attached images shown from their data if raster, an SVG one (a script may be in it) not at all. The outputs a
  submission saved are cleared (nbgrader's ``ClearOutput``); those the grader writes are text streams and errors (the
  worker's ``display`` prints a ``repr``), which nbconvert escapes (section 39); nbgrader's pages show no widget state
  of the notebook's metadata.
  nbgrader 0.9.6's formgrader wrote the id in the address it was opened at (a student's, a lab's, a notebook's) into
  its page's script as it was, ran the ``nbgrader_config.py`` of any folder its ``?path=`` named (a learner's, handed
  in), and served the files handed in beside a notebook (``/formgrader/submissions/<id>/page.html``, which a link in
  the learner's markdown reaches) on its own origin; nbgrader's JSON handlers answer as ``text/html``, some with the
  address's id or version in it (``/nbgrader_version?version=<script>...``, on the Jupyter server's origin, whose API
  runs code): a link a learner sent, or put in their notebook, ran their script there, or their code in the server.
  The course's config, which the formgrader loads before it builds its pages, has them escape what they write, opens
  the course it was started in only, and serves those files and every JSON answer sandboxed
  (:func:`bpe_ref.course.printable.guard_nbgrader_server`; ``tests/test_labs_jupyter.py``, on a JupyterLab server
  started as the README does); a student's server on the course's hubs, which loads no course config, enables it as a
  server extension. A stored id cannot carry a script either (``LinkFreeCollect``).
- *Hard-coding the visible cases*: every task's hidden test uses inputs the notebook never shows;
  visible tests are at most a third of a lab's points.

Not defended, and said so in every grading report (``grade`` prints the isolation in force):

- Without Landlock and seccomp (macOS, Windows, an old kernel, a container that forbids them), the
  worker is only a separate process with time limits (and rlimits where POSIX has them): its code
  can read and write what the grading user can. Grade a class on Linux, or in a container or VM
  per batch; ``grade --class`` still compares the gradebook with the trusted record and flags every
  capability use, so tampering is visible, no longer prevented.
- A process that escaped a dead keeper where the worker had neither seccomp nor no-new-privileges
  is found only by the worker's pipes it holds: one that closed them, or hides its fds from
  ``/proc`` (undumpable, when grading does not run as root), may run on within its rlimits; the
  review says a process was left running, as for processes still being forked when the 5 s run
  out. The subreaper tells a learner's process by its confinement, not its sandbox, so closing one
  sandbox also kills what escaped another held at the same time (the graders hold one at a time).
- nbgrader's exchange as the course's hubs set it up (``classroom up``, the z2jh values): every user writes it as one
  account, so a learner can hand in a folder named for a classmate (collect takes the newest, ``check_owner`` off) or
  rewrite the release and the feedback there (solutions/README.md, section 7). A link put there is not followed:
  the config's ``LinkFreeCollect`` (a link to the source notebook was collected as a submission, section 37), which
  also leaves out a folder whose time nbgrader cannot read (it stopped the class's collect) or whose student id holds
  a line break (it stopped the class's autograde), one nested 1,000 deep (nbgrader's ``os.walk`` recursed: it stopped
  the class's collect; 32 levels, 10,000 entries at most), and a file with other names (a hard link, section 38); it
  copies a file at its size when opened (one a learner's process grew as it was read was copied until the disk was
  full, section 38); ``grades.csv`` quotes every field (``QuotedCsvExport``: an id of commas and line breaks wrote a
  classmate's row, section 37). The time handed in, which the late penalty reads, was the learner's word (the folder's
  name, its ``timestamp.txt``): a day late, dated the day before, cost nothing. The collect writes it: the later of
  the name's time and the latest ctime of the files it copied, less a minute (section 38); a ctime no owner can set to
  the past, on a clock the file server keeps. Still the learner's: which of their folders is taken (the newest by
  name, and with ``before_duedate`` the newest named before the due date; each dated so), and where every user is one
  account, any classmate's file is theirs to change, its ctime with it. Where each is an account (``check_owner``), an
  entry of a submission's folder (writable by all, as nbgrader's submit makes it) that another user put there is left
  out: a classmate's notebook put in place of the submitter's was collected as theirs (section 38).
- A copy of someone else's working code, or a roundabout way to the right answers, earns the
  points: the grader judges answers, not authorship.
- Checks of *how* a function works are measured from outside the worker (its CPU time as the input
  grows, processes started, bytes read: ``/proc``; inputs left unchanged: the replies, the
  process's word, see *Faking results*) or forced
  by inputs on which the wrong method cannot answer right or in time. Processes started are seen by
  looks at ``/proc`` every 5 ms (how each was started, from its command line) and counted by the
  keeper, which the filter sends every fork of them (a clone without ``CLONE_THREAD``; ``clone3``
  is refused, so glibc falls back to clone): one that ends between two looks is still counted
  (``"unseen"``, :class:`.measure_worker.ProcessWatch`; Linux 5.5+). What each did is its reads: the filter sends the
  keeper every ``exit_group``, and it reads the process's ``rchar`` then, before the process is reaped into its
  parent's count, with its parent's pid (:meth:`.sandbox.Sandbox.process_ends`); a program started by exec has its
  start-up's reads left out (from the exec, made with one thread holding no file but pipes, sockets and /dev/null, to
  its first open of a file in the scratch folder, /dev/shm, the inputs or /proc, or an fd received: ``recvmsg``,
  ``pidfd_getfd``), and the
  bytes it mapped of inputs or writable files are added. Lab 03's task 4 measures a call of 2 workers on a fresh 4 MiB
  file in 16 chunks, which the grader's ``count_chunk`` makes the workers take in turn (none begins a chunk before
  the others have begun as many, less one: 9 of 16 at most, whatever the load): a process that read 0.9 of the file,
  a calling process that read or any that mapped a quarter, or a process that ended without ``exit_group`` (killed
  by a signal, its reads then its reaper's) fails (the taught pool's busiest: 0.57 by fork, 0.69 by spawn, 0.72 by
  forkserver, whose workers' imports after their fork count; a lone counter 1.0 and more; section 30). CPU time per
  process did not tell them apart (the busiest worker 0.55 to 0.95 of the serial count under load without turns, the
  lone counter 1.04 to 1.8). Not caught: the file read in parts by several processes (each under 0.9 of it) and handed
  to one counter through memory they share (an anonymous shared mapping inherited by fork, ``process_vm_readv``),
  which no ``rchar`` shows, through a socket received by ``recv`` (``rchar`` counts a socket's ``read``, not ``recv``
  nor ``recvmsg``), or through a pipe that a spawned counter reads while its start-up lasts (it counts with ``regex``
  itself, opening nothing in the scratch folder): two forked readers of a half each and one counter keep task 4's
  points in a self-grade and in a class (section 32, strict xfails; a pipe read by ``os.read`` and
  ``multiprocessing.shared_memory``, a file of /dev/shm mapped, are caught). No check closes it soundly. The channels
  cannot be shut: a pool's semaphores are shared memory, and a mapping is counted by its size, not by the bytes that
  pass through it (a few bytes, used again and again, are a channel). Each process's CPU time, now read as it ends
  (the keeper, for the budgets above), does not tell the counter: it may read up to 0.9 of the file itself, the bound
  the forkserver's imports need, so its CPU time per byte read is an honest worker's within the noise (a spawned
  worker's start-up costs CPU time and reads nothing counted); CPU time the readers spend for show hides its share
  of the whole; and against the reference's serial count the same work cost 1.04 to 1.8 times under load, more than
  the gap between the counter and the taught pool's busiest worker (9 of 16 chunks at most). Denying the two channels
  shown (the filter refusing ``mmap`` of ``MAP_SHARED | MAP_ANONYMOUS``, the keeper counting ``recvfrom``'s length and
  ``recvmsg``'s buffers as read) would narrow it, not close it: a file of /dev/shm of one page, counted once as it is
  mapped, passes any number of bytes, a page at a time, and a pool's semaphores are such files (a 32-byte one passes
  2 MiB in 65,536 turns of shared memory, no system call each). What would tell the counter whatever the load is a
  count of instructions per process (``perf_event_open``, hardware counters: not CPU time, which load and cache
  contention stretch by 1.04 to 1.8); in the VMs that run gradings there is often no PMU (the VM this was tried on
  answers ``ENOENT`` for ``PERF_COUNT_HW_INSTRUCTIONS``), so no grade can rest on it. A thread that swaps a
  path after the keeper resolved it is the keeper's model, as for opens.
  Bytes read (lab 03's "never the whole file") are the kernel's ``rchar`` of every process under the keeper, live, a zombie or
  reaped (:func:`.measure_worker.tree_read_chars`; a count an undumpable process hides makes it
  unknown, and the check fails), on a file drawn from the secret seed for each measured call, whose answer is
  compared with the reference's (a whole-file reader that told the measured call by its size answered it unread:
  ``tests/test_grading_redteam.py``, section 29); a file's pages mapped instead of read are counted by the keeper,
  which every file ``mmap`` goes by, and every ``mremap`` (what it adds to a mapping of such a file: one page mapped,
  then grown to the whole file, was counted as a page, section 31) (bytes mapped of a grader's input or of a file the worker can
  write; a thread that swaps the fd meanwhile is counted for the file held at the look; not counted
  before Linux 5.5); ``splice``/``tee``/``vmsplice``, and Linux's native asynchronous I/O (``io_setup``,
  ``io_submit``: a file read whole through ctypes, ``rchar`` grew by 105 bytes for 3,000,000), whose bytes ``rchar``
  misses, are refused (``tests/test_grading_redteam.py``, sections 6 and 31). The calls of the learner's helpers (task 3 of labs
  04 and 05) are counted only in the learner's kernel, as advice (``checks.running.advice``): graded,
  no point rests on a count; both tests measure the method by CPU time against the reference's run,
  so calls made for show or a forged count lose the points (a worker gone before its CPU time is
  read fails the check; its CPU time is looked at ten times a second, whatever it writes meanwhile;
  ``tests/test_grading_adversarial.py``, ``METHOD_FOR_SHOW``; ``tests/test_mistakes.py``). What only
  the count saw costs no points: lab 04's index built in ``train`` without ``index_words``, lab 05's
  pop written in ``train``. Lab 07's short pretokens, where heap and rounds cost the same, are
  decided by inputs (merges reordered by hand, on which the rounds give other tokens; tiktoken's
  rescan below a threshold gives the heap's tokens at its cost, and is not told apart); so is its
  measured long run of a's, which the rounds merge at the heap's cost (a round per doubling): its heap
  lacks a drawn share of its entries, so the heap decides which pairs merge (section 33). A measured
  input is shaped as the taught method's real use, so that a wrong method's cost shows: lab 05's pops
  are 2,000 calls in turn on one heap (a driver), where one call popping thousands of stale entries let a
  sort once per call pass (section 33). Not caught: lab 05's V5 with a list kept sorted for its heap
  (``bisect.insort``, ``pop(0)``: O(H) per entry, but a memmove in C, some 16 us at 60,000 entries against
  heapq's 0.7 us, where each merge's own work is 40 to 100 us for a few entries), which costs 0.6 to 2.1 times the
  reference at the measured sizes and on 12,000 merges of 40,000 words (section 33, a strict xfail). A margin the noise
  of measured CPU time cannot close needs the memmove to outweigh each merge's own work ten times, a heap of some
  500,000 entries; the first heap holds one entry per pair of bytes, 65,536 at most, and grows by the entries each merge
  pushes, so only a corpus of hundreds of thousands of merges reaches it (seconds of CPU per measured run, per try).
  Lab 08's linear encoders and
  lab 07's heap (O(L log L)) give the same tokens, and their costs differ by a factor of log L, at most 1.4 from 8,000
  bytes to 256,000, less than the spread of measured growth: a heap passes lab 08's task 2 (the replay of the merges,
  quadratic there, does not; section 33, a strict xfail: its growth 1.3 to 1.4, the
  search's 1.0 to 1.9, the ranks' decoding on each call most of both). No affordable size widens it: from 8 KB to
  1 MB, log L grows 1.5 times. Both would be told by counts of instructions (deterministic within a few percent,
  whatever the load), which the grading machines' VMs often lack (above). A
  measurement sees the whole process, so code that recognises the measured input and answers it by
  another method is not caught while its answer is right (measured runs' merges are compared with
  the reference's; those of labs 02, 05, 07 and 08 are drawn from the secret seed).
  Lab 10 grades ``tree_reduce`` and ``count_ranges``' ``as_task`` path by what they build with a function they are
  handed (the notebook's read-only ``tree_shape``, ``tree_reduce(parts, pair)``, and ``task_graph``, ``count_ranges``
  with a recorder): the result is data, and a ``tree_reduce`` that paired the parts itself, never calling combine (no
  count at all with ``merge_two``), or a ``count_ranges`` that wrote the recorder's tuples itself, never calling
  ``as_task`` (on a cluster, no task), kept those points, as did a cell added after a read-only one that redefined it
  (section 40). So the graders call them through a driver (below) that calls the notebook's ``tree_reduce`` or
  ``count_ranges`` itself (from the helper's globals), with a ``pair`` or an ``as_task`` of its own that keeps each tuple
  it returns; a tuple of the result that it did not make, by identity, is shown as not made by it. Code that reads the
  driver's closure is flagged as any is.
  Likewise, lab 09's tasks 2 to 5 must raise ``ValueError`` on bad input, which their driver (``value_or_error``)
  writes as the text ``"raised ValueError"``: a function that returned that text, raising nothing, kept the points
  (section 41); a str a function returns now comes back marked as returned.
  Stand-ins and drivers are run with the builtins the worker had before any of the learner's code ran (a cell that
  rebound ``builtins.type``, ``isinstance`` or ``all`` had lab 10's and lab 09's drivers take tuples the learner's code
  built, a returned argument or a returned str for what they check; section 42), and lab 09's default clock is read
  from the function's own defaults and must be the time module's builtin of that name (a ``__signature__`` set, or
  ``inspect.signature`` or ``time.perf_counter`` rebound, told time.time as time.perf_counter). The modules they import
  are the interpreter's, whose names the learner's code can rebind, and their globals are reachable through a
  function they hand in or a caller's frame: flagged, not closed. The worker loop itself reads each request with json's C
  scanner bound when it is loaded, and its functions look up the builtins as they were then: a cell that rebound
  ``json.loads``, ``builtins.next`` or ``builtins.exec`` had a call's driver dropped or its source run changed
  (section 43). Lab 03's driver never calls the count_chunk it is handed: a function's ``__module__``, ``__qualname__``
  and ``__code__`` are the notebook's to set (a cell's with ``__module__`` set to ``chunk_counting``, then one given a
  code object whose file is renamed, kept task 2's hidden points); it reads the file of the function's module and runs
  it, once per file and source, and calls the count_chunk defined there, what a spawned worker imports: no file,
  no points (section 42). It runs them in a process of its own started by spawn (kept from call to call, 0.5 s to
  start), as a pool's worker does, not in the notebook's: there, the module's code reached the cell's function through
  ``import __main__``, the frames below it (the worker loop's namespace of the notebook) or a name the notebook left in
  a module both share (``sys._mine``), and kept the points (sections 42 and 45). Still the learner's: the modules the
  driver starts that process with (``concurrent.futures``, ``multiprocessing``) and tells the grading worker by
  (``sys.flags``: ``-I -S``; elsewhere, the trusted side's reference and a kernel's advice, it runs the file in the
  calling process), whose names a cell can rebind to run it in the notebook's process after all, and a channel of the
  module's own back to the notebook's process (a socket its thread serves); the review flags the rebinding, a hint.
  Lab 09's ``interleaved`` and ``peak_memory`` take functions, so their graders send a *driver*
  (reference code, as source) that builds a fake clock and contenders in the worker, calls the
  learner's function with them, and reports the call order and the collector's state. The learner's
  function shares the driver's interpreter and can rewrite its objects through the closures it is
  handed, so neither task rests on that report alone (``tests/test_grading_redteam.py``, section
  14): task 1 is also measured (contenders that keep many objects alive and make each collection
  costly, so the call's CPU time, bounded by the reference's, shows a collector left on: 10 to 40 times
  the paused cost; each collection counted by what it does, a cycle of the driver's freed, not by a collector
  callback, which ``gc.callbacks.clear()`` removed: section 33; the cycle is a deque that holds itself, whose
  collection a weak reference the driver holds reports, for a cycle of the driver's class, found in ``gc.garbage``
  under ``gc.DEBUG_SAVEALL`` (``gc.get_objects`` is refused), had its finaliser replaced: section 33; and a call
  in which the collector's count of new objects fell back, the cycle not freed, is charged the collections that ran:
  the collector's callbacks freezing every object as a collection starts (``gc.freeze()``) and putting them back as
  it ends, so that it freed nothing, kept the points: section 36; ``gc.get_count`` rebound besides would hide it,
  flagged for review, as are ``gc.callbacks`` and ``gc.freeze``); task 6
  gets a function that draws its size when called and seals it with a public key whose private half stays here, so the worker cannot read a
  size back; but the key is public: code that reads the function's closure seals a size of its own
  and skips the call (section 28, open; ``getattr`` spelled around the flagged names hides it from the
  review). Measuring the worker's memory from outside (``VmHWM`` of ``/proc/PID/status``, reset through
  ``clear_refs``) would not close it: it shows memory held during the call, not which code held it (the
  same code that also allocates the size it sealed raises it as fn would), and below glibc's largest mmap
  threshold (32 MiB) a fn's block may reuse heap freed earlier and raise it not at all. Disarming these
  (the driver's cycles reached through its closure, ``os.urandom`` replaced, the frame traced) and reaching into a closure or a
  caller's frame are flagged for review (``review.INTROSPECTION``, ``review.ATTRIBUTES``), a hint only.
- Review flags from behaviour are what can be seen from outside: the calls the sandbox refused and
  the files it refused to open, by name and count; processes that left the session, files left in
  /dev/shm, links or special files in the scratch folder; tampering nbgrader restored (a test or
  read-only cell deleted, edited, made markdown, or the nbgrader metadata of any cell of the lab changed: raised
  points, the grade and solution flags and the schema version are put back from the gradebook, and flagged; a
  graded cell added, which nbgrader would score in full if it ran, is a plain cell, flagged; nbgrader
  itself gave up on the whole class at a schema version not its own, and failed the notebook on changed
  flags, a cell copied with its grade_id or a graded cell with none: ``tests/test_grading_redteam.py``, section 35).
  What the worker's own audit hook notes is flagged as its report, a hint (``Worker.noticing``; the hook and what it
  noted are reachable from a frame below a cell, as the loop's globals are): a function's ``__code__`` set (the
  ``object.__setattr__`` event), a code object made (``code.__new__``: ``code.replace``), a function made of one
  (``function.__new__``), and a graded function called whose ``__module__`` is not its globals' module or whose
  ``__qualname__`` is not its code's (no event announces those: one that wraps another, ``__wrapped__`` or a function of its
  ``__qualname__`` in its closure, a decorator's wrapper, is left out).
  The seccomp
  filter sends each call it refuses (io_uring, whose queued operations no filter sees; splice and
  its kin and native asynchronous I/O, whose reads ``rchar`` misses; a socket or a datagram ``socketpair``; a new
  process or program where the lab allows none; a seccomp filter of the worker's own, which could answer refused calls before the keeper;
  any call of another architecture's table) to the keeper by user notification, which counts it and
  answers with the filter's error, never lets it run. Every ``open``/``openat``/``openat2``/``creat``
  goes by the keeper too: it reads the path from the caller's memory, resolves it (``/proc/self``
  as the caller's, however spelled; another process's ``/proc`` links not followed with the
  keeper's rights), counts it ("read PATH", "write PATH") if it lies outside what the worker gave
  Landlock, less the interpreter's and C library's harmless probes, and lets the call go on, so
  Landlock still decides. The count is the keeper's model, not the kernel's answer: a thread that
  rewrites the path in between is counted for what it held when read (the kernel's own denial log,
  Landlock ABI 7, is closed to an unprivileged grader). The worker hands the notification fd over
  and closes its copy before any learner's code runs; Landlock keeps it from taking the keeper's
  (``pidfd_getfd`` needs ptrace). A report names at most 16 calls and 16 files; every call costs one
  round trip (0.1 ms for a refusal, 0.2 to 1 ms for an open: lab 03's spawned interpreters, some
  3 500 opens, spend 0.8 to 3.6 s in the keeper) within the notebook's budget; if the keeper dies the
  kernel refuses every notified call (ENOSYS). Without user notification the filter refuses the
  same calls itself and nothing is counted; before Linux 5.5 opens are not watched: the isolation
  line says which. A keeper report that does not come within 10 s or cannot be read is a flag of its
  own, never a clean record. *Not* counted: other operations Landlock refuses (``unlink``,
  ``rename``, ``mkdir``, ``execve``... outside the scratch folder), a signal or ptrace it scoped.
  The text of the learner's cells is still read for capabilities no lab needs, a hint where
  behaviour cannot be seen (an import of the reference just fails; a hook is no system call, nor is
  rebinding what a module holds, ``json.dumps = ...``), never
  a finding; a docstring is not read. With Landlock ABI < 6 the worker could signal its keeper.
- The worker can read the system's shared libraries (``/usr/lib``, on Debian also the system
  Python's packages); nothing of the course is there. Disk use is capped per file
  (``RLIMIT_FSIZE``) and in total, in bytes and entries, by a watcher of the scratch folder.
- The visible tests in the learner's own kernel are advice; a learner can fool them, and only
  fools themselves.
"""
