"""Build the course's slide decks (`make slides`) and its static website (`make site`).

Both run offline once built: every script and stylesheet is a local file next
to the pages, never a CDN, so a deck opened from a USB stick in a lecture hall
without network still shows its slides and its maths.

    .venv/bin/python scripts/build_site.py slides [--out build/slides] [NOTEBOOK ...]
    .venv/bin/python scripts/build_site.py site   [--out build/site]

Where the pieces come from:

- The slides are the chapter notebooks themselves: each cell's
  ``slideshow.slide_type`` (set by scripts/slide_metadata.py) says where a
  slide starts. nbconvert's SlidesExporter turns them into reveal.js decks,
  with the template in web/templates/learntorch_reveal (local scripts only).
- reveal.js and MathJax come from the npm registry, pinned in
  web/package.json and web/package-lock.json. The first build runs
  ``npm ci`` into web/node_modules (ignored by git); later builds reuse it.
  Without ``npm`` the build stops with a message saying how to get it.
- The website is nbconvert's HTML ("lab" template, web/templates/learntorch_lab)
  of every chapter and exercise notebook with their stored outputs (graphs are
  SVG outputs already), a navigation bar, an index page with the table of
  contents and a client-side search (a JavaScript index written next to it,
  so that it also works from file://, where browsers refuse fetch()), the
  glossary (docs/glossary.md) and the slide decks.
"""

from __future__ import annotations

import argparse
import fcntl
import html
import json
import re
import shutil
import subprocess
import sys
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import mistune
import nbformat
from nbconvert import HTMLExporter, SlidesExporter

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
TEMPLATES = WEB / "templates"
NODE_MODULES = WEB / "node_modules"

#: Files copied from web/node_modules next to the pages: (source, destination).
REVEAL_ASSETS = [
    ("reveal.js/dist/reveal.js", "reveal.js/dist/reveal.js"),
    ("reveal.js/dist/reveal.css", "reveal.js/dist/reveal.css"),
    ("reveal.js/dist/theme/white.css", "reveal.js/dist/theme/white.css"),
    ("reveal.js/dist/theme/fonts/source-sans-pro", "reveal.js/dist/theme/fonts/source-sans-pro"),
    ("reveal.js/plugin/notes/notes.js", "reveal.js/plugin/notes/notes.js"),
    ("reveal.js/LICENSE", "reveal.js/LICENSE"),
]
MATHJAX_ASSETS = [
    # The combined TeX + CommonHTML build needs no other component at run
    # time, only its fonts, which it finds relative to its own URL.
    ("mathjax/es5/tex-chtml-full.js", "mathjax/tex-chtml-full.js"),
    ("mathjax/es5/output/chtml/fonts/woff-v2", "mathjax/output/chtml/fonts/woff-v2"),
    ("mathjax/LICENSE", "mathjax/LICENSE"),
]
MATHJAX_JS = "mathjax/tex-chtml-full.js"


class WebAssetsUnavailable(RuntimeError):
    """reveal.js/MathJax are not installed and npm cannot install them."""


# --------------------------------------------------------------------------
# reveal.js and MathJax from npm
# --------------------------------------------------------------------------


def _locked_versions() -> dict[str, str]:
    """Package name -> exact version, from web/package-lock.json."""
    lock = json.loads((WEB / "package-lock.json").read_text())
    return {
        key.removeprefix("node_modules/"): meta["version"]
        for key, meta in lock["packages"].items()
        if key.startswith("node_modules/")
    }


def _installed_ok() -> bool:
    for name, version in _locked_versions().items():
        meta = NODE_MODULES / name / "package.json"
        if not meta.is_file() or json.loads(meta.read_text()).get("version") != version:
            return False
    return True


