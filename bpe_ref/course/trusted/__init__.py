"""Trusted grading: the score comes from a process the submission cannot reach.

- :mod:`.worker`: the untrusted side, standard-library modules each read on its own: the worker loop
  (``worker/__main__.py``, a fresh ``python -I -S`` process that runs the submission's cells and answers calls of its
  functions), the wire format both sides import (:mod:`.worker.wire`), its confinement (:mod:`.worker.confinement`)
  and its keeper (:mod:`.worker.keeper`).
- :mod:`.sandbox`: the trusted side's handle on a worker (deadlines, restarts, a function proxy).
- :mod:`.autograde`: the nbgrader preprocessor that replaces ``Execute`` in ``nbgrader autograde`` (and in ``python -m
  bpe_ref grade``): the graders run here, with the reference, and decide.
- :mod:`.cells`: which grader each test cell runs, recorded from the source notebooks.
- :mod:`.review`: flags for an instructor's review; :mod:`.measure_worker`: the kernel's counters.
- :mod:`.stand_ins`: the reference's helpers, sent as source, bound in place of the learner's earlier functions while
  a later task is graded, so that one bug costs one task's points.
- :mod:`.verdicts`: what the graders share with this side (the verdicts, the hidden seed). Nothing here imports the
  graders (:mod:`bpe_ref.course.checks`): :mod:`.autograde` finds a lab's graders by name when it grades.

Threat model
------------
The adversary writes any code in a submitted notebook, knows the course's source and the machine's layout, and wants
points its functions do not earn, or to change another submission's grade. "Section N" is the section of
``tests/test_grading_redteam.py`` that shows the attack.

Defended, on Linux with Landlock (kernel 5.13+; ABI 4+ for TCP, 6+ for signals) and seccomp:

- *Hooks and patches in the notebook* (IPython events, input transformers, ``sys.excepthook``, patched ``runpy``,
  import machinery, exception classes, hypothesis): no test cell runs in the learner's process. Graders, hypothesis
  and comparisons run in the trusted process, which runs none of the learner's code, and write the verdict into the
  test cell's outputs, which are all that nbgrader's scoring reads.
- *Using the reference anyway* (importing it, reading its source, a subprocess that runs it): the worker starts
  without site-packages and can read only the standard library, the allowed packages (``regex``) and its scratch
  folder; it cannot start processes (unless a lab allows them) or open network sockets.
- *Reaching a program outside through a unix socket*, which Landlock (up to ABI 7) does not stop: where a lab allows
  no processes, ``socket()`` is refused whole, and ``socketpair()`` makes stream ends only. Where it does (lab 03),
  ``socket()`` makes unix stream sockets only and the keeper makes each ``connect`` itself: it reads the address once,
  opens the socket file beneath the scratch folder only (``openat2``, ``RESOLVE_BENEATH``), takes the caller's socket
  (``pidfd_getfd``) and connects it to the file it opened; anything else is refused and counted. multiprocessing's
  forkserver listens and connects in the scratch folder. Without the keeper (Linux before 5.6) such connects are not
  stopped, and the isolation line says so.
- *Writing to the gradebook, the package, the course or another submission*: the worker writes only in its scratch
  folder, deleted after grading; graders are imported in the trusted process before any submission runs. The trusted
  side never opens a path in that folder (a link there once made the grader overwrite a file): grader inputs are
  written ``O_EXCL | O_NOFOLLOW`` to a folder of its own whose files the worker may only read, by name: it may neither
  list the folder (Landlock's read-file right there, not read-dir) nor watch it (``inotify_add_watch`` and
  ``fanotify_mark`` refused), so a file written before the call it is for (lab 03's measured file, before an unmeasured
  call) is not read by an earlier one out of every measure (section 46); and the worker's stderr comes through a pipe.
- *Faking results*: only JSON comes back, rebuilt into exact builtin types, so an object whose ``__eq__`` always says
  yes cannot cross; each NaN is rebuilt as a float of its own, as the worker's code sees it (section 26). Inputs are
  generated, and counted, on the trusted side: a property check that compared fewer than its minimum of inputs fails.
  The arguments after a call ("inputs left unchanged") are the worker's report; a reply without the arguments asked
  for fails (section 19). Request ids are drawn at random on the trusted side, so a line the learner writes on the
  reply pipe is never taken for the reply (section 21). What writes a reply (json's C encoder, the wire format's
  builtins) and reads a request is bound before any learner code runs, and the notebook's namespace is ``__main__``,
  so rebinding ``json.dumps`` or ``builtins.dict``, or ``import __main__``, reaches none of it. The loop's two fds sit
  at the top fd numbers, which the seccomp filter of every thread and process of the worker keeps (``dup2``/``dup3``
  onto them refused and counted, ``close`` of them and ``close_range`` over them refused). They can still be reached
  through ``/proc/self/fd``, so every reply is sealed, a keyed BLAKE2b of the request as the loop read it and of the
  reply, under a key sent before any learner's code runs and held by a thread of the loop's own, which runs none of
  the learner's code (``worker/__main__.py``, ``_serving``, says how, and why each of its rules; section 28). An audit
  hook refuses what reaches that thread's frames (``_REFUSED_EVENTS``; no lab uses them), and what the notebook is
  handed (``get_ipython``, ``display``, the spies) is defined in a namespace of its own, not in the loop's file, whose
  globals it would reach (section 28), as is what answers (below). The same thread seals bytes a driver hands it, with
  a BLAKE2b person of their own, so that no such seal is a reply's (lab 10's nodes, below).
  What answers a request and writes a call's reply (its arguments as they came back, its value, a driver's report)
  runs on the main thread, beside the learner's code, which reaches the globals of every frame below it
  (``f_globals``: no audit event), the functions among their locals and the classes of what they hold: a cell that
  rebound the loop's ``encode`` and ``decode``, its ``_dumps`` and ``_loads``, or its ``Worker``'s methods kept a
  mistake's points (section 28). So what answers is defined from source in a namespace of its own
  (``worker/__main__.py``, ``_REPLYING``) and looks up no name when it runs (no global, builtin or attribute: every
  builtin, C type's method and function it uses is a default bound before any learner's code runs); it has no closure
  and recurses by passing itself; the loop's audit hook refuses changes of its functions' ``__defaults__``,
  ``__kwdefaults__`` and ``__code__`` (``__globals__`` and ``__closure__`` are read-only); a call's arguments are a
  tuple made before the call and are encoded before its value; the arguments reported are the objects handed over as
  they are after the call, not what a container holds then: every list, dict and set reachable from them is recorded
  before the call with the objects it holds (an operand on the frame's stack, no name), and an argument from which
  one that changed was swapped out (a chunk added into, then replaced by a copy of it as it came) is reported as no
  value that was sent (section 64); and what it builds is never a local (a
  comprehension's list, a literal handed to json's C encoder, text), so a frame's ``f_locals`` shows nothing of it to
  rewrite. Still open, the learner's word: what decides what a call runs (the worker's methods, the stand-ins' and
  the drivers' namespaces, as below) and an error's text; the values themselves, the learner's objects and the
  driver's report, which its code can change until they are encoded (a thread of its own, or a signal handler through
  a frame's locals; another type's ``repr`` as the value is encoded, after the arguments); and a trace or profile
  function (``sys.settrace``, ``sys.setprofile``: lab 09's driver profiles, so neither is refused), which on CPython
  3.11 writes a frame's locals back (what answers holds, the dispatcher's cells the sealing thread reads); the review
  flags both calls (a hint). Native code too: ``ctypes`` reads any memory of the worker (the keyed hasher's
  state) and can raise an exception in the sealing thread; a forked process keeps that state. A collection started on
  the sealing thread runs the learner's callbacks there (none starts through no allocation of its own on CPython 3.11;
  3.12 not checked): exhausting memory as it allocates does so (section 34, a strict xfail: a lowered ``RLIMIT_DATA``
  and a collection at every allocation took the keyed hasher from the sealing frame); a frame that may fail to
  allocate cannot hold the key, so closing it means sealing outside the learner's process (the keeper); refusing the
  limit's lowering would narrow it, not close it (a filled address space fails allocations too). Until then a reply is
  the learner's process's word; what it can claim is bounded: its answers are computed in the worker, measured from
  outside as any call's are and compared with the reference's, so it adds only the worker's own report beside the
  answer (the arguments after a call: a task's "leave it unchanged", lab 02's in-place updates, whose right values it
  must still compute, and lab 03's new dict). Rebinding what a module holds (by attribute, ``setattr``, or through its
  namespace, ``json.__dict__`` or ``vars(json)``: section 67) and reaching a caller's frame are flagged for review.
- *Killing, tracing or signalling the grader*: Landlock scopes signals and ptrace to the sandbox. The kernel lets a
  process set the limits and scheduling of any process of its user without either (``prlimit``: RLIMIT_CPU kills the
  grading); the seccomp filter lets those calls act on the caller alone (section 55). The worker drops every
  capability the grading user holds (a grading run as root gave it reboot, the clock, modules, BPF: section 56).
- *Hanging or exhausting the machine*: a limit per cell and per call (the worker is killed and a fresh one replays the
  cells that ran), a budget per notebook (read before each request: what this side does with a reply in between is
  linear in it; a failure's hints, which read it as they like, stop after ``checks.compare.HINT_CPU_SECONDS``,
  a task's observe of it after ``OBSERVE_CPU_SECONDS``, and a case's whole check, a judge's or a comparison with the
  reference, after ``checks.running.CHECK_CPU_SECONDS``, failing the case: sections 105-110; a check of how a function
  works, outside the cases, after ``checks.running.HOW_CPU_SECONDS``: section 122), rlimits on memory, CPU
  time, file size and fds (1,024 a process, hard), and on
  the memory of all the worker's processes together, read from outside ten times a second: what is resident in them
  (each under ``RLIMIT_AS``, 64 of them held 128 GiB; section 52) and the bytes queued in the unix sockets and pipes
  they hold or sent, kernel memory that neither counts (1,000 socketpairs filled held 222 MiB past a limit of 200 MiB;
  section 53): each socket's queue from the kernel's ``sock_diag`` (what it sent still queued, each packet's overhead
  included; bytes whose sender is gone, and each connection not accepted yet, a full buffer), each pipe at its capacity
  (64 KiB); the seccomp filter refuses a larger buffer (``SO_SNDBUF``, ``SO_RCVBUF`` and their ``FORCE`` kinds,
  ``F_SETPIPE_SZ``), so what an fd holds is bounded, and counted at its most where the kernel gives no queue. The
  scratch folder's limit counts the files its processes hold open that no folder links (unlinked, memfds: section 53). A
  file passed in a message (``SCM_RIGHTS``) and closed is held by the socket's queue, in no process's fd table (section
  53): where a lab allows no processes, ``sendmsg`` and ``sendmmsg`` are refused (no lab's code passes fds; the worker's
  seccomp listener goes to the keeper by ``pidfd_getfd``, not ``sendmsg``); where it does (lab 03, whose forkserver
  passes its children's pipes so), ``sendmmsg`` is refused and the keeper makes each ``sendmsg`` itself from the message
  it read once and the fds it took (``pidfd_getfd``), so a thread that rewrites the message meanwhile changes nothing
  sent; it refuses a memfd or any regular file but those of the worker's own /dev/shm, whose tmpfs bounds them (where
  the worker has none, every regular file: a ``Value`` of multiprocessing's made under spawn or forkserver then fails),
  and ``SCM_CREDENTIALS``; the receiver sees the keeper as the sender. Each socket and pipe it sends it records first
  (1,024 slots shared with the trusted side, freed once the file is no longer in flight: a socket the kernel no longer
  has, a pipe whose receiver has read all; a send past them is refused, ``ETOOMANYREFS``), and the memory watch counts
  their queues, in flight or held (1,000 sockets filled and sent in flight held 222 MiB: section 53). Before Linux 5.19
  a signal to a caller whose send the keeper made may have it sent twice (the call restarted); from 5.19 a notified call
  of lab 03's waits for its answer killable only. Still open: before Linux 5.6 (no ``pidfd_getfd``), files in flight in
  any lab (the isolation line says so), whose queues the memory watch then does not see; where the kernel has no
  ``unix_diag``, each socket held counts twice its send buffer; the queues grow between two looks (a tenth of a second:
  what the worker's processes can queue meanwhile).
  System V IPC and the keyrings, whose segments, queues and keys outlive the worker outside all of those limits, are
  refused (section 54); so are their POSIX kin (section 78): a message queue (``mq_open``, made in the machine's IPC
  namespace, it outlives the worker), a timer (``timer_create``, charged to the grading account's pending signals) and
  a record lock (``fcntl``'s ``F_SETLK``, ``F_SETLKW`` and their OFD kinds: some 200 bytes of slab a range, 400,000 on
  200 files with 20,000 timers held 82 MiB; ``flock``, one lock an open file, is left), and an extended attribute set
  (``setxattr`` and its kin: on tmpfs, and on the kernel's tmpfs behind every memfd without bound, kernel memory that no
  size or block count shows; 50,000 of 3,900 bytes on one memfd held 195 MiB: section 81). So are the calls that make
  kernel memory as often as they are called, in no process's resident memory, no folder and no queue (section 74):
  ``memfd_secret`` (its pages, once unmapped, unevictable memory of a file that shows no blocks: 8 of 60 MiB held past
  a limit of 200 MiB), the Landlock calls (some 70 bytes a rule, an fd a ruleset: 60 rulesets of the 65,536 TCP ports
  held 277 MiB; the worker confines itself before the filter is in), and, where a lab allows no processes, epoll (an
  item per file and fd added, kept after the fd's closing while the file is open: 5.5 million items, 1.1 GiB, the
  grading account's whole ``fs.epoll.max_user_watches``, whose other epolls then failed); where it allows processes
  (lab 03: multiprocessing's forkserver waits on an epoll), the keeper counts each item added (``epoll_ctl``'s
  ``EPOLL_CTL_ADD``, removals not subtracted) and answers ENOSPC past ``keeper.MOST_EPOLL_ITEMS`` (4,096 a worker), as
  the kernel does past the allowance; without user notification
  (before Linux 5.5) lab 03's epoll items are bounded by that allowance only. The watches read a process's fds and
  memory in ``/proc/PID``, its main thread's: a thread with an fd table of its own (``unshare(CLONE_FILES)``, a thread
  cloned without ``CLONE_FILES``) is refused, and a process whose main thread ended while another runs (``SYS_exit``),
  whose ``/proc/PID/fd`` lists nothing and whose ``stat`` shows no resident page, is read through a thread still running
  (memfds of 480 MiB, and 4 processes of 60 MiB, hidden so: section 75). A file held by a mapping alone (a page of a
  memfd or of an unlinked file of the scratch folder mapped, its fd closed: 16 of 30 MiB held 480 MiB, section 76)
  counts in the scratch folder's limit at ``file_mb``, the most it can hold (its size is not readable from outside
  without privileges), from each process's ``maps``; shared anonymous memory, which keeps every page of a mapping
  unmapped but for one, is refused (``mmap(MAP_SHARED | MAP_ANONYMOUS)``: the standard library maps none on Linux).
  Not counted so: a file of /dev/shm held by a mapping alone (multiprocessing's semaphores are such files), bounded by
  the worker's own /dev/shm (``shm_mb``) where it has one; where the keeper makes its files in the machine's, it holds
  each it made and adds up their blocks at each look, letting go those no name links and no process of the worker's
  holds or maps, and stops the worker past ``shm_mb`` (``file_mb`` where none of its own was asked for), as it answers
  ENOSPC past ``keeper.MAX_SHM_ENTRIES`` files (16 files of 30 MiB, by their names or a page mapped each, held 480 MiB
  past every limit: section 79).
  A path the learner's code chose
  that the loop or the reference's code opens (a module's ``__file__``, a ``%%writefile`` file, a traceback's source
  lines) is opened ``O_NONBLOCK`` and taken only if a regular file (a module of at most 1 MiB): a fifo there blocked
  each call until its backstop (section 44). The limit of a cell or call is CPU time, so that a busy machine fails no
  honest call: the keeper's own (it answers their opens, mmaps and refused calls: a loop of opens spent 9 times the
  worker's CPU time there, section 50) and the worker's and every process's under its keeper, live, a zombie or reaped
  (:func:`.measure_worker.tree_cpu_seconds`, ten times a second from 0.1 s in), or, if more, the live ones' own time
  and that of every process that ended by ``exit_group``, which the keeper reads as it ends. No process may have the
  kernel reap its children unwaited for, their time in no count (section 32): where a lab allows processes (lab 03
  only), the keeper refuses ``SIGCHLD``'s ``SIG_IGN`` and ``SA_NOCLDWAIT`` (``EPERM``, counted for review; the action
  is read once, so a thread that rewrites it meanwhile escapes, and a child of its then killed by a signal is stopped
  only by the notebook's wall-clock backstop), and the filter refuses a subreaper of the learner's own; without user
  notification (Linux before 5.5), only the latter. A request that waits instead (a sleep, a lock, a pipe, a stopped
  process) is stopped by a backstop, ``Policy.wall_factor`` times its limit of the wall time in which none of those
  processes, nor the keeper, ran or waited for a CPU; the notebook's budget (``total_timeout``) is CPU time too, the
  trusted process's and every worker's (read before a request once a second, or at each when all CPUs could have spent
  it since), with a backstop of ``wall_factor`` times it in wall time, counted while neither the trusted process nor
  any of the worker's processes ran or waited for a CPU (a loaded machine ran an honest lab 03 into it at load
  500-800, hog50); the learner's own code that waits costs its
  notebook that backstop, once a request. The worker is the child of a *keeper* (:func:`.worker.keeper.keep`), a child
  subreaper that runs none of the learner's code: every process the worker starts stays below it, ``setsid`` or not,
  is counted (more than ``Policy.max_processes`` at once kills the lot) and is killed when the worker ends, one whose
  main thread ended while its other threads run (state Z, but running: section 124) too. Each
  process start (lab 03's ``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``) goes by the keeper too, which answers
  ``EAGAIN`` (Python's ``BlockingIOError``), counted, once the worker holds ``max_processes`` others: the look that
  kills the lot comes every 100 ms, and on a loaded machine (load 500-800) a fork bomb held 565 processes of one worker
  before it (verify49; section 77); starts let go on meanwhile may pass the bound by as many as run at once. Each thread
  start (``clone`` with ``CLONE_THREAD``), in every lab, goes by the keeper, which lets it go on while all the worker's
  processes hold fewer than ``Policy.max_tasks`` threads and answers ``EAGAIN`` past them, counted: a thread is a pid of
  the machine's, which nothing else bounded (``RLIMIT_NPROC`` binds no grading run as root), so one worker could hold
  them all and a classmate graded beside it start no process (section 63); thread starts let go on meanwhile may pass
  the bound, by about as many again at most; before Linux 5.5 (no "go on") threads are not bounded, the isolation line
  says so. Where the
  kernel allows unprivileged user and mount namespaces, a lab with processes gets a /dev/shm of its own (a tmpfs of
  ``Policy.shm_mb``), emptied and flagged at the end (a pool's semaphore left by the killed worker unflagged);
  elsewhere the keeper makes their files in the machine's /dev/shm itself, knowing each by name and inode (Linux
  5.14+; before, it takes the names it saw opened with O_CREAT), and removes, flagged, only those, never what another
  live process holds (section 13); there it opens (with O_CREAT or not) and unlinks the worker's own files only, those
  it made and holds: another grading's (a file it made there, a pool's semaphore before its unlink) is refused, EACCES,
  counted (section 82; before Linux 5.14 not). No folders, symlinks, renames, pipes, sockets or devices there. The
  trusted side
  relies on the keeper for neither its waits nor the end of the worker's processes: a request is written, and its
  reply awaited, under one deadline; while it holds a sandbox the grading process is a child subreaper too, and
  closing kills and reaps its children more confined than itself (read from ``/proc/PID/status``), then every process
  still holding an end of the worker's pipes, 5 s at most each (:meth:`.sandbox.Sandbox.close`). The review lists what
  either killed, with the lost report.
- *Costing the grader*: a cell's IPython syntax is turned into Python here (IPython's ``TransformerManager``,
  quadratic in ``%magic`` lines) under the cell's limit of this process's CPU time, past which the cell goes as it is
  (section 35); a reply is read with a size limit (4 MiB), and what the grader writes into the notebook is capped here
  (20,000 characters a stream; an error's message 2,000, its traceback 30 lines), not by the worker's caps, which a
  cell can rebind (section 39): a call's error as it comes back too, its class name at 200 characters (a class named by
  3,000,000 made each failed check's message, and the trusted record, megabytes: section 93), a verdict's message at
  20,000, and the learner's cells' outputs at 1,000,000 characters in all (section 98); decoding refuses nesting
  deeper than the worker sends and dicts or sets whose keys
  share one hash before building them. The scratch folder is walked (twice a second for its size, at closing for links
  and special files) through at most ``Policy.scratch_entries`` entries and 32 levels, links never followed; past
  either the worker is stopped and flagged. The instructor's pages of a submission highlight its code with Pygments'
  Python lexer, whatever its metadata names, and a cell past 20,000 characters not at all
  (:func:`bpe_ref.course.printable.code_html`): IPython's lexer is quadratic in a line's length (section 39). They show
  a raw cell's text as text (:func:`bpe_ref.course.printable.clean_html`): nbconvert cleaned it with bleach, quadratic in
  the tags nested or left open (a 40 KB raw cell, 4 s of CPU time a page: section 70), and strip a link's ``files/``
  prefix in linear time (:func:`bpe_ref.course.printable.strip_files_prefix`: nbconvert's pattern took 3 s a page on a
  markdown line of 20,000 ``[``, section 71); a markdown cell of more than 64 LaTeX openers (``\\begin{``), each of
  which nbconvert's math plugin ends by a search to the end of the cell, is shown as text (5.7 s a page for 54 KB:
  section 72), as is one of more than 64 link reference definitions, or of one and more than 1,000 ``[`` (each use
  writes the definition again: 141 KB of markdown, a 20 MB page, section 96); an attachment's data is written once a
  cell, at its first image (one 100 KB attachment shown 1,000 times: a 100 MB page, section 95), and a notebook keeps
  4,000,000 characters of attachments in all (``autograde.MAX_ATTACHMENT_CHARS``, dropped past it by
  ``BoundedSubmission``: 1,900 cells of a 48 KB image made 92 MB pages, section 115); an image of an attachment the
  cell lacks is text (nbconvert raised, the page not made: section 116). A page highlights or makes HTML of 100,000
  characters of its cells' sources in all (``printable.RENDERED_NOTEBOOK_CHARS``), the cells past them shown as text:
  each cell's bound held, 2,000 cells under it cost some 35 minutes a page, Pygments, bleach and nbconvert's
  BeautifulSoup pass over the page paying per character and per tag (section 118); outputs are coloured
  (``printable.ansi_html``) within the same bound, past it escaped text (a colour changed at each character: 8 s a
  page, section 119). The
  review of ``grade --class`` parses a learner cell of at most 100,000 characters, and 500,000 of a notebook's in all
  (``review.REVIEW_CELL_CHARACTERS``): past them a cell is a flag, "not read" (a 1 MB list literal cost it 6 s of CPU
  time and 800 MB, unbounded: section 69).
- *Keeping a stand-in*: while a task is graded, the reference's versions of the earlier tasks' functions stand in for
  the learner's (sent as source; never the function being graded, a trainer, or the function of a test cell still to
  be graded). Test cells are graded in the *source's* order whatever the submission's, so a stand-in caught is a
  helper already graded.
- *Computing the hidden inputs*: hypothesis draws them from the course's secret seed (kept in
  ``trusted_grades/hidden_seed`` beside the gradebook, so a regrade draws the same; a fresh one per ``python -m
  bpe_ref grade``), from the seed alone, not from the fixed sequence the public graders show nor the constants of the
  modules loaded so far.
- *Hidden inputs shown back* (open, a strict xfail of section 66): what the learner's code prints after a hidden test
  called its functions (their arguments, recorded) is a cell's output, kept in the autograded notebook and in the
  feedback nbgrader makes of it; a failing test's message holds some text of the learner's too (2,000 characters a
  cell), and the smallest failing input by design. Every notebook graded under the course's seed draws the same
  inputs, so one graded after that feedback was returned (late work, a resubmission) can answer them from a table of
  the reference's answers. No grading tells such a notebook by itself: the instructor grades work handed in after
  feedback went out under a seed of its own (``TrustedExecute.seed_name``, solutions/README.md, section 6).
- *Reaching a class's kept inputs*: in ``nbgrader autograde`` every notebook of a class draws the same inputs, so each
  property test's are drawn once, with the reference's answers, by a run with no learner's code in it, and kept in the
  grading process's memory only; each notebook's calls replay them in order. A notebook that fails one shrinks its
  failure by a fresh run that draws the same inputs, skips those the replay passed and takes the replay's failure at
  the failing one, with the same verdicts and messages (``tests/test_grading_class_inputs.py``). Nothing a notebook
  does changes what is kept for the next. A self-grade draws as it goes. ``python -m bpe_ref autograde --jobs N`` runs
  N such processes at once, each drawing them once from the same seed, which it makes before they start.
- *Making a notebook ungradable*: what the trusted grader writes into the autograded notebook is UTF-8 text (section
  35), and the learner's nbgrader metadata is put back as below.
- *Costing nbgrader outside the budget*: nbgrader's own steps around the trusted grading (validating, copying and writing
  the notebook, the gradebook) cost CPU time and memory per cell, which no ``total_timeout`` bounds (200,000 empty cells:
  76 s and 1.2 GB). A notebook of more cells or outputs than a submission may have (``MAX_CELLS``, ``MAX_OUTPUTS``) is
  refused by the first sanitizing step, ``BoundedSubmission``: not graded, reported (section 47). Reading it before
  that step is nbgrader's, bounded by the exchange's ``max_dir_size`` (100 MB of cells: some 8 GB) and by the count of
  its JSON objects and arrays, made in its text before it is parsed: past ``MAX_JSON_CONTAINERS`` (200,000) the
  autograde's exporter (``BoundedNotebookExporter``) and ``read_notebook`` do not read it (1,000,000 ``{}``: 38 s of
  CPU time and 2.3 GB, section 94).
- *Hiding a flag from the instructor*: every line the reports (``grade --class``, ``grade``) print, and every record
  of nbgrader's console log (``nbgrader_config.py``), has the control and format characters of text the submission
  chose written as escapes (:mod:`bpe_ref.course.printable`): a refused open of a path of cursor and erase codes wiped
  the flagged row (section 25). The reports write right-to-left letters as escapes too (:func:`bpe_ref.course.grade.printed`):
  a terminal that lays text out by Unicode's bidirectional algorithm showed a Hebrew student id's "5 / 100" as
  "100 / 5" (section 57). A line quoting a submission's text (an id, a name) holds at most 2,000 characters
  (``grade.MAX_REPORT_LINE``, section 97), and the self-grade prints a notebook's path escaped (section 100). What the
  report reads of a submission (JSON of a 5,000-digit number or 100,000 levels,
  points past every float, a cell id that is a list) makes it "could not be read" or a flag of its own, never the end
  of the class's report; ``collect`` names such a file (section 58). A cell's code is not hidden from the instructor's
  pages: nbconvert leaves out the source of a cell marked ``transient.remove_source``, a key no Jupyter writes, which
  the trusted grader removes from every cell of the autograded notebook and the review flags (section 59).
- *Running a script where the instructor looks*: nbgrader's pages render a markdown cell's HTML as it is, on an origin
  whose API sets any student's grades. ``nbgrader_config.py`` replaces the exporter's ``markdown2html``
  (:func:`bpe_ref.course.printable.markdown_html`): what markdown makes is kept, HTML written in it is shown as text,
  links go to safe protocols only (section 37), attached images shown from their data if raster, SVG not at all; an
  image from elsewhere (another server's, which would learn who opened which page, and when) is a link (section 99). The
  outputs a submission saved are cleared (``ClearOutput``); those the grader writes are text streams and errors, which
  nbconvert escapes (section 39). nbgrader 0.9.6's formgrader wrote the id of its address into its page's script, ran
  the ``nbgrader_config.py`` of any folder its ``?path=`` named, and served the files handed in beside a notebook, and
  its JSON answers as ``text/html``, on its own origin. The course's config has them escape what they write, opens the
  course it was started in only, and serves those files and every JSON answer sandboxed
  (:func:`bpe_ref.course.printable.guard_nbgrader_server`; ``tests/test_labs_jupyter.py``); a student's server on the
  course's hubs enables it as a server extension. A stored id cannot carry a script either (``LinkFreeCollect``).
- *Hard-coding the visible cases*: every task's hidden test uses inputs the notebook never shows; visible tests are at
  most a third of a lab's points.

Not defended, and said so in every grading report (``grade`` prints the isolation in force):

- Without Landlock and seccomp (macOS, Windows, an old kernel, a container that forbids them), the worker is only a
  separate process with time limits (and rlimits where POSIX has them): its code can read and write what the grading
  user can. Grade a class on Linux, or in a container or VM per batch; ``grade --class`` still compares the gradebook
  with the trusted record and flags every capability use, so tampering is visible, no longer prevented.
- A process that escaped a dead keeper where the worker had neither seccomp nor no-new-privileges is found only by the
  worker's pipes it holds: one that closed them, or hides its fds from ``/proc``, may run on within its rlimits; the
  review says a process was left running. The subreaper tells a learner's process by its confinement, not its sandbox,
  so closing one sandbox also kills what escaped another held at the same time (the graders hold one at a time).
- nbgrader's exchange as the course's hubs set it up (``classroom up``, the z2jh values): every user writes it as one
  account, so a learner can hand in a folder named for a classmate (collect takes the newest, ``check_owner`` off) or
  rewrite the release and the feedback there (solutions/README.md, section 7). The config's ``LinkFreeCollect``
  follows no link there (section 37); leaves out a folder whose time nbgrader cannot read, whose student id holds a
  line break, or nested deeper than 32 levels or 10,000 entries, and a file with other names (a hard link, section
  38); copies a file at its size when opened (section 38); ``grades.csv`` quotes every field (``QuotedCsvExport``,
  section 37). The time handed in, which the late penalty reads, is the later of the folder name's time and the latest
  ctime of the files copied, less a minute (section 38), not the learner's ``timestamp.txt``. Still the learner's:
  which of their folders is taken (the newest by name, with ``before_duedate`` the newest named before the due date),
  and where every user is one account, any classmate's file, its ctime with it. Where each is an account
  (``check_owner``), an entry of a submission's folder that another user put there is left out (section 38).
- A copy of someone else's working code, or a roundabout way to the right answers, earns the points: the grader judges
  answers, not authorship.
- Checks of *how* a function works are measured from outside the worker (its CPU time as the input grows, that of every
  process under its keeper included, live or ended, so that work moved into a child is counted (section 126), processes
  started, bytes read: ``/proc``; inputs left unchanged: the replies, the process's word, see *Faking results*) or
  forced by inputs on which the wrong method cannot answer right or in time. Processes started are seen by looks at
  ``/proc`` every 5 ms (how each was started, from its command line, unless it lies where the
  worker's does, which a fork keeps and nothing moves, ``prctl(PR_SET_MM)`` refused: a fork, whatever its command line
  says, section 80) and counted by the keeper, which the filter sends
  every fork (``clone3`` is refused, so glibc falls back to clone): one that ends between two looks is still counted
  (``"unseen"``, :class:`.measure_worker.ProcessWatch`; Linux 5.5+). What each did is its reads: the keeper reads the
  process's ``rchar`` at its ``exit_group``, before it is reaped into its parent's count, with its parent's pid
  (:meth:`.sandbox.Sandbox.process_ends`); a program started by exec has its start-up's reads left out (up to its
  first open of a file in the scratch folder, /dev/shm, the inputs or /proc, or an fd received), and the bytes it
  mapped of inputs or writable files are added. Lab 03's task 4 measures a call of 2 workers on a fresh 4 MiB file in
  16 chunks, which the grader's ``count_chunk`` makes the workers take in turn (9 of 16 at most, whatever the load): a
  process that read 0.9 of the file, a calling process that read or any that mapped a quarter, or a process that ended
  without ``exit_group`` fails (the taught pool's busiest reads 0.57 to 0.72; section 30). Not caught: the file read
  in parts by several processes (each under 0.9 of it) and handed to one counter through shared memory (but not an
  anonymous shared mapping, refused since section 76), a socket's
  ``recv`` or a pipe a spawned counter reads during its start-up, which no ``rchar`` shows (section 32, strict xfails;
  a pipe read by ``os.read``, ``multiprocessing.shared_memory`` and a mapped file of /dev/shm are caught). No check
  closes it soundly: a pool's semaphores are shared memory and a mapping is counted by its size, not by the bytes that
  pass through it, so refusing the channels shown would narrow it, not close it; each process's CPU time does not tell
  the counter (it may read up to 0.9 of the file itself, the bound the forkserver's imports need; readers that spend
  CPU time for show hide its share; and load spreads CPU time wider than the gap to an honest pool's busiest worker);
  a count of instructions per process (``perf_event_open``) would, but the VMs that run gradings often have no PMU. A
  thread that swaps a path after the keeper resolved it is the keeper's model, as for opens.
  Bytes read (lab 03's "never the whole file") are the kernel's ``rchar`` of every process under the keeper, live, a
  zombie or reaped (:func:`.measure_worker.tree_read_chars`; a count an undumpable process hides makes it unknown, and
  the check fails), on a file drawn from the secret seed for each measured call, whose answer is compared with the
  reference's (section 29); a file's pages mapped instead of read are counted by the keeper, which every file ``mmap``
  and ``mremap`` goes by (section 31; bytes mapped of a grader's input or of a file the worker can write; not counted
  before Linux 5.5); ``splice``/``tee``/``vmsplice`` and Linux's native asynchronous I/O, whose bytes ``rchar``
  misses, are refused (sections 6 and 31). The calls of the learner's helpers (task 3 of labs 04 and 05) are counted
  only in the learner's kernel, as advice (``checks.running.advice``): graded, no point rests on a count; both tests
  measure the method by CPU time against the reference's run, so calls made for show or a forged count lose the points
  (``tests/test_grading_adversarial.py``, ``METHOD_FOR_SHOW``; ``tests/test_mistakes.py``). What only the count saw
  costs no points: lab 04's index built in ``train`` without ``index_words``, lab 05's pop written in ``train``. Lab
  07's short pretokens, where heap and rounds cost the same, are decided by inputs (merges reordered by hand, on which
  the rounds give other tokens; tiktoken's rescan below a threshold is not told apart); so is its measured long run of
  a's, whose heap lacks a drawn share of its entries, so the heap decides which pairs merge (section 33). A measured
  input is shaped as the taught method's real use, so that a wrong method's cost shows: lab 05's pops are 2,000 calls
  in turn on one heap (section 33). Not caught, strict xfails of section 33 whose reasons give the numbers: lab 05's
  V5 with a list kept sorted for its heap (``bisect.insort``, ``pop(0)``: a memmove in C, 0.6 to 2.1 times the
  reference at the measured sizes; telling it needs heaps of some 500,000 entries), and lab 07's heap (O(L log L))
  handed in for lab 08's linear encoders (the same tokens, costs within a factor of log L, less than the spread of
  measured growth; the replay of the merges and a rescan for the best pair per merge in C, quadratic, are caught, by a
  long pretoken of 32,000 bytes: section 7). Both would be told by counts of instructions,
  which the grading machines' VMs often lack. A measurement sees the whole process, so code that recognises the
  measured input and answers it by another method is not caught while its answer is right (measured runs' merges are
  compared with the reference's; those of labs 02, 05, 07 and 08 are drawn from the secret seed).
  Lab 10 grades ``tree_reduce`` and ``count_ranges``' ``as_task`` path by what they build with a function they are
  handed: the graders call them through a driver that calls the notebook's ``tree_reduce`` or ``count_ranges`` itself
  (from the helper's globals), with a ``pair`` or an ``as_task`` of its own that keeps each tuple it returns; a tuple
  of the result that it did not make, by identity, is shown as not made by it (section 40). In the grading worker what
  the driver keeps is the learner's to rewrite (a ``tree_reduce`` that never called combine filed its own tuples in
  the driver's dict, reached through combine's closure: section 49), so no point rests on it there: each tuple the
  driver makes is sealed as it is made by the worker loop's sealing thread (``sealed_by_the_loop``, in the driver's
  namespace: a keyed BLAKE2b under the replies' key, with a person of its own so that none is a reply's seal), over
  the hashes of its items, a node's by its seal; the driver reports each node with its seal, and the graders check
  every seal here, under the sandbox's key, against the items reported under it
  (``checks/lab10_distributed.py``, ``opened_report``): a tuple that was never handed to the sealing thread with
  exactly those items is not made by the function handed in, whatever the driver's report or dict says (both grading
  paths; task 5's tasks the same way). The driver writes a result out as the tree it stands for, so it counts the
  places first, by visits (each tuple once, as the sum of its items'), and raises past ``MOST_PLACES`` (20,000): a
  ``tree_reduce`` of overlapping pairs, whose 2,415 tuples for 70 parts stand for 2**69 leaves, costs the call no time
  and fails as the wrong tree of 3 parts (section 73, DAG replies). What a seal proves is that a node's items were
  handed to the sealing thread, which is all the pair or ``as_task`` call does that anything can see: code that runs
  the pair function's body itself (its namespace, the sealing thread's service among it, is the code's to reach) has made each pair as the
  call does, and nothing in the worker's process tells it from a call (a strict xfail of section 49; combine run
  outside the process, by a call back, would be reached the same way). The seals rest on the key staying with the
  sealing thread: what takes it from there makes any node, a ``MemoryError`` made on that thread (section 34,
  ``test_a_memory_error_on_the_sealing_thread_runs_none_of_the_learner_s_code_there``, open) and native code
  (``ctypes`` reads the keyed hasher's state); the dispatcher's cells, which that thread reads, rewritten by a trace
  function (*Faking results*, open) could run the learner's code there too (the loop no longer holds the dispatcher
  in a frame's locals, where a signal handler's frame reached its writable cells: section 49). What builds a reply looks
  up no name the learner's code can rebind (section 28, *Faking results*); what it encodes, the driver's report, is
  the driver's namespace's, as above. Lab 09's tasks 2 to 5 must
  raise ``ValueError`` on bad input, which their driver (``value_or_error``) writes as ``"raised ValueError"``; a str
  a function returns comes back marked as returned (section 41). Stand-ins and drivers run with the builtins the
  worker had before any of the learner's code ran, and lab 09's default clock is read from the function's own defaults
  and must be the time module's builtin of that name (section 42). The modules they import are the interpreter's,
  whose names the learner's code can rebind, and their globals are reachable through a function they hand in or a
  caller's frame: flagged, not closed. The worker loop reads each request with json's C scanner bound when it is
  loaded, and looks up the builtins as they were then (section 43). Lab 03's driver never calls the count_chunk it is
  handed (a function's ``__module__``, ``__qualname__`` and ``__code__`` are the notebook's to set): it reads the file
  of the function's module and calls the count_chunk defined there, as a spawned worker imports it, in a process of
  its own started by spawn (kept from call to call), not in the notebook's, whose code the module reached through
  ``import __main__``, the frames below it or a shared module's names (sections 42 and 45). Still the learner's: the
  modules the driver starts that process with (``concurrent.futures``, ``multiprocessing``) and tells the grading
  worker by (``sys.flags``: ``-I -S``), whose names a cell can rebind, and a channel of the module's own back to the
  notebook's process; the review flags the rebinding, a hint.
  Lab 09's ``interleaved`` and ``peak_memory`` take functions, so their graders send a *driver* (reference code, as
  source) that builds a fake clock and contenders in the worker, calls the learner's function with them, and reports
  the call order and the collector's state. The learner's function shares the driver's interpreter and can rewrite its
  objects through the closures it is handed, so neither task rests on that report alone (section 14). Task 1 is also
  measured: contenders that keep many objects alive make each collection costly, so the call's CPU time, bounded by
  the reference's, shows a collector left on (10 to 40 times the paused cost). Each collection is counted by what it
  does, a cycle of the driver's freed (a deque that holds itself, reported by a weak reference the driver holds), not
  by a collector callback (section 33); a call in which the collector's count of new objects fell back, the cycle not
  freed, is charged the collections that ran (``gc.freeze()`` in the collector's callbacks, section 36);
  ``gc.get_count`` rebound besides would hide it, flagged for review, as are ``gc.callbacks`` and ``gc.freeze``. Task
  6 gets a function that draws its size when called and seals it with a public key whose private half stays here, so
  the worker cannot read a size back; but code that reads the function's closure seals a size of its own and skips the
  call (section 28, open). The worker's memory measured from outside (``VmHWM``) shows memory held, not which code
  held it, so it would not close this. Disarming these and reaching into a closure or a caller's frame are flagged for
  review (``review.INTROSPECTION``, ``review.ATTRIBUTES``), a hint only.
- Review flags from behaviour are what can be seen from outside: the calls the sandbox refused and the files it
  refused to open, by name and count; processes that left the session, files left in /dev/shm, links or special files
  in the scratch folder; tampering nbgrader restored (a test or read-only cell deleted, edited, made markdown, or the
  nbgrader metadata of any cell of the lab changed: raised points, the grade and solution flags and the schema version
  are put back from the gradebook, and flagged; a graded cell added is a plain cell, flagged; section 35), read in the
  cell nbgrader keeps of a grade_id, the last marked with it, a grade_id marked more than once flagged (section 68); a
  cell holding a grade_id with none of nbgrader's marks is that cell only where no cell holds it marked (the last
  such), else a plain cell (``cells.kept_grade_ids``: nbgrader put its marks back, two test cells of one grade_id, and
  refused the notebook, section 117). What the
  worker's own audit hook notes is flagged as its report, a hint (``Worker.noticing``): a function's ``__code__`` set,
  a code object made (``code.replace``), a function made of one, and a graded function called whose ``__module__`` is
  not its globals' module or whose ``__qualname__`` is not its code's (a decorator's wrapper, ``__wrapped__``, left
  out).
  The seccomp filter sends each call it refuses (io_uring, whose queued operations no filter sees; splice and its kin
  and native asynchronous I/O; System V IPC and the keyrings; another process's limits or scheduling; a socket or a
  datagram ``socketpair``; POSIX message queues, timers and record locks; extended attributes set; huge pages of the kernel's pool
  (``MAP_HUGETLB``, ``MFD_HUGETLB``: in no resident count, section 83); ``prctl(PR_SET_MM)``; a new process or
  program, and ``sendmsg``/``sendmmsg``, where the lab allows none (lab 03's ``sendmmsg`` and the ``sendmsg`` the
  keeper refuses too); a seccomp filter of the worker's own; any call of another architecture's table) to the keeper
  by user notification, which counts it and answers with the filter's error, never lets it run. Every
  ``open``/``openat``/``openat2``/``creat`` goes by the keeper too: it reads the path from the caller's memory,
  resolves it (``/proc/self`` as the caller's; another process's ``/proc`` links not followed), counts it ("read
  PATH", "write PATH") if it lies outside what the worker gave Landlock, less the interpreter's and C library's
  harmless probes, and lets the call go on, so Landlock still decides. The count is the keeper's model, not the
  kernel's answer: a thread that rewrites the path in between is counted for what it held when read. The worker hands
  the notification fd over (the keeper takes it by ``pidfd_getfd`` from Linux 5.6) and closes its copy before any
  learner's code runs; Landlock keeps it from taking the
  keeper's (``pidfd_getfd`` needs ptrace). A report names at most 16 calls and 16 files; every call costs one round
  trip (0.1 to 1 ms) within the notebook's budget; if the keeper dies the kernel refuses every notified call (ENOSYS).
  Without user notification the filter refuses the same calls itself and nothing is counted; before Linux 5.5 opens
  are not watched: the isolation line says which. A keeper report that does not come within 10 s or cannot be read is
  a flag of its own, never a clean record. *Not* counted: other operations Landlock refuses (``unlink``, ``rename``,
  ``mkdir``, ``execve``... outside the scratch folder), a signal or ptrace it scoped. The text of the learner's cells
  (every cell autograde runs as the learner wrote it, as nbgrader's steps leave it: one holding a test cell's metadata
  that becomes a plain cell, section 60; a solution cell made markdown or raw, whose type nbgrader puts back and
  flagged, section 61; a cell of IPython's syntax that is no Python, read as IPython turns it into Python, 5 s of CPU
  time a notebook at most, section 62; the file read as nbformat reads it for autograde, a version-3 notebook's cells
  from its worksheets, not from a ``cells`` key beside them, a version-1 notebook's code from ``code``, section 65)
  is still read for capabilities no lab needs, a hint where behaviour cannot be seen (an import of the reference just
  fails; a hook is no system call, nor is ``json.dumps = ...``), never a finding; a docstring is not read. With
  Landlock ABI < 6 the worker could signal its keeper, and any process of the grading user's (the grading process, a
  classmate's grading under ``--jobs``): a ``SIGKILL`` ends a batch.
- The worker can read the system's shared libraries (``/usr/lib``, on Debian also the system Python's packages);
  nothing of the course is there. Disk use is capped per file (``RLIMIT_FSIZE``) and in total, in bytes and entries,
  by a watcher of the scratch folder.
- The visible tests in the learner's own kernel are advice; a learner can fool them, and only fools themselves.
"""
