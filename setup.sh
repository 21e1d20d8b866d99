#!/usr/bin/env bash
# One idempotent set-up step: installs what is missing (Debian packages, npm packages),
# builds the TypeScript and the native helpers. Safe to run again at any time.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  iproute2 iptables ethtool tcpdump procps psmisc util-linux kmod
  chromium fonts-dejavu-core curl cmake g++ libclang-dev
  clang llvm libbpf-dev bpftool libnetfilter-queue-dev make gcc libc6-dev
  iperf3 tshark ffmpeg openssl python3 python3-venv
  libxml2-utils
  postgresql
)

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these Debian packages are missing: ${missing[*]}" >&2
    echo "setup: installing them needs root: run 'sudo ./setup.sh' (ccbrowse runs need root too: namespaces, tc, tcpdump)" >&2
    exit 3
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v node >/dev/null || { echo "setup: Node.js 20 or newer is required (not found)" >&2; exit 3; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || { echo "setup: Node.js >= 20 required, found $(node --version)" >&2; exit 3; }

# npm ci only when the lock file changed since the last install (npm ci wipes node_modules).
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f node_modules/.ccb-lock-sum ] || [ "$(cat node_modules/.ccb-lock-sum)" != "$lock_sum" ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.ccb-lock-sum
fi

say "building native helpers (class picker, delay line, tcp_info sampler, lab BPF controllers)"
make -s -C native/flowclass
make -s -C native/delayline
make -s -C native/tcpinfo
make -s -C native/pacing
make -s -C src/lab/bpf

command -v cargo >/dev/null || { echo "setup: cargo (Rust) is required to build the lab's HTTP/3 origins: install it with rustup" >&2; exit 3; }
say "building the lab's HTTP/3 origins (quinn; first build takes a few minutes)"
(cd native/h3-origin && CARGO_TARGET_DIR=../../build/cargo-target cargo build -q --release --locked)
if [ "${CCB_SKIP_QUICHE:-0}" != 1 ]; then
  say "building the quiche origin (BBRv2 ground truth; first build compiles BoringSSL, ~10 min; CCB_SKIP_QUICHE=1 skips it)"
  (cd native/h3-origin && CARGO_TARGET_DIR=../../build/cargo-target cargo build -q --release --locked --features quiche --bin ccb-quiche-origin)
fi
say "preparing the aioquic origin's Python environment"
bash src/lab/quic/setup-venv.sh

# The JUnit XML schema CI systems read (the Jenkins xUnit plugin's junit-10.xsd, as pytest's
# source distribution ships it for its own tests): the check's JUnit output is validated
# against it with xmllint (tests/unit/check/junit.test.ts). Fetched once, by pip, from PyPI.
junit_xsd=build/junit-10.xsd
if [ ! -s "$junit_xsd" ]; then
  say "fetching the JUnit XML schema for the tests (junit-10.xsd from pytest's sdist)"
  tmp=$(mktemp -d)
  build/venv/bin/python -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: pytest==9.2.0 -d "$tmp"
  tar -xzf "$tmp"/pytest-9.2.0.tar.gz -C "$tmp" pytest-9.2.0/testing/example_scripts/junit-10.xsd
  mkdir -p build && cp "$tmp"/pytest-9.2.0/testing/example_scripts/junit-10.xsd "$junit_xsd"
  rm -rf "$tmp"
fi

say "building TypeScript"
npm run -s build

say "building the lab's certificates and sites (media made with ffmpeg)"
node dist/lab/sites/build-cli.js >/dev/null

say "done. Next: 'npx ccbrowse doctor' to see what this machine can do."
