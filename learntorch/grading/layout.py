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

One learner, one notebook per chapter: when a learner has several files for
one chapter (``01_tensors.ipynb``, ``01_tensors_copy.ipynb``,
``01_tensors_v2.ipynb``), the grader cannot know which one is meant, and
grading each would count the chapter's points several times. Such files make
one :class:`Submission` whose ``duplicates`` names them all; the grader
grades none of them and says so (status ``ambiguous``).
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
    #: Every file this learner handed in for this chapter, when there is more than one (else empty).
    duplicates: tuple[Path, ...] = ()


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
    found: dict[tuple[str, str], list[Submission]] = {}
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
        chapter = _chapter_for(stem, solutions)
        # Keyed by the chapter graded against, not by the file name: 01_tensors_v2 is chapter 01 too.
        key = (learner, chapter if chapter is not None else stem)
        found.setdefault(key, []).append(Submission(learner, stem, path, chapter))
    subs = []
    for (_learner, name), group in found.items():
        if len(group) == 1:
            subs.append(group[0])
        else:
            first = group[0]
            subs.append(Submission(first.learner, name, first.path, first.chapter,
                                   tuple(sub.path for sub in group)))
    return sorted(subs)
