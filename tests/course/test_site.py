"""`make site`: the course website builds, works offline, its links resolve, and the glossary is complete.

The glossary checks need nothing; the build needs reveal.js and MathJax from
npm (web/package.json) and skips with a reason where npm is missing and they
are not installed yet. The whole site is built once, into a temporary folder.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
GLOSSARY = ROOT / "docs" / "glossary.md"

#: The notes' Chinese terms that the glossary must explain (from the study notes and the chapters).
CHINESE_TERMS = [
    "张量", "梯度", "计算图", "叶结点", "钩子", "梯度累加", "反向传播", "自动求导",
    "优化器", "学习率", "数据并行", "分布式", "广播", "维度", "动态图", "显存", "损失函数",
    "注意力", "多头注意力", "掩码", "残差连接", "层归一化",
]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build_site = _load("build_site")


# ---------------------------------------------------------------- glossary source


def _glossary_rows() -> list[list[str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and not line.startswith("| ---") and not line.startswith("| English"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_glossary_has_the_notes_terms():
    chinese = " ".join(row[1] for row in _glossary_rows())
    missing = [t for t in CHINESE_TERMS if t not in chinese]
    assert not missing, f"docs/glossary.md lacks {missing}"


def test_glossary_rows_are_complete_and_link_chapters():
    rows = _glossary_rows()
    assert len(rows) >= 40
    for english, chinese, definition, chapter in rows:
        assert english and re.search(r"[\u4e00-\u9fff]", chinese) and len(definition) > 20, (english, chinese)
        m = re.fullmatch(r"\[(\d\d)\]\(\.\./notebooks/(\d\d)_\w+\.ipynb\)", chapter)
        assert m and m.group(1) == m.group(2), f"{english}: chapter cell {chapter!r} is not [NN](../notebooks/NN_name.ipynb)"
        target = GLOSSARY.parent / chapter[chapter.index("(") + 1 : -1]
        # a chapter still being written (no notebook yet) is allowed; the site shows it as "coming"
        assert target.is_file() or not any(p.name.startswith(m.group(1)) for p in CHAPTERS), chapter


# ---------------------------------------------------------------- the built site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not build_site._installed_ok() and shutil.which("npm") is None:
        pytest.skip("reveal.js/MathJax are not in web/node_modules and npm is not installed to get them")
    out = tmp_path_factory.mktemp("site")
    try:
        build_site.build_site(out)
    except build_site.WebAssetsUnavailable as err:
        pytest.skip(f"cannot install reveal.js/MathJax from npm: {err}")
    return out


def test_site_has_every_page(site):
    for nb in CHAPTERS:
        assert (site / f"{nb.stem}.html").is_file()
        assert (site / "slides" / f"{nb.stem}.slides.html").is_file()
        if (ROOT / "exercises" / nb.name).is_file():
            assert (site / "exercises" / f"{nb.stem}.html").is_file()
            assert (site / "exercises" / nb.name).is_file()
    assert (site / "index.html").is_file() and (site / "glossary.html").is_file()


def test_every_local_link_resolves_and_nothing_loads_from_the_network(site):
    checked = 0
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for tag, url in re.findall(r'<(script|link|img|a)\b[^>]*?\s(?:src|href)="([^"]*)"', text):
            if re.match(r"(https?:)?//", url):
                assert tag == "a", f"{page.name} loads {url} from the network"
                continue
            if not url or url.startswith(("#", "mailto:", "data:")):
                continue
            checked += 1
            assert (page.parent / urllib.parse.unquote(url.split("#")[0])).exists(), f"{page.name}: broken {url}"
    assert checked > 100
    assert build_site.audit(site) == []


def test_index_lists_chapters_sections_and_search(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    for nb in CHAPTERS:
        assert f'href="{nb.stem}.html"' in index and f'href="slides/{nb.stem}.slides.html"' in index
        assert f'href="{nb.stem}.html#' in index  # its section headings
    assert 'id="lt-search"' in index and "assets/search.js" in index
    js = (site / "assets" / "search-index.js").read_text(encoding="utf-8")
    entries = json.loads(js[js.index("=") + 1 :].strip().rstrip(";"))
    assert {e["url"].split("#")[0] for e in entries} == {f"{nb.stem}.html" for nb in CHAPTERS}
    assert any("钩子" in e["title"] + e["text"] for e in entries)
    for e in entries[:50]:  # every anchor points at a heading id on its page
        page, anchor = e["url"].split("#")
        assert f'id="{anchor}"' in (site / page).read_text(encoding="utf-8")


def test_chapter_pages_navigate_and_show_outputs(site):
    first, second = CHAPTERS[0].stem, CHAPTERS[1].stem
    page = (site / f"{second}.html").read_text(encoding="utf-8")
    assert f'class="lt-prev" href="{first}.html"' in page and 'href="index.html"' in page
    assert f'href="slides/{second}.slides.html"' in page
    assert "data:image/svg+xml;base64," in page, "chapter 02's graph pictures (SVG outputs) are missing"
    assert build_site.MATHJAX_JS in page


def test_glossary_page(site):
    page = (site / "glossary.html").read_text(encoding="utf-8")
    for term in CHINESE_TERMS:
        assert term in page
    assert 'href="02_autograd.html"' in page and "../notebooks/" not in page.replace("(coming)", "")
