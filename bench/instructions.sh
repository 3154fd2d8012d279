#!/usr/bin/env bash
# User-space instructions per action of our server, counted by valgrind's callgrind: a figure
# that, unlike CPU time, does not move with the machine's load (docs/benchmarks.md, issue 18).
#
#   bench/instructions.sh [SERVER ...]     (default: the release build of our server)
#
# SERVER is a binary of our server, or `broadcast` (or `broadcast=<bench-echo binary>`) for the
# broadcast echo's rooms, the yardstick of bench/run.sh. Each runs under callgrind (our server
# with its limits lifted, as bench/run.sh runs it), and the release load generator plays
# ROOMS=20 rooms for GAMES=40 whole games of two `random` bots against it (closed loop); the
# figure is the server's instructions over the whole run (start, rooms opened and closed,
# records stored) divided by the actions answered. The kernel's work (system calls, TCP) is not
# counted: see bench/run.sh for CPU time.
#
# CACHE=1 simulates the caches too (`--cache-sim=yes`, a 32 KiB first level and LL=2097152,16,64
# as the last: size, ways, line) and adds the last level's read and write misses per action:
# what 1,000 rooms keep cold, which instructions do not show (docs/benchmarks.md, stop 44:
#   CACHE=1 ROOMS=1000 GAMES=1500 bench/instructions.sh target/release/aeroplane-server broadcast
# takes about five minutes a server). Needs valgrind and jq.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
ROOMS="${ROOMS:-20}"
GAMES="${GAMES:-40}"
PORT="${PORT:-18700}"
CACHE="${CACHE:-0}"
LL="${LL:-2097152,16,64}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release"
(cd "$ROOT" && cargo build --release --quiet -p aeroplane-server -p aeroplane-loadtest -p aeroplane-bench-echo)
[[ $# -gt 0 ]] || set -- "$BIN/aeroplane-server"
ulimit -n "$(ulimit -Hn)"

pid=""
cleanup() {
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT

callgrind=(valgrind --tool=callgrind)
if [[ "$CACHE" == 1 ]]; then
    callgrind+=(--cache-sim=yes "--D1=32768,8,64" "--LL=$LL")
fi

for server in "$@"; do
    work="$(mktemp -d /tmp/aeroplane-instructions.XXXXXX)"
    case "$server" in
    broadcast | broadcast=*)
        binary="$BIN/bench-echo"
        [[ "$server" == broadcast=* ]] && binary="${server#broadcast=}"
        target=broadcast
        "${callgrind[@]}" --callgrind-out-file="$work/callgrind.out" "$binary" \
            --listen "127.0.0.1:$PORT" >"$work/server.log" 2>&1 &
        ;;
    *)
        target=aeroplane
        "${callgrind[@]}" --callgrind-out-file="$work/callgrind.out" "$server" \
            --listen "127.0.0.1:$PORT" --data-dir "$work/data" --log-level error \
            "${UNLIMITED[@]}" >"$work/server.log" 2>&1 &
        ;;
    esac
    pid=$!
    if ! wait_listening "$PORT" 60; then
        echo "$server did not start under callgrind; its log: $work/server.log" >&2
        exit 1
    fi
    # A server under callgrind answers about fifty times slower: a minute's patience per answer.
    # A game lost to a timeout now and then does not spoil a count per action answered (the
    # generator then exits with 1); no action at all does.
    "$BIN/aeroplane-loadtest" --server "http://127.0.0.1:$PORT" --target "$target" \
        --rooms "$ROOMS" --games "$GAMES" --source-addrs "$LOOPBACK_SOURCES" --timeout-ms 60000 \
        --json >"$work/load.json" 2>"$work/load.err" || true
    # Both servers end through `main` on these, which is when callgrind writes its counts.
    if [[ "$target" == aeroplane ]]; then kill -INT "$pid"; else kill -TERM "$pid"; fi
    wait "$pid" || true
    actions="$(jq -r '.actions // 0' "$work/load.json" 2>/dev/null || echo 0)"
    if [[ "$actions" == 0 ]]; then
        echo "$server: no action answered; the load generator said:" >&2
        cat "$work/load.err" >&2
        exit 1
    fi
    failed="$(jq -r '.failed_games // 0' "$work/load.json")"
    # The counts of each event named on the `events:` line, from the `summary:` (or `totals:`)
    # line, per action.
    counts="$(awk -v actions="$actions" '
        /^events:/ { for (i = 2; i <= NF; i++) name[i] = $i }
        /^(summary|totals):/ && !done {
            for (i = 2; i <= NF; i++) per[name[i]] = $i / actions
            done = 1
        }
        END {
            printf "%d instructions per action", per["Ir"]
            if ("DLmr" in per) printf ", %.1f last-level read misses and %.1f write misses per action", per["DLmr"], per["DLmw"]
        }' "$work/callgrind.out")"
    echo "$server: $actions actions ($failed games lost), $counts (raw: $work)"
    PORT=$((PORT + 1))
done