def ensure_web_assets() -> Path:
    """Make sure web/node_modules holds the pinned reveal.js and MathJax; return its path.

    Runs ``npm ci`` (exact versions from package-lock.json) when they are
    missing or stale. A file lock keeps two parallel builds (pytest-xdist
    workers) from installing at the same time.
    """
    # Checked under the lock: a half-finished `npm ci` of another process
    # must not look installed.
    with open(WEB / ".npm-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed_ok():
            return NODE_MODULES
        npm = shutil.which("npm")
        if npm is None:
            raise WebAssetsUnavailable(
                "`make slides`/`make site` need reveal.js and MathJax from the npm registry, and `npm` "
                "is not installed. Install Node.js with npm (Debian/Ubuntu: sudo apt-get install npm; "
                "or https://nodejs.org), then run the command again."
            )
        print("web: npm ci (reveal.js, MathJax; exact versions from web/package-lock.json) ...", flush=True)
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=WEB, capture_output=True, text=True
        )
        if done.returncode != 0 or not _installed_ok():
            raise WebAssetsUnavailable(
                f"`npm ci` in {WEB} failed (no network to the npm registry?):\n{done.stderr[-2000:]}"
            )
    return NODE_MODULES


def copy_assets(assets: list[tuple[str, str]], dest: Path) -> None:
    """Copy (source, destination) pairs from web/node_modules into `dest`."""
    for src, dst in assets:
        s, d = NODE_MODULES / src, dest / dst
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copy2(s, d)


# --------------------------------------------------------------------------
# Slides
# --------------------------------------------------------------------------


