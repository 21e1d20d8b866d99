#!/usr/bin/env bash
# The main job, end to end on the local lab: check the machine and the bottleneck, start the
# lab, run the lab's VOD and static scenarios through both Nebby profiles, build the report.
set -euo pipefail
cd "$(dirname "$0")/.."
ccb() { node dist/cli/main.js "$@"; }
ccb doctor
ccb shaper check --profile nebby-50 --seconds 8
ccb lab up
trap 'ccb lab down' EXIT
ccb run scenarios/lab/vod.ts --out runs/demo
ccb run scenarios/lab/static.ts --out runs/demo
ccb report --store runs/demo/ccbrowse.sqlite --out runs/demo-report
echo "report: runs/demo-report/index.html"
