#!/usr/bin/env bash
# Installs what the build, the tests and the benchmarks need, when it is missing:
# Verilator (second simulation back end), yosys + nextpnr-ice40 + icestorm (synthesis flow),
# tshark (decodes the captures), a C++ compiler, python3 (scripts/sdf_sta.py, the flow's
# timing test), and the rustfmt/clippy components.
# Debian packages; runs as root, or through sudo.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have verilator || need+=(verilator)
have yosys || need+=(yosys)
have nextpnr-ice40 || need+=(nextpnr-ice40)
have icepack || need+=(fpga-icestorm)
have tshark || need+=(tshark)
have g++ || need+=(g++)
have make || need+=(make)
have python3 || need+=(python3)

if ((${#need[@]})); then
  echo "install-deps: installing ${need[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

if have rustup; then
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
  done
fi

for t in verilator yosys nextpnr-ice40 icepack tshark g++ python3 cargo; do
  have "$t" || { echo "install-deps: $t is still missing" >&2; exit 1; }
done
