#!/usr/bin/env bash
# User-space instructions per action of our server, counted by valgrind's callgrind: a figure
# that, unlike CPU time, does not move with the machine's load (docs/benchmarks.md, issue 18).
#
#   bench/instructions.sh [SERVER_BINARY ...]     (default: the release build)
#
# Each server runs under callgrind with the room limits lifted (as bench/run.sh runs it), and
# the release load generator plays ROOMS=20 rooms for GAMES=40 whole games of two `random` bots
# against it (closed loop); the figure is the server's instructions over the whole run (start,
# rooms opened and closed, records stored) divided by the actions answered. The kernel's work
# (system calls, TCP) is not counted: see bench/run.sh for CPU time. Needs valgrind and jq.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROOMS="${ROOMS:-20}"
GAMES="${GAMES:-40}"
PORT="${PORT:-18700}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release"
(cd "$ROOT" && cargo build --release --quiet -p aeroplane-server -p aeroplane-loadtest)
[[ $# -gt 0 ]] || set -- "$BIN/aeroplane-server"
ulimit -n "$(ulimit -Hn)"

for server in "$@"; do
    work="$(mktemp -d /tmp/aeroplane-instructions.XXXXXX)"
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$server" \
        --listen "127.0.0.1:$PORT" --data-dir "$work/data" --log-level error \
        --ws-rate-per-sec 1000000 --ws-burst 1000000 \
        --max-connections-per-address 1000000 --rooms-per-address-per-minute 1000000 \
        --max-connections 1000000 --max-http-connections-per-address 1000000 \
        --max-rooms 1000000 --max-waiting-rooms 1000000 >"$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
        sleep 0.3
    done
    "$BIN/aeroplane-loadtest" --server "http://127.0.0.1:$PORT" --rooms "$ROOMS" --games "$GAMES" \
        --json >"$work/load.json" 2>"$work/load.err"
    kill -INT "$pid"
    wait "$pid" || true
    actions="$(jq .actions "$work/load.json")"
    instructions="$(awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.out")"
    echo "$server: $actions actions, $instructions instructions, $((instructions / actions)) per action (raw: $work)"
    PORT=$((PORT + 1))
done