def chapter_notebooks() -> list[Path]:
    """notebooks/NN_name.ipynb, in chapter order."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


_GLOSSARY_LINK = re.compile(r"\[([^\]]*)\]\(\.\./docs/glossary\.md(#[^)]*)?\)")


def load_notebook(path: Path, glossary: str | None = None):
    """Read a notebook for export, and the resources nbconvert needs (its name for the title).

    Widget views (tqdm's progress bar) are dropped from outputs: they need a
    widget manager from a CDN, and without it they show nothing, whereas their
    text fallback shows what the widget said.

    A chapter links the glossary as ``../docs/glossary.md`` (right in JupyterLab);
    on the website that page is ``glossary`` (the href given), and a deck, which
    may be opened on its own, keeps the link's text only.
    """
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _GLOSSARY_LINK.sub(
                lambda m: m.group(1) if glossary is None else f"[{m.group(1)}]({glossary}{m.group(2) or ''})",
                cell.source)
        for out in cell.get("outputs", []):
            if _WIDGET_VIEW in out.get("data", {}) and len(out["data"]) > 1:
                del out["data"][_WIDGET_VIEW]
    nb.metadata.pop("widgets", None)
    return nb, {"metadata": {"name": path.stem, "path": str(path.parent)}}


def build_slides(notebooks: list[Path], out: Path) -> list[Path]:
    """Write out/NN_name.slides.html for each notebook, with reveal.js and MathJax beside them."""
    ensure_web_assets()
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(REVEAL_ASSETS + MATHJAX_ASSETS, out)
    exporter = SlidesExporter(
        extra_template_basedirs=[str(TEMPLATES)],
        extra_template_paths=[str(TEMPLATES)],  # for the shared mathjax_local macro
        template_name="learntorch_reveal",
        reveal_url_prefix="reveal.js",
        reveal_scroll=True,
        reveal_theme="white",  # its fonts are local files; "simple" imports Google Fonts
        mathjax_url=MATHJAX_JS,
    )
    written = []
    for nb_path in notebooks:
        nb, resources = load_notebook(nb_path)
        body, _ = exporter.from_notebook_node(nb, resources=resources)
        target = out / f"{nb_path.stem}.slides.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
        print(f"slides: {target.relative_to(out.parent) if out.parent in target.parents else target}")
    return written


# --------------------------------------------------------------------------
# Website
# --------------------------------------------------------------------------

SITE_CSS = """\
.lt-nav { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: center;
  padding: 0.6em 1em; margin: 0 0 1em 0; background: #f3f4f6; border-bottom: 1px solid #d0d7de;
  font-family: var(--jp-ui-font-family, sans-serif); font-size: 15px; }
.lt-nav a { text-decoration: none; color: #0b5cad; }
.lt-nav .lt-home { font-weight: bold; }
.lt-nav .lt-spacer { flex: 1; }
body.lt-page { max-width: 60em; margin: 0 auto; padding: 0 1em 3em 1em;
  font-family: var(--jp-ui-font-family, sans-serif); line-height: 1.5; }
body.lt-page table { border-collapse: collapse; }
body.lt-page td, body.lt-page th { border: 1px solid #d0d7de; padding: 0.3em 0.6em; vertical-align: top; }
.lt-toc ul { margin-top: 0.2em; }
.lt-toc .lt-links { font-size: 90%; color: #555; }
#lt-search { width: 100%; font-size: 18px; padding: 0.4em; box-sizing: border-box; }
#lt-results li { margin: 0.4em 0; }
#lt-results .lt-snippet { color: #555; font-size: 90%; }
/* Speaker notes (cells tagged "notes") are for the lecturer's view of the slides. */
.celltag_notes { display: none; }
"""

# The search: a few lines of vanilla JS over the index in search-index.js.
SEARCH_JS = """\
// Client-side search over window.LEARNTORCH_SEARCH (written by scripts/build_site.py):
// every word typed must occur in a section's heading or text.
(function () {
  var box = document.getElementById("lt-search");
  var list = document.getElementById("lt-results");
  if (!box || !list || !window.LEARNTORCH_SEARCH) { return; }
  function esc(s) { var d = document.createElement("div"); d.textContent = s; return d.innerHTML; }
  box.addEventListener("input", function () {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    list.innerHTML = "";
    if (!words.length) { return; }
    var hits = window.LEARNTORCH_SEARCH.filter(function (e) {
      var hay = (e.title + " " + e.text).toLowerCase();
      return words.every(function (w) { return hay.indexOf(w) >= 0; });
    }).slice(0, 40);
    hits.forEach(function (e) {
      var li = document.createElement("li");
      li.innerHTML = '<a href="' + e.url + '">' + esc(e.chapter + " \\u203a " + e.title) + "</a>" +
        '<div class="lt-snippet">' + esc(e.text.slice(0, 200)) + "</div>";
      list.appendChild(li);
    });
    if (!hits.length) { list.innerHTML = "<li>no match</li>"; }
  });
})();
"""


def _title(nb) -> str:
    """A notebook's first '# ' heading, without the '# '."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("# "):
            return cell.source.splitlines()[0][2:].strip()
    return "untitled"


class _Sections(HTMLParser):
    """Collect the h1-h3 headings (id, text) of an nbconvert page and the prose under each.

    Prose is the text of <p> and <li> elements (the markdown cells), so code
    and outputs stay out of the search index.
    """

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict] = []
        self._heading: dict | None = None
        self._prose_depth = 0
        self._skip_depth = 0  # inside the heading's anchor link "¶"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("h1", "h2", "h3") and a.get("id"):
            self._heading = {"level": int(tag[1]), "id": a["id"], "title": "", "text": ""}
        elif tag == "a" and "anchor-link" in (a.get("class") or ""):
            self._skip_depth += 1
        elif tag in ("p", "li"):
            self._prose_depth += 1

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self._heading["title"] = " ".join(self._heading["title"].split())
            self.sections.append(self._heading)
            self._heading = None
        elif tag == "a" and self._skip_depth:
            self._skip_depth -= 1
        elif tag in ("p", "li") and self._prose_depth:
            self._prose_depth -= 1

    def handle_data(self, data):
        if self._skip_depth:
            return
        if self._heading is not None:
            self._heading["title"] += data
        elif self._prose_depth and self.sections:
            self.sections[-1]["text"] += data


def _sections(page_html: str) -> list[dict]:
    parser = _Sections()
    parser.feed(page_html)
    for s in parser.sections:
        s["text"] = " ".join(s["text"].split())
    return parser.sections


def _nav(prefix: str, links: list[tuple[str, str, str]]) -> str:
    """The navigation bar: home, then (css class, href, label) links; hrefs are relative to the site root."""
    items = [f'<a class="lt-home" href="{prefix}index.html">learntorch course</a>']
    for cls, href, label in links:
        if cls == "spacer":
            items.append('<span class="lt-spacer"></span>')
        elif href:
            items.append(f'<a class="{cls}" href="{prefix}{href}">{html.escape(label)}</a>')
    items.append(f'<a href="{prefix}glossary.html">glossary</a>')
    return '<nav class="lt-nav">' + "".join(items) + "</nav>"


def _simple_page(title: str, body: str, nav: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
        f"<title>{html.escape(title)}</title>\n"
        '<link rel="stylesheet" href="assets/site.css">\n</head>\n'
        f'<body class="lt-page">\n{nav}\n{body}\n</body>\n</html>\n'
    )


def render_glossary(markdown_text: str, chapters: set[str]) -> str:
    """docs/glossary.md as HTML, its links to ../notebooks/NN_name.ipynb pointing at the site's pages.

    A link to a chapter the site does not have (yet) becomes plain text, so no link is broken.
    """
    body = mistune.html(markdown_text)

    def relink(m: re.Match) -> str:
        stem, label = m.group(1), m.group(2)
        return f'<a href="{stem}.html">{label}</a>' if stem in chapters else f"{label} (coming)"

    return re.sub(r'<a href="\.\./notebooks/(\d\d_\w+)\.ipynb[^"]*">(.*?)</a>', relink, body)


def build_site(out: Path) -> Path:
    """Write the whole website into `out`; return the index page."""
    ensure_web_assets()
    out.mkdir(parents=True, exist_ok=True)
    assets = out / "assets"
    copy_assets(MATHJAX_ASSETS, assets)
    (assets / "site.css").write_text(SITE_CSS, encoding="utf-8")
    (assets / "search.js").write_text(SEARCH_JS, encoding="utf-8")

    chapters = chapter_notebooks()
    build_slides(chapters, out / "slides")

    def exporter(prefix: str) -> HTMLExporter:
        return HTMLExporter(
            extra_template_basedirs=[str(TEMPLATES)],
            extra_template_paths=[str(TEMPLATES)],
            template_name="learntorch_lab",
            mathjax_url=f"{prefix}assets/{MATHJAX_JS}",
        )

    toc, search = [], []
    titles = [_title(nbformat.read(p, as_version=4)) for p in chapters]
    for i, path in enumerate(chapters):
        stem, title = path.stem, titles[i]
        exercise = ROOT / "exercises" / path.name
        prev_link = ("lt-prev", f"{chapters[i - 1].stem}.html", f"← {titles[i - 1]}") if i else ("", "", "")
        next_link = (
            ("lt-next", f"{chapters[i + 1].stem}.html", f"{titles[i + 1]} →") if i + 1 < len(chapters) else ("", "", "")
        )
        own = [("lt-slides", f"slides/{stem}.slides.html", "slides")]
        if exercise.is_file():
            own.append(("lt-exercises", f"exercises/{stem}.html", "exercises"))
        nav = _nav("", [prev_link, next_link, ("spacer", "", "")] + own)
        nb, resources = load_notebook(path, glossary="glossary.html")
        resources.update(site_nav=nav, site_css="assets/site.css")
        page, _ = exporter("").from_notebook_node(nb, resources=resources)
        (out / f"{stem}.html").write_text(page, encoding="utf-8")

        if exercise.is_file():
            (out / "exercises").mkdir(exist_ok=True)
            shutil.copy2(exercise, out / "exercises" / exercise.name)  # to download and run
            ex_nav = _nav("../", [("lt-chapter", f"{stem}.html", f"back to {title}"), ("spacer", "", ""),
                                  ("lt-download", f"exercises/{exercise.name}", "download the notebook")])
            ex_nb, ex_resources = load_notebook(exercise, glossary="../glossary.html")
            ex_resources.update(site_nav=ex_nav, site_css="../assets/site.css")
            ex_page, _ = exporter("../").from_notebook_node(ex_nb, resources=ex_resources)
            (out / "exercises" / f"{stem}.html").write_text(ex_page, encoding="utf-8")

        sections = _sections(page)
        toc.append((stem, title, [s for s in sections if s["level"] == 2], exercise.is_file()))
        for s in sections:
            search.append({"chapter": title, "title": s["title"], "url": f"{stem}.html#{s['id']}", "text": s["text"][:600]})
        print(f"site: {stem}.html")

    glossary_md = ROOT / "docs" / "glossary.md"
    if glossary_md.is_file():
        (out / "glossary.html").write_text(
            _simple_page("Glossary · learntorch", render_glossary(glossary_md.read_text(encoding="utf-8"), {p.stem for p in chapters}), _nav("", [])),
            encoding="utf-8",
        )
        print("site: glossary.html")
    (assets / "search-index.js").write_text(
        "window.LEARNTORCH_SEARCH = " + json.dumps(search, ensure_ascii=False) + ";\n", encoding="utf-8"
    )

    parts = [
        "<h1>learntorch: PyTorch's core, rebuilt in a course</h1>",
        "<p>Each chapter teaches one part of PyTorch and builds it in the <code>learntorch</code> package. "
        "Read a chapter here (with its outputs), present it from its slides (speaker notes: the <kbd>s</kbd> key), "
        'and do its exercises in Jupyter. The <a href="glossary.html">glossary</a> lists the terms in English '
        "and Chinese (术语表).</p>",
        '<h2>Search</h2><input id="lt-search" type="search" placeholder="search the chapters (e.g. hook, 梯度累加, retain_graph)">'
        '<ul id="lt-results"></ul>',
        '<h2>Chapters</h2><ol class="lt-toc">',
    ]
    for stem, title, h2s, has_ex in toc:
        links = f'<a href="slides/{stem}.slides.html">slides</a>'
        if has_ex:
            links += f' · <a href="exercises/{stem}.html">exercises</a>'
        items = "".join(f'<li><a href="{stem}.html#{s["id"]}">{html.escape(s["title"])}</a></li>' for s in h2s)
        parts.append(
            f'<li><a href="{stem}.html"><strong>{html.escape(title)}</strong></a> '
            f'<span class="lt-links">({links})</span><ul>{items}</ul></li>'
        )
    parts.append("</ol>")
    parts.append('<script src="assets/search-index.js"></script><script src="assets/search.js"></script>')
    index = out / "index.html"
    index.write_text(_simple_page("learntorch course", "\n".join(parts), _nav("", [])), encoding="utf-8")
    print(f"site: {index}")
    return index


_REF = re.compile(r'<(script|link|img|iframe|source|a)\b[^>]*?\s(src|href)="([^"]*)"', re.IGNORECASE)
_CSS_IMPORT = re.compile(r'@import\s+url\(\s*[\'"]?(https?:)?//', re.IGNORECASE)


def audit(root: Path) -> list[str]:
    """What would break offline in the pages under `root`; an empty list when nothing.

    - a script, stylesheet, image or frame loaded from http(s):// (a CDN);
    - a stylesheet under `root` that @imports one (web fonts);
    - a relative link or source whose file does not exist.
    Links (<a href>) to other web sites are fine: they are for reading on, not loading.
    """
    problems = []
    for page in sorted(root.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for tag, _, url in _REF.findall(text):
            where = f"{page.relative_to(root)}: <{tag}> {url}"
            if url.startswith(("http://", "https://", "//")):
                if tag.lower() != "a":
                    problems.append(f"{where} is loaded from the network")
                continue
            if not url or url.startswith(("#", "mailto:", "data:", "javascript:")):
                continue
            target = page.parent / urllib.parse.unquote(url.split("#")[0].split("?")[0])
            if not target.exists():
                problems.append(f"{where} does not exist")
    for css in sorted(root.rglob("*.css")):
        if _CSS_IMPORT.search(css.read_text(encoding="utf-8", errors="replace")):
            problems.append(f"{css.relative_to(root)} @imports a stylesheet from the network")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("slides", help="reveal.js decks of the chapter notebooks")
    s.add_argument("--out", type=Path, default=ROOT / "build" / "slides")
    s.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/NN_*.ipynb")
    w = sub.add_parser("site", help="the static website")
    w.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    args = parser.parse_args(argv)
    try:
        if args.what == "slides":
            written = build_slides(args.notebooks or chapter_notebooks(), args.out)
            print(f"slides: {len(written)} deck(s) in {args.out}; open one in a browser (no network needed)")
        else:
            index = build_site(args.out)
            print(f"site: open {index} in a browser (no network needed)")
    except WebAssetsUnavailable as err:
        print(f"build_site: {err}", file=sys.stderr)
        return 2
    problems = audit(args.out)
    for p in problems:
        print(f"build_site: offline check: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
