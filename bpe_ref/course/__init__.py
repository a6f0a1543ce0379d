"""The course's tooling around the reference package: graders and grading, notebooks, figures,
benchmarks, the command line, interop with the peers. A learner reads the rest of ``bpe_ref``; this is
what the course runs."""
