#!/usr/bin/env bash
# One idempotent set-up step: installs what is missing (Debian packages, npm packages),
# builds the TypeScript and the native helpers. Safe to run again at any time.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  iproute2 iptables ethtool tcpdump procps psmisc util-linux kmod
  chromium fonts-dejavu-core
  clang llvm libbpf-dev bpftool libnetfilter-queue-dev make gcc libc6-dev
  iperf3 tshark ffmpeg openssl python3 python3-venv
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

say "building native helpers"
make -s -C native/flowclass
make -s -C native/delayline
[ -f src/lab/bpf/Makefile ] && make -s -C src/lab/bpf

say "building TypeScript"
npm run -s build

say "done. Next: 'npx ccbrowse doctor' to see what this machine can do."
