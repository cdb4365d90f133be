"""``make lab`` as a learner meets it, in a real (headless) browser.

The other tests run the notebooks with nbval, which never starts JupyterLab:
they cannot see a notebook that opens on a kernel picker, a picture that does
not render, or an error that only shows on the page.  This test does what a
learner does after ``make lab``:

1. starts JupyterLab from the project's virtual environment, as the
   Makefile's ``lab`` target does (on a copy of ``notebooks/``, so running
   the cells does not change the stored chapters);
2. opens chapter 02 in headless Chromium, clears the stored outputs and runs
   every cell from the menu (Run -> Run All Cells);
3. checks that every code cell ran once, in order, in one kernel; that the
   backward-graph pictures (Graphviz SVG) are on the page; and that the only
   errors are those of the cells tagged ``raises-exception`` (the chapter
   shows some errors on purpose);
4. builds chapter 02's slide deck as ``make slides`` does, opens it from disk
   (``file://``) with the browser's network switched off, counts its slides
   (against the notebook's slide metadata), finds its maths typeset and its
   graphs drawn, and checks that every request it made was for a local file.

It can save screenshots of what it saw: set ``LEARNTORCH_SCREENSHOTS`` to a
folder (``LEARNTORCH_SCREENSHOTS=docs/screenshots`` makes the README's
pictures); otherwise they go to pytest's temporary folder.

It needs Debian's ``chromium`` and ``chromium-driver`` (``make browser``
installs them as root) and Selenium (in the lock).  Selenium is pointed at
those two programs, so Selenium Manager downloads nothing.  Where one of them
is missing the test skips and says which.
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
CHAPTER = "02_autograd"
CHROMIUM = Path(os.environ.get("LEARNTORCH_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("LEARNTORCH_CHROMEDRIVER", "/usr/bin/chromedriver"))
INSTALL_HINT = ("install Debian's chromium and chromium-driver: `make browser` as root, "
                "or `sudo apt-get install chromium chromium-driver`")

# Seconds: JupyterLab's start, the whole notebook's run. Generous for a
# loaded 2-core machine; the whole test takes about a minute.
SERVER_START_S = 120
RUN_ALL_S = 180

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


# ----------------------------------------------------------------------------- what is needed
def _need_browser() -> Any:
    """Selenium's ``webdriver`` module, or skip saying what is missing."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (it is in requirements/lock.txt: make setup)")
    for program in (CHROMIUM, CHROMEDRIVER):
        if not (program.is_file() and os.access(program, os.X_OK)):
            pytest.skip(f"{program} not found: this test drives Debian's Chromium; {INSTALL_HINT}")
    return webdriver


