#!/usr/bin/env bash
# Make sure Graphviz's `dot` program is on PATH (learntorch draws autograd
# graphs with it). The `graphviz` Python package is only a wrapper: it needs
# this program too.
#
# - dot present: nothing to do.
# - dot missing, running as root on a Debian/Ubuntu machine: install it with
#   apt-get, non-interactively.
# - otherwise: print how to install it and carry on (exit 0). Everything else
#   works; the tests that draw graphs skip with a reason.
set -uo pipefail

if command -v dot >/dev/null 2>&1; then
  echo "graphviz: $(dot -V 2>&1)"
  exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "graphviz: 'dot' not found; installing Debian's graphviz package (apt-get) ..."
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -q && apt-get install -y -q --no-install-recommends graphviz </dev/null; then
    if command -v dot >/dev/null 2>&1; then
      echo "graphviz: $(dot -V 2>&1)"
      exit 0
    fi
  fi
  echo "graphviz: WARNING: apt-get could not install graphviz." >&2
fi

cat >&2 <<'MSG'
graphviz: WARNING: Graphviz's 'dot' program is not installed, so learntorch
cannot draw graphs; the tests that draw them will skip. Install it with one of:
    sudo apt-get install graphviz                # Debian / Ubuntu
    brew install graphviz                        # macOS (Homebrew)
    conda install -c conda-forge graphviz        # conda
then run 'make setup' again.
MSG
exit 0
