#!/usr/bin/env bash
# Interleaved A/B open-loop runs of two server binaries: BEFORE and AFTER (default: this tree's).
set -u
# Usage: BEFORE=<old aeroplane-server> [AFTER=target/release/aeroplane-server] [BEFORE_FLAGS=...]
#        bench/ab-open.sh
# BEFORE_FLAGS: extra flags for the earlier server; a server from before the hardening (eed305b)
# has no room caps to lift and takes none; a later one takes the three it added:
#   BEFORE_FLAGS="--max-http-connections-per-address 1000000 --max-rooms 1000000 --max-waiting-rooms 1000000"
# Server CPU is utime+stime of the server process over the whole load run (room creation included),
# so its figures are higher than bench/run.sh's and only comparable with each other.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
LT=${LT:-target/release/aeroplane-loadtest}
# The limits every server since the hardening takes; AFTER gets all of bench/common.sh's.
OLD="--ws-rate-per-sec 1000000 --ws-burst 1000000 --max-connections-per-address 1000000 --rooms-per-address-per-minute 1000000 --max-connections 1000000"
run() { # name bin flags...
  local name=$1 bin=$2; shift 2
  local d; d=$(mktemp -d)
  taskset -c 0 $bin --listen 127.0.0.1:18600 --data-dir $d --log-level warn "$@" > /dev/null 2>&1 &
  local pid=$!; sleep 1
  local t0; t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  taskset -c 1 $LT --server http://127.0.0.1:18600 --rooms 1000 --duration 20s --rate 5000 --json --source-addrs 127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4 > /tmp/ab-$name.json 2>/dev/null
  local t1; t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  kill $pid; wait $pid 2>/dev/null
  python3 -c "import json;r=json.load(open('/tmp/ab-$name.json'));a=r['actions'];print('$name', a, 'actions', round(($t1-$t0)/100*1e6/max(a,1),1), 'us/action', 'p99', r['round_trip_ms']['p99'], 'p99.9', r['round_trip_ms']['p99_9'], 'errors', sum(r['errors'].values()))"
}
B=${BEFORE:?the earlier server binary}
A=${AFTER:-target/release/aeroplane-server}
for i in $(seq 1 ${REPEATS:-2}); do
  run before-$i $B $OLD ${BEFORE_FLAGS:-}
  run after-$i $A "${UNLIMITED[@]}"
done
