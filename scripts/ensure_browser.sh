#!/usr/bin/env bash
# Make sure a headless browser for tests/test_browser.py is installed: Debian's
# Chromium and its ChromeDriver (/usr/bin/chromium, /usr/bin/chromedriver),
# and a font with Chinese characters (the course shows the notes' terms, 张量,
# 梯度累加 ..., and the test's screenshots should show them too).
#
# That test opens the course in JupyterLab in a real browser, as a learner does
# after `make lab`. Selenium is pointed at these two programs, so it downloads
# no browser of its own. `make test` does not need them: without them that test
# skips and says why. CI (.ci/run) runs this first, so that it runs the test.
#
# - all present: nothing to do.
# - something missing, running as root on a Debian/Ubuntu machine: install it
#   with apt-get, non-interactively.
# - otherwise: print how to install them and carry on (exit 0).
set -uo pipefail

CHROMIUM=${LEARNTORCH_CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${LEARNTORCH_CHROMEDRIVER:-/usr/bin/chromedriver}

missing() {
  local packages=()
  [ -x "$CHROMIUM" ] || packages+=(chromium)
  [ -x "$CHROMEDRIVER" ] || packages+=(chromium-driver)
  if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
    packages+=(fonts-wqy-microhei)
  fi
  echo "${packages[@]}"
}

report() {
  echo "browser: $("$CHROMIUM" --version 2>/dev/null | head -n 1); $("$CHROMEDRIVER" --version 2>/dev/null | head -n 1 | cut -d' ' -f1-2)"
}

need=$(missing)
if [ -z "$need" ]; then
  report
  exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "browser: installing Debian's $need (apt-get) ..."
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086  # $need is a list of package names
  if apt-get update -q && apt-get install -y -q --no-install-recommends $need </dev/null; then
    if [ -z "$(missing)" ]; then
      report
      exit 0
    fi
  fi
  echo "browser: WARNING: apt-get could not install $need." >&2
fi

cat >&2 <<MSG
browser: WARNING: missing: $need. tests/test_browser.py (JupyterLab and the
slides in a real headless browser) will skip; every other test still runs.
On Debian/Ubuntu install them with:
    sudo apt-get install chromium chromium-driver fonts-wqy-microhei
Elsewhere, point the test at a Chromium or Chrome and its matching ChromeDriver:
    LEARNTORCH_CHROMIUM=/path/to/chrome LEARNTORCH_CHROMEDRIVER=/path/to/chromedriver make test
MSG
exit 0
