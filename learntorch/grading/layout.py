"""Where submissions are: the three folder layouts the grader accepts.

``SUBMISSIONS`` may be laid out in any of these ways (they may be mixed):

1. one folder per learner: ``SUBMISSIONS/<learner>/<NN_chapter>.ipynb``;
2. files named by learner: ``SUBMISSIONS/<learner>_<NN_chapter>.ipynb``
   (the learner's name is everything before the first ``_NN_``);
3. nbgrader's: ``SUBMISSIONS/<learner>/<assignment>/<NN_chapter>.ipynb``,
   e.g. nbgrader's ``submitted/`` folder (pass that folder, or the course
   folder holding it).

A chapter is named by its notebook: ``01_tensors.ipynb`` is graded against
``solutions/01_tensors.ipynb`` (a name that only shares the ``01`` prefix is
matched by it, and reported). Hidden files and ``.ipynb_checkpoints`` are
ignored; so is any file not named ``NN_...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_CHAPTER = re.compile(r"^(\d\d)_[A-Za-z0-9_.-]*$")
_FLAT = re.compile(r"^(?P<learner>.+?)_(?P<chapter>\d\d_[A-Za-z0-9_.-]*)$")


@dataclass(frozen=True, order=True)
class Submission:
    """One learner's notebook for one chapter; ``chapter`` is the solutions file's stem or None."""

    learner: str
    chapter_name: str  # the stem as submitted, e.g. "01_tensors"
    path: Path
    chapter: str | None  # the solutions notebook it is graded against, e.g. "01_tensors"


def _chapter_for(stem: str, solutions: dict[str, Path]) -> str | None:
    if stem in solutions:
        return stem
    match = _CHAPTER.match(stem)
    if match is None:
        return None
    same_number = [name for name in solutions if name[:2] == match.group(1)]
    return same_number[0] if len(same_number) == 1 else None


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def find_submissions(root: Path, solutions_dir: Path) -> list[Submission]:
    """Every submission under ``root``, sorted by learner then chapter."""
    root = Path(root)
    if (root / "submitted").is_dir():
        root = root / "submitted"
    solutions = {p.stem: p for p in sorted(Path(solutions_dir).glob("*.ipynb"))}
    found: dict[tuple[str, str], Submission] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or not _visible(path, root) or path.suffix != ".ipynb":
            continue
        parts = path.relative_to(root).parts
        stem = path.stem
        if len(parts) == 1:  # learner_NN_chapter.ipynb
            match = _FLAT.match(stem)
            if match is None:
                continue
            learner, stem = match.group("learner"), match.group("chapter")
        elif len(parts) in (2, 3):  # learner/NN_chapter.ipynb, learner/assignment/NN_chapter.ipynb
            learner = parts[0]
            if not _CHAPTER.match(stem):
                continue
        else:
            continue
        key = (learner, stem)
        found.setdefault(key, Submission(learner, stem, path, _chapter_for(stem, solutions)))
    return sorted(found.values())
