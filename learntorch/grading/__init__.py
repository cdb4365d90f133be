"""Exercise release and grading for the course's notebooks.

``solutions/`` holds the instructor's notebooks, marked with nbgrader's cell
metadata and ``### BEGIN SOLUTION`` / ``### BEGIN HIDDEN TESTS`` regions, so
that an instructor may also use nbgrader itself on them. This package makes
the learner's ``exercises/`` from them and checks, by executing notebooks,
that the solutions earn full marks and the untouched exercises none.

Modules:

- ``notebooks``: reading and writing notebooks byte-for-byte reproducibly,
  nbgrader cell metadata, and its validation.
- ``release``: ``solutions/`` -> ``exercises/`` (``make exercises``) and the
  check that the two are in step (``python -m learntorch.grading.release``).
- ``execute``: one run of a notebook in a fresh kernel.
- ``checks``: grading a run, grading a learner's answers against the hidden
  tests, and finding ``raises-exception`` cells that do not raise.
- ``pytest_plugin``: a session cache so that tests execute each notebook once.

Grading a class (``python -m learntorch.grading``, ``make grade``):

- ``layout``: where submissions are (per-learner folders, ``learner_NN_name``
  files, nbgrader's ``submitted/``).
- ``grader``: a class -> gradebook CSV and feedback; caching, parallelism,
  and the threat model (what a learner's code can and cannot do).
- ``verdict``: the instrumented notebook a kernel runs, and the verdicts the
  grader reaches outside it by comparing values with the instructor's.
- ``probe``: the recording checks sent into the kernel as source.
- ``runner``: one run of one notebook in its own process, under time and
  output limits.
- ``sandbox``: the kernel launcher (memory and CPU limits, a clean
  environment, Landlock confinement to the scratch folder).

Nothing is imported here, so that ``python -m learntorch.grading.release``
runs its module once, and importing the package stays cheap.
"""
