#!/bin/bash
# What a busy ground-truth sampler costs, with the host's shared TCP hash table and with a
# namespace's own (tcp_child_ehash_entries, read from a throw-away parent namespace; not what the
# project does yet: docs/benchmarks/speed.md): K namespaces, each holding one open TCP connection on port
# 443 (so its sampler dumps every 10 ms, as during a transfer), and a ccb-tcpinfo in each. Prints
# the samplers' own CPU (user + system, /proc/PID/stat) over SECONDS, per sampler and in all.
# Run as root, from the repository, after the set-up built native/tcpinfo.
#   bench/sampler-cpu.sh [K=4] [SECONDS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-4}; secs=${2:-10}
sampler=build/native/ccb-tcpinfo
[ -x "$sampler" ] || sampler=$(node -e "import('./dist/util/paths.js').then(m=>console.log(m.buildPath('native','ccb-tcpinfo')))")
hz=$(getconf CLK_TCK)
tag=ccb-scpu$$
pids=(); names=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for n in "${names[@]}"; do ip netns del "$n" 2>/dev/null || true; done
}
trap cleanup EXIT
ticks() { local sum=0; for p in "$@"; do read -r -a f < "/proc/$p/stat"; sum=$((sum + f[13] + f[14])); done; echo $sum; }
for mode in shared own; do
  samplers=()
  for i in $(seq "$k"); do
    n=$tag-$mode$i; names+=("$n")
    if [ $mode = own ]; then unshare --net -- sh -c 'echo 4096 > /proc/sys/net/ipv4/tcp_child_ehash_entries; exec ip netns add "$1"' sh "$n"
    else ip netns add "$n"; fi
    ip -n "$n" link set lo up
    # One established connection on port 443 held open for the whole measurement.
    ip netns exec "$n" python3 -c "
import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); s.bind(('127.0.0.1',443)); s.listen()
c=socket.create_connection(('127.0.0.1',443)); a,_=s.accept(); time.sleep($secs+5)" &
    pids+=($!)
    ip netns exec "$n" "$sampler" --port 443 --interval-ms 10 > /dev/null 2>&1 &
    pids+=($!); samplers+=($!)
  done
  sleep 2
  t0=$(ticks "${samplers[@]}")
  sleep "$secs"
  t1=$(ticks "${samplers[@]}")
  awk -v m="$mode" -v b="$(ip netns exec "$tag-${mode}1" sysctl -n net.ipv4.tcp_ehash_entries)" -v d=$((t1 - t0)) -v hz="$hz" -v s="$secs" -v k="$k" 'BEGIN { printf "%s TCP hash table (%s buckets): %d busy samplers used %.1f%% of a core in all, %.1f%% each\n", m, b, k, 100*d/hz/s, 100*d/hz/s/k }'
  cleanup; pids=(); names=()
done
