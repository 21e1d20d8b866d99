#!/bin/bash
# What a lab costs the host at rest: brings up a lab (default: the default lab), lets it settle
# 20 s, prints the host's busy and kernel shares over 30 s (/proc/stat), the load average and the
# number of ground-truth samplers, and takes the lab down. Run as root, from the repository.
#   bench/lab-idle-cpu.sh [labs/FILE.ts LAB-NAME]
set -euo pipefail
cd "$(dirname "$0")/.."
config=(); name=default
if [ $# -ge 2 ]; then config=(--config "$1"); name=$2; fi
t0=$(date +%s)
node bin/ccbrowse.js lab up "${config[@]}" > /dev/null 2>&1
echo "lab up: $(( $(date +%s) - t0 )) s"
trap 'node bin/ccbrowse.js lab down --lab "$name" > /dev/null 2>&1 || true' EXIT
sleep 20
read -r _ u n s i w q sq st _ < /proc/stat; before=$((u+n+s+i+w+q+sq+st)); idle0=$i; sys0=$s
sleep 30
read -r _ u n s i w q sq st _ < /proc/stat; after=$((u+n+s+i+w+q+sq+st))
echo "host busy $(( 100 - 100*(i-idle0)/(after-before) ))%, in the kernel $(( 100*(s-sys0)/(after-before) ))%, load average $(cut -d' ' -f1 /proc/loadavg), samplers $(pgrep -c ccb-tcpinfo || true)"
