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
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
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
        "${UNLIMITED[@]}" >"$work/server.log" 2>&1 &
    pid=$!
    if ! wait_listening "$PORT" 60; then
        echo "$server did not start under callgrind; its log: $work/server.log" >&2
        exit 1
    fi
    "$BIN/aeroplane-loadtest" --server "http://127.0.0.1:$PORT" --rooms "$ROOMS" --games "$GAMES" \
        --json >"$work/load.json" 2>"$work/load.err"
    kill -INT "$pid"
    wait "$pid" || true
    actions="$(jq .actions "$work/load.json")"
    instructions="$(awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.out")"
    echo "$server: $actions actions, $instructions instructions, $((instructions / actions)) per action (raw: $work)"
    PORT=$((PORT + 1))
done
