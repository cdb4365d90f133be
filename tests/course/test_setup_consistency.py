"""The set-up files agree with one another.

pyproject.toml holds the ranges, requirements/lock.txt the exact versions that
`make setup` installs and `make test` tests, environment.yml the same pins for
conda users. These tests fail when one of them drifts from the others, when a
direct dependency is not locked with ``==``, when numpy leaves the range that
CuPy (the ``cuda`` extra) supports, or when torch -- the test oracle only --
sneaks into the package's dependencies.

Each check is a function that returns a list of problems, so that
``test_checks_catch_drift`` can prove, on doctored copies of the files, that
the checks really fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]

# The extras that `make setup` installs (and so the lock must cover).
LOCKED_EXTRAS = ("lab", "test")

# CuPy 14.x declares `Requires-Dist: numpy<2.6,>=2.0` (cupy-cuda12x 14.2.0).
CUPY_MAJOR = 14
CUPY_NUMPY = SpecifierSet(">=2.0,<2.6")

# conda-forge names that are a different PyPI name.
CONDA_TO_PYPI = {
    "python-graphviz": "graphviz",
    "matplotlib-base": "matplotlib",
    "pytorch": "torch",
}
# conda-forge packages that are not Python packages from PyPI. `graphviz` on
# conda-forge is Graphviz's `dot` program; the Python wrapper is
# `python-graphviz` there and `graphviz` on PyPI.
CONDA_NOT_PYPI = {"python", "pip", "graphviz"}

TORCH_NAMES = {"torch", "pytorch"}


# --------------------------------------------------------------- parsing


def name_of(name: str) -> str:
    return canonicalize_name(name)


def direct_requirements(
    pyproject: dict, extras: tuple[str, ...] = LOCKED_EXTRAS
) -> dict[str, SpecifierSet]:
    """Runtime dependencies plus the given extras: name -> combined range."""
    project = pyproject["project"]
    lines = list(project.get("dependencies", []))
    for extra in extras:
        lines += project.get("optional-dependencies", {})[extra]
    reqs: dict[str, SpecifierSet] = {}
    for line in lines:
        req = Requirement(line)
        name = name_of(req.name)
        reqs[name] = reqs.get(name, SpecifierSet()) & req.specifier
    return reqs


def all_requirement_names(pyproject: dict) -> set[str]:
    """Every name pyproject.toml asks for: dependencies, all extras, build."""
    project = pyproject["project"]
    lines = list(project.get("dependencies", []))
    for group in project.get("optional-dependencies", {}).values():
        lines += group
    lines += pyproject.get("build-system", {}).get("requires", [])
    return {name_of(Requirement(line).name) for line in lines}


def parse_lock(text: str) -> tuple[dict[str, Version], list[str]]:
    """lock.txt -> ({name: pinned version}, [lines that are not `name==version`])."""
    pins: dict[str, Version] = {}
    bad: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;=<>!~]+)", line)
        if m is None:
            bad.append(raw)
            continue
        pins[name_of(m.group(1))] = Version(m.group(2))
    return pins, bad


def parse_environment(text: str) -> tuple[dict[str, str], list[str]]:
    """environment.yml -> ({conda name: version spec}, [pip lines]).

    A small reader for the shape of our environment.yml (a `dependencies`
    list with one nested `pip` list), so the test needs no YAML library.
    """
    conda: dict[str, str] = {}
    pip: list[str] = []
    in_deps = False
    pip_indent: int | None = None
    for raw in text.splitlines():
        line = re.sub(r"\s+#.*$", "", raw).rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            in_deps = line.startswith("dependencies:")
            pip_indent = None
            continue
        if not in_deps:
            continue
        item = line.strip()
        if not item.startswith("- "):
            continue
        item = item[2:].strip()
        if pip_indent is not None and indent > pip_indent:
            pip.append(item)
            continue
        pip_indent = None
        if item == "pip:":
            pip_indent = indent
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)", item)
        if m:
            conda[m.group(1).lower()] = m.group(2).strip()
    return conda, pip


def conda_version(spec: str) -> Version | None:
    """The exact version of a conda spec `=1.2.3` / `==1.2.3`, else None."""
    m = re.fullmatch(r"==?\s*([0-9][^\s=*<>!,|]*)", spec)
    return Version(m.group(1)) if m else None


def environment_pins(text: str) -> tuple[dict[str, Version | None], list[str]]:
    """Python packages of environment.yml, conda and pip sections together:
    ({pypi name: exact version or None}, [pip option lines such as -e .])."""
    conda, pip = parse_environment(text)
    pins: dict[str, Version | None] = {}
    options: list[str] = []
    for name, spec in conda.items():
        if name in CONDA_NOT_PYPI:
            continue
        pins[name_of(CONDA_TO_PYPI.get(name, name))] = conda_version(spec)
    for line in pip:
        if line.startswith("-"):
            options.append(line)
            continue
        req = Requirement(line)
        exact = [s.version for s in req.specifier if s.operator == "=="]
        pins[name_of(req.name)] = Version(exact[0]) if len(exact) == 1 else None
    return pins, options


# ---------------------------------------------------------------- checks


def lock_problems(pyproject: dict, lock_text: str) -> list[str]:
    pins, bad = parse_lock(lock_text)
    problems = [f"lock.txt: not an exact `name==version` pin: {line!r}" for line in bad]
    for name, spec in direct_requirements(pyproject).items():
        if name not in pins:
            problems.append(f"lock.txt does not pin {name} (pyproject: {spec or 'any'})")
        elif not spec.contains(pins[name], prereleases=True):
            problems.append(f"lock.txt pins {name}=={pins[name]}, outside pyproject's {spec}")
    if "make lock" not in "\n".join(lock_text.splitlines()[:10]):
        problems.append("lock.txt: the header should say it is generated by `make lock`")
    return problems


def environment_problems(pyproject: dict, lock_text: str, env_text: str) -> list[str]:
    pins, _ = parse_lock(lock_text)
    env, options = environment_pins(env_text)
    conda, _ = parse_environment(env_text)
    problems = []
    for name, spec in direct_requirements(pyproject).items():
        if name not in env:
            problems.append(f"environment.yml lacks {name}")
            continue
        version = env[name]
        if version is None:
            problems.append(f"environment.yml: {name} has no exact pin")
            continue
        if not spec.contains(version, prereleases=True):
            problems.append(f"environment.yml: {name} {version} is outside pyproject's {spec}")
        if name in pins and version != pins[name]:
            problems.append(
                f"environment.yml pins {name} {version}, lock.txt pins {pins[name]}"
            )
    if conda.get("python", "").lstrip("=") != "3.11":
        problems.append("environment.yml: python=3.11 expected (the lock is for 3.11)")
    if "graphviz" not in conda:
        problems.append("environment.yml: conda package graphviz (the dot program) missing")
    if "-e ." not in options:
        problems.append("environment.yml: pip section should install learntorch with `-e .`")
    return problems


def cupy_numpy_problems(pyproject: dict, lock_text: str) -> list[str]:
    problems = []
    cuda = pyproject["project"].get("optional-dependencies", {}).get("cuda", [])
    cupy = [Requirement(r) for r in cuda if name_of(Requirement(r).name).startswith("cupy")]
    if len(cupy) != 1:
        return [f"the cuda extra should hold exactly one cupy requirement, has {cuda}"]
    cupy_spec = cupy[0].specifier
    if not (
        cupy_spec.contains(f"{CUPY_MAJOR}.0.0")
        and not cupy_spec.contains(f"{CUPY_MAJOR - 1}.6.0")
        and not cupy_spec.contains(f"{CUPY_MAJOR + 1}.0.0")
    ):
        problems.append(
            f"cuda extra {cupy[0]} is not CuPy {CUPY_MAJOR}.x, whose numpy range "
            f"({CUPY_NUMPY}) these checks know"
        )
    numpy_spec = direct_requirements(pyproject, extras=())["numpy"]
    for outside in ("1.26.4", "2.6.0"):
        if numpy_spec.contains(outside):
            problems.append(
                f"pyproject admits numpy {outside}, outside CuPy {CUPY_MAJOR}'s {CUPY_NUMPY}"
            )
    pins, _ = parse_lock(lock_text)
    if "numpy" not in pins:
        problems.append("lock.txt does not pin numpy")
    elif not CUPY_NUMPY.contains(pins["numpy"]):
        problems.append(f"lock.txt numpy=={pins['numpy']} is outside CuPy's {CUPY_NUMPY}")
    return problems


def torch_problems(pyproject: dict, lock_text: str, env_text: str = "") -> list[str]:
    problems = []
    for name in all_requirement_names(pyproject) & TORCH_NAMES:
        problems.append(f"pyproject.toml asks for {name}: torch is the test oracle only")
    pins, _ = parse_lock(lock_text)
    for name in pins.keys() & TORCH_NAMES:
        problems.append(f"lock.txt pins {name}: torch is the test oracle only")
    if env_text:
        env, _ = environment_pins(env_text)
        conda, _ = parse_environment(env_text)
        for name in (env.keys() | conda.keys()) & TORCH_NAMES:
            problems.append(f"environment.yml installs {name}: torch is the test oracle only")
    return problems


# ----------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def lock_text() -> str:
    return (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def env_text() -> str:
    return (ROOT / "environment.yml").read_text(encoding="utf-8")


def test_lock_pins_every_direct_dependency_exactly(pyproject, lock_text):
    assert lock_problems(pyproject, lock_text) == []


def test_environment_yml_matches_lock_and_ranges(pyproject, lock_text, env_text):
    assert environment_problems(pyproject, lock_text, env_text) == []


def test_numpy_inside_cupy_supported_range(pyproject, lock_text):
    assert cupy_numpy_problems(pyproject, lock_text) == []


def test_torch_is_never_a_dependency(pyproject, lock_text, env_text):
    assert torch_problems(pyproject, lock_text, env_text) == []


def test_oracle_is_exactly_torch_2_13_0():
    text = (ROOT / "requirements" / "oracle.txt").read_text(encoding="utf-8")
    lines = [l.split("#", 1)[0].strip() for l in text.splitlines()]
    assert [l for l in lines if l] == ["torch==2.13.0"]


def test_extras(pyproject):
    extras = pyproject["project"]["optional-dependencies"]
    assert {"cuda", "test", "lab", "dist", "dev"} <= extras.keys()
    dev = [Requirement(r) for r in extras["dev"]]
    covered = set()
    for req in dev:
        if name_of(req.name) == "learntorch":
            covered |= req.extras
        else:
            covered.add(name_of(req.name))
    assert {"lab", "test"} <= covered, f"dev extra should combine lab and test: {extras['dev']}"
    assert "cuda" not in covered, "dev must not pull CuPy (needs an NVIDIA GPU)"


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [
        l.strip() for l in ci.splitlines() if l.strip() and not l.lstrip().startswith(("#", "set ", "cd "))
    ]
    # `make browser` first: the headless browser for tests/course/test_browser.py (a
    # learner's `make test` does not need it; that test skips without it).
    assert commands == ["make browser", "make test"], commands
    assert "make test" in readme and "make browser" in readme
    assert "set -euo pipefail" in ci


def test_checks_catch_drift(pyproject, lock_text, env_text):
    """The checks above are not vacuous: doctored copies of the files fail them."""
    # environment.yml drifted from the lock.
    drifted_env = env_text.replace("numpy==2.4.6", "numpy==2.4.5")
    assert drifted_env != env_text
    assert any("numpy" in p for p in environment_problems(pyproject, lock_text, drifted_env))
    # environment.yml lost a dependency, or its pin.
    dropped = re.sub(r"(?m)^\s*- nbval==.*\n", "", env_text)
    assert any("nbval" in p for p in environment_problems(pyproject, lock_text, dropped))
    unpinned = env_text.replace("tqdm==", "tqdm>=")
    assert any("tqdm" in p for p in environment_problems(pyproject, lock_text, unpinned))
    # The python-graphviz spelling counts as the graphviz package.
    conda_spelled = env_text.replace("      - graphviz==0.21\n", "").replace(
        "  - graphviz ", "  - python-graphviz=0.21\n  - graphviz "
    )
    assert conda_spelled != env_text
    assert environment_problems(pyproject, lock_text, conda_spelled) == []
    # lock.txt with a range instead of a pin, a missing pin, a pin outside the range.
    ranged = re.sub(r"(?mi)^numpy==.*$", "numpy>=2.0", lock_text)
    assert any("numpy" in p for p in lock_problems(pyproject, ranged))
    missing = re.sub(r"(?mi)^tqdm==.*\n", "", lock_text)
    assert any("tqdm" in p for p in lock_problems(pyproject, missing))
    outside = re.sub(r"(?mi)^numpy==.*$", "numpy==2.6.1", lock_text)
    assert any("numpy" in p for p in lock_problems(pyproject, outside))
    assert any("numpy" in p for p in cupy_numpy_problems(pyproject, outside))
    # pyproject widening numpy past CuPy's range.
    wide = {**pyproject, "project": {**pyproject["project"]}}
    wide["project"]["dependencies"] = [
        "numpy>=2.0" if d.startswith("numpy") else d for d in pyproject["project"]["dependencies"]
    ]
    assert any("2.6.0" in p for p in cupy_numpy_problems(wide, lock_text))
    # torch sneaking in, anywhere.
    assert torch_problems(pyproject, lock_text + "torch==2.13.0\n")
    with_torch = {**pyproject, "project": {**pyproject["project"]}}
    with_torch["project"]["optional-dependencies"] = {
        **pyproject["project"]["optional-dependencies"],
        "test": [*pyproject["project"]["optional-dependencies"]["test"], "torch==2.13.0"],
    }
    assert torch_problems(with_torch, lock_text)
    assert torch_problems(pyproject, lock_text, env_text.replace("  - pip\n", "  - pip\n  - pytorch\n"))
