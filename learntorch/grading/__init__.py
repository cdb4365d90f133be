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

Nothing is imported here, so that ``python -m learntorch.grading.release``
runs its module once, and importing the package stays cheap.
"""