def _jupyter() -> Path:
    """The ``jupyter`` next to this Python (the project's .venv), or skip."""
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.is_file():
        pytest.skip(f"no `jupyter` next to {sys.executable}: run the tests from the project's .venv (make test)")
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed in this Python (make setup)")
    return jupyter


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what: str, check: Callable[[], Any], timeout: float, every: float = 0.25) -> Any:
    """Poll ``check()`` until it returns something truthy; fail saying ``what`` otherwise."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = check()
        except Exception as err:  # noqa: BLE001 -- a page or server still starting
            last_error, result = err, None
        if result:
            return result
        time.sleep(every)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}"
                + (f" (last error: {last_error!r})" if last_error else ""))


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $LEARNTORCH_SCREENSHOTS (relative to the repository), else a temporary folder."""
    wanted = os.environ.get("LEARNTORCH_SCREENSHOTS")
    folder = (REPO / wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Debian Chromium through Selenium, with no way to look up a host name.

    ``--host-resolver-rules`` makes every host but 127.0.0.1 unreachable, so a
    page that needs the network (a CDN) fails here as it would in a lecture
    hall without one.  JupyterLab listens on 127.0.0.1.  The
    other flags keep Chromium from calling home (see the module docstring)."""
    webdriver = _need_browser()
    from selenium.webdriver.chrome.service import Service

    profile = tmp_path_factory.mktemp("chromium-profile")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-extensions",
                 "--disable-default-apps", "--window-size=1400,1000", "--force-device-scale-factor=1",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    # Every request the pages make, for the check that a deck needs no network.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    log = tmp_path_factory.mktemp("chromedriver") / "chromedriver.log"
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER), log_output=str(log)), options=options)
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A JupyterLab server started as ``make lab`` starts it, on a copy of notebooks/.

    Yields ``{"url", "token", "root", "log"}``.  The server gets its own Jupyter
    config, data, runtime, settings and workspace folders (so a learner's own
    ~/.jupyter changes nothing here and nothing is written there), with one
    setting: do not ask about fetching Jupyter's news (a pop-up over the page)."""
    _need_browser()  # no browser: skip before paying for a server
    jupyter = _jupyter()
    home = tmp_path_factory.mktemp("lab")
    root = home / "course"
    shutil.copytree(REPO / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = dict(os.environ,
               JUPYTER_PREFER_ENV_PATH="1",  # as the Makefile exports: the venv's kernels first
               JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               PYTHONUNBUFFERED="1")
    port, token = _free_port(), base64.b32encode(os.urandom(15)).decode().lower()
    cmd = [str(jupyter), "lab", f"--ServerApp.root_dir={root}", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")  # as the Makefile's ROOT_FLAG
    log_path = home / "jupyterlab.log"
    url = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def ready() -> bool:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with {server.returncode}:\n{log_path.read_text()[-3000:]}")
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as answer:
                return answer.status == 200
        _wait("JupyterLab to answer on /api/status", ready, SERVER_START_S)
        yield {"url": url, "token": token, "root": root, "log": log_path}
    finally:
        _stop_server(server, url, token)


def _stop_server(server: subprocess.Popen, url: str, token: str) -> None:
    """Ask the server to shut down (it stops its kernels), then insist."""
    if server.poll() is None:
        try:
            request = urllib.request.Request(f"{url}/api/shutdown", method="POST",
                                             headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(request, timeout=10).close()
            server.wait(timeout=20)
        except (OSError, urllib.error.URLError, subprocess.TimeoutExpired):
            pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if server.poll() is not None:
            break
        try:
            os.killpg(server.pid, sig)  # the server and anything it started in its session
        except ProcessLookupError:
            break
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            continue


# ----------------------------------------------------------------------------- the page
# One look at the notebook on the page: per cell its kind, prompt and outputs.
# JupyterLab renders an SVG output as an <img> whose src is the SVG as a data: URL.
CELL_SELECTOR = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-viewport > .jp-Cell"
_CELLS_JS = r"""
const cells = Array.from(document.querySelectorAll(arguments[0]));
return cells.map((cell, index) => {
  const outputs = Array.from(cell.querySelectorAll('.jp-OutputArea-output')).map(out => {
    const imgs = Array.from(out.querySelectorAll('img')).map(img => ({
      svg: img.src.startsWith('data:image/svg+xml') ? decodeURIComponent(img.src.split(',', 2)[1]).slice(0, 4000) : '',
      complete: img.complete, width: img.naturalWidth, height: img.naturalHeight}));
    return {mime: out.getAttribute('data-mime-type') || '', text: (out.textContent || '').slice(0, 2000), imgs,
            inlineSvg: out.querySelectorAll('svg').length};
  });
  const prompt = cell.querySelector('.jp-InputPrompt');
  return {index, code: cell.classList.contains('jp-CodeCell'),
          prompt: prompt ? prompt.textContent.trim() : '', outputs};
});
"""


def _cells(driver: Any) -> list[dict[str, Any]]:
    return driver.execute_script(_CELLS_JS, CELL_SELECTOR)


def _menu(driver: Any, menu: str, item: str) -> None:
    """Click ``menu`` in JupyterLab's menu bar, then its entry ``item``, as a learner does."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 30)
    wait.until(EC.element_to_be_clickable(
        (By.XPATH, f"//li[contains(@class,'lm-MenuBar-item')][.//div[normalize-space()='{menu}']]"))).click()
    wait.until(EC.element_to_be_clickable(
        (By.XPATH, f"//li[contains(@class,'lm-Menu-item')][.//div[contains(@class,'lm-Menu-itemLabel')"
                   f" and normalize-space()='{item}']]"))).click()


def _scrolled_to(driver: Any, element: Any) -> bool:
    """Scroll ``element`` to the top of its notebook; True once it stays there.

    Cells off screen have an estimated height until drawn, so one scroll can
    land short: scroll again until the element is where it was put."""
    return driver.execute_script("""
        const el = arguments[0], before = el.getBoundingClientRect().top;
        el.scrollIntoView({block: 'start'});
        const after = el.getBoundingClientRect().top;
        return Math.abs(after - before) < 1 && after >= 0 && after < 300;""", element)


def _kernel_state(lab: dict[str, Any]) -> set[str]:
    with urllib.request.urlopen(f"{lab['url']}/api/kernels?token={lab['token']}", timeout=5) as answer:
        return {k["execution_state"] for k in json.load(answer)}


# ----------------------------------------------------------------------------- the tests
@contextlib.contextmanager
def _evidence(driver: Any, shot: Path, log: Path | None = None) -> Iterator[None]:
    """On a failure, keep what the browser showed (a screenshot) and the end of JupyterLab's log."""
    try:
        yield
    except Exception as err:
        with contextlib.suppress(Exception):
            driver.save_screenshot(str(shot))
            err.add_note(f"what the browser showed: {shot}")
        if log is not None and log.is_file():
            err.add_note("the end of JupyterLab's log:\n" + log.read_text(errors="replace")[-3000:])
        raise


def test_chapter_02_runs_in_jupyterlab(lab: dict[str, Any], browser: Any, screenshots: Path,
                                       tmp_path: Path) -> None:
    """Open chapter 02 in JupyterLab, run all its cells, find its graphs and only its intended errors."""
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's `dot` is not installed, so the chapter cannot draw its graphs (make dot)")
    with _evidence(browser, tmp_path / "failed.png", lab["log"]):
        _check_chapter(lab, browser, screenshots)


def _check_chapter(lab: dict[str, Any], driver: Any, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    stored = nbformat.read(REPO / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    code_cells = [i for i, c in enumerate(stored.cells) if c.cell_type == "code"]
    tagged = {i for i in code_cells if "raises-exception" in stored.cells[i].metadata.get("tags", [])}
    assert tagged, "chapter 02 is expected to show at least one error on purpose (a raises-exception cell)"

    t0 = time.monotonic()
    driver.get(f"{lab['url']}/lab/tree/notebooks/{CHAPTER}.ipynb?token={lab['token']}")
    # The notebook is open and its kernel has started.  (JupyterLab attaches
    # the cells to the page a few at a time, in idle moments: the last ones
    # come later, while the cells run.)
    WebDriverWait(driver, 90).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']")))
    _wait("the notebook's kernel to start", lambda: _kernel_state(lab) == {"idle"}, 90)
    _wait("the notebook's first cells on the page", lambda: len(_cells(driver)) >= 3, 60)
    opened = time.monotonic() - t0

    # Clear the stored outputs, so what is checked below is what this run made.
    _menu(driver, "Edit", "Clear Outputs of All Cells")
    _wait("the stored outputs to be cleared",
          lambda: all(not c["outputs"] and c["prompt"] == "[ ]:" for c in _cells(driver) if c["code"]), 30)

    started = time.monotonic()
    _menu(driver, "Run", "Run All Cells")

    stopped_since: list[float] = []

    def all_ran() -> list[dict[str, Any]] | None:
        cells = _cells(driver)
        prompts = [c["prompt"] for c in cells if c["code"]]
        ran = [p.strip("[]:").isdigit() for p in prompts]
        idle = _kernel_state(lab) == {"idle"}
        if len(cells) == len(stored.cells) and all(ran):
            return cells if idle else None
        # Run All stops at an error in a cell not tagged raises-exception: the
        # cells still queued ([*]) go back to [ ].  Say where, without waiting
        # for the time limit.
        if idle and any(ran) and "[*]:" not in prompts and "[ ]:" in prompts:
            stopped_since.append(time.monotonic())
            if stopped_since[-1] - stopped_since[0] > 5:
                errors = {c["index"]: [o["text"][-500:] for o in c["outputs"]
                                       if o["mime"] == "application/vnd.jupyter.stderr"] for c in cells}
                pytest.fail("Run All stopped before the end; cells with errors: "
                            f"{ {i: e for i, e in errors.items() if e} }")
        else:
            stopped_since.clear()
        return None

    cells = _wait("every code cell on the page, run, and the kernel idle", all_ran, RUN_ALL_S, every=0.5)
    print(f"\nchapter {CHAPTER}: opened in {opened:.1f} s; cleared in {started - t0 - opened:.1f} s; "
          f"{len(code_cells)} code cells ran in {time.monotonic() - started:.1f} s")

    # Every code cell ran exactly once, in order, in one fresh kernel: [1], [2], ...
    counts = [int(c["prompt"].strip("[]:")) for c in cells if c["code"]]
    assert counts == list(range(1, len(code_cells) + 1)), counts

    # Errors: exactly the cells tagged raises-exception show one, and no other
    # cell writes to stderr (JupyterLab shows errors and stderr alike, as
    # application/vnd.jupyter.stderr).
    stderr = {c["index"]: [o["text"] for o in c["outputs"] if o["mime"] == "application/vnd.jupyter.stderr"]
              for c in cells}
    stray = {i: texts for i, texts in stderr.items() if texts and i not in tagged}
    assert not stray, f"cells not tagged raises-exception wrote errors or stderr: {stray}"
    for i in sorted(tagged):
        errors = [t for t in stderr[i] if "Traceback" in t or "Error" in t]
        assert len(errors) == 1, f"cell {i} is tagged raises-exception but shows {len(errors)} errors: {stderr[i]}"
        want = stored.cells[i].outputs[-1]
        assert want.output_type == "error" and want.ename in errors[0], (want, errors[0])

    # The backward-graph pictures: Graphviz SVGs, rendered, with autograd's nodes.
    graph_cells = [i for i in code_cells
                   if any("image/svg+xml" in o.get("data", {}) for o in stored.cells[i].outputs)]
    assert graph_cells, "chapter 02 is expected to draw graphs"
    rendered = {}
    for c in cells:
        for o in c["outputs"]:
            for img in o["imgs"]:
                if "<svg" in img["svg"] and "Generated by graphviz" in img["svg"]:
                    assert img["complete"] and img["width"] > 50 and img["height"] > 50, (c["index"], img)
                    rendered[c["index"]] = img["svg"]
    assert sorted(rendered) == graph_cells, (sorted(rendered), graph_cells)
    assert any("AccumulateGrad" in svg and "Backward0" in svg for svg in rendered.values())

    # Screenshots: the chapter's first section (a heading, code and what it
    # printed), and one graph.
    first_output = next(i for i in code_cells if stored.cells[i].outputs)
    heading = max(i for i in range(first_output) if stored.cells[i].source.startswith("#"))
    _wait("the chapter's first section in view", lambda: _scrolled_to(
        driver, driver.find_elements(By.CSS_SELECTOR, CELL_SELECTOR)[heading]), 20)
    driver.save_screenshot(str(screenshots / "jupyterlab_chapter.png"))
    # The picture for the README: a graph that fits the window (with its code above it).
    heights = {c["index"]: max(img["height"] for o in c["outputs"] for img in o["imgs"])
               for c in cells if c["index"] in rendered}
    room = driver.execute_script(
        "return document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer').clientHeight")
    fits = [i for i in graph_cells if heights[i] <= room - 150]
    shown = max(fits, key=heights.get) if fits else min(graph_cells, key=heights.get)
    graph = driver.find_elements(By.CSS_SELECTOR, CELL_SELECTOR)[shown]
    _wait("the graph to be in view", lambda: _scrolled_to(driver, graph), 20)
    graph.screenshot(str(screenshots / "jupyterlab_graph.png"))
    print(f"chapter {CHAPTER}: checked and photographed after {time.monotonic() - t0:.1f} s")


# ----------------------------------------------------------------------------- the slides
def _expected_slides(nb: Any) -> int:
    """How many slides reveal.js shows for ``nb``, by nbconvert's rule.

    The first cell that is not ``skip`` or ``notes`` starts the first slide;
    after it, each ``slide`` or ``subslide`` cell starts one more (a vertical
    one for ``subslide``).  ``Reveal.getTotalSlides()`` counts both kinds."""
    kinds = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in nb.cells]
    first = next(i for i, k in enumerate(kinds) if k not in ("skip", "notes"))
    return 1 + sum(k in ("slide", "subslide") for k in kinds[first + 1:])


def _build_deck(notebook: Path, out: Path) -> Path:
    """Build ``notebook``'s deck with the course's builder (what `make slides` runs), into ``out``."""
    builder = REPO / "scripts" / "build_site.py"
    if not builder.is_file():
        pytest.skip(f"{builder.relative_to(REPO)} (make slides) is not there")
    done = subprocess.run([sys.executable, str(builder), "slides", "--out", str(out), str(notebook)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    if done.returncode == 2:  # reveal.js/MathJax not installed and npm cannot install them
        pytest.skip(f"make slides cannot build here: {done.stderr.strip()[-500:]}")
    assert done.returncode == 0, f"make slides failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    deck = out / f"{notebook.stem}.slides.html"
    assert deck.is_file(), f"make slides wrote no {deck.name}:\n{done.stdout}"
    return deck


def _requested_urls(driver: Any, page: str = "") -> list[str]:
    """The URLs that ``page`` (a URL prefix) asked for since the last call, from Chromium's performance log."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            if params.get("documentURL", "").startswith(page):
                urls.append(params["request"]["url"])
    return urls


def test_slide_deck_opens_offline(browser: Any, screenshots: Path, tmp_path: Path) -> None:
    """Chapter 02's deck, opened from disk with the network off: every slide, its maths and its graphs."""
    with _evidence(browser, tmp_path / "failed.png"):
        _check_deck(browser, screenshots, tmp_path)


def _check_deck(driver: Any, screenshots: Path, tmp_path: Path) -> None:
    notebook = REPO / "notebooks" / f"{CHAPTER}.ipynb"
    stored = nbformat.read(notebook, as_version=4)
    expected = _expected_slides(stored)
    assert expected >= 10, f"chapter 02 has slide metadata for only {expected} slides (scripts/slide_metadata.py)"
    graphs = sum("image/svg+xml" in o.get("data", {}) for c in stored.cells for o in c.get("outputs", []))
    has_maths = any(c.cell_type == "markdown" and "$" in c.source for c in stored.cells)
    deck = _build_deck(notebook, tmp_path / "slides")

    driver.get("about:blank")
    _requested_urls(driver)  # forget what came before
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        driver.get(deck.as_uri())
        _wait("reveal.js to start", lambda: driver.execute_script(
            "return typeof Reveal !== 'undefined' && Reveal.isReady()"), 60)
        total = driver.execute_script("return Reveal.getTotalSlides()")
        assert total == expected, f"the deck shows {total} slides, the notebook's metadata makes {expected}"

        if has_maths:  # MathJax, from the local copy, typeset the formulas
            _wait("MathJax to typeset the maths", lambda: driver.execute_script(
                "return !!(window.MathJax && MathJax.startup && MathJax.startup.document"
                " && document.querySelectorAll('mjx-container').length)"), 60)
        pictures = driver.execute_script("""
            return Array.from(document.querySelectorAll('.reveal img[src^="data:image/svg+xml"]')).map(img =>
              ({graphviz: atob(img.src.split(',', 2)[1]).includes('Generated by graphviz'),
                width: img.naturalWidth, complete: img.complete}));""")
        assert len(pictures) == graphs and all(p["graphviz"] and p["complete"] and p["width"] > 50
                                               for p in pictures), pictures

        urls = _requested_urls(driver, page=deck.as_uri())
        assert len(urls) >= 3, f"Chromium's log shows too few requests for the check to mean anything: {urls}"
        online = [u for u in urls if u.split(":", 1)[0] not in ("file", "data", "blob", "about")]
        assert not online, f"the deck asked the network for {online}"

        # The picture for the README: the first slide with maths that fits the screen, else the title.
        driver.execute_script("Reveal.configure({transition: 'none'}); Reveal.slide(0, 0);")
        leaves = """Array.from(document.querySelectorAll('.reveal .slides section'))
                    .filter(s => !s.querySelector('section'))"""
        for h, v in driver.execute_script(f"return {leaves}.filter(s => s.querySelector('mjx-container'))"
                                          ".map(s => Reveal.getIndices(s)).map(i => [i.h, i.v || 0]);"):
            driver.execute_script("Reveal.slide(arguments[0], arguments[1]);", h, v)
            if driver.execute_script("const s = Reveal.getCurrentSlide(); return s.scrollHeight <= s.clientHeight + 2;"):
                break
        else:
            driver.execute_script("Reveal.slide(0, 0);")
        _wait("the slide to be shown", lambda: driver.execute_script(
            "const s = Reveal.getCurrentSlide(); return !!s && s.classList.contains('present')"), 10)
        driver.save_screenshot(str(screenshots / "slide.png"))
        print(f"\nslides: {total} slides, {len(pictures)} graphs, {len(urls)} requests, all local")
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
