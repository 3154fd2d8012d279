#!/usr/bin/env bash
# The server load benchmark of issue 7 (docs/benchmarks.md, "Ceiling and peer").
#
#   bench/run.sh [closed|open|idle]
#
# closed (default): for each repeat, runs every target in turn (interleaved A/B/C/D: our server,
#   the bare tokio-tungstenite echo server, its broadcast rooms (every message to both players of
#   a room: the fair ceiling), the Colyseus peer), each a fresh server process
#   pinned to core 0 with the load generator pinned to core 1, closed loop.
# open: the same with an open loop at RATE actions/s (latency timed from each action's due time).
# idle: our server (and the variants named in TARGETS) with IDLE silent connections held for
#   HOLD, once seated (two players per room, the game waiting) and once as spectators (64 to a
#   room): memory per idle connection.
#
# Settings (environment): REPEATS=3 ROOMS=1000 DURATION=20s RATE=5000 IDLE=10000 HOLD=30s
#   TARGETS="aeroplane echo broadcast colyseus" LEVEL=random SOURCE_ADDRS=127.0.0.1,...,127.0.0.8
#   The target `broadcast-game` is the broadcast echo with its two seats taking turns in the
#   order of a real game between two bots of LEVEL (the load generator's `--turns game`: a seat
#   rolls again after a six, passes at once when its roll moves nothing) instead of two actions
#   each in strict alternation; `echo-game` likewise. Add it to TARGETS beside `broadcast`.
#   VARIANTS="name=<binary> ...": other builds of our server (an earlier commit, another
#   profile), each the target `name`, run under the same flags and load as ours, so a change is
#   measured interleaved with its yardsticks (put the names in TARGETS; a server older than
#   stop 12 takes none of the room-cap flags). BEFORE=<binary> is short for VARIANTS="before=…".
#   A variant named `echo…` or `broadcast…` (e.g. `broadcast-pgo=target/pgo/bench-echo`) is
#   another build of that yardstick instead, run as it is (bench/pgo.sh builds one).
#   LOADTEST=<binary>: another build of the load generator (default: this checkout's), e.g. an
#   earlier commit's, to measure what a change of the generator does to the same servers.
#   WARMUP=0s: round trips of actions due in the first WARMUP of an open-loop run are left out of
#   the latency figures (they still count as actions); the load generator's --warmup.
#   PORT=18400 (first port; each run takes the next) OUT=<dir for the raw JSON, default a
#   fresh temporary directory> CARGO_TARGET_DIR (default: the workspace's target/).
#
# Server CPU is utime+stime (fields 14 and 15 of /proc/<pid>/stat) of the server process, read
# right before and right after the load generator runs; the server is started fresh for each
# run, so its peak RSS (VmHWM) belongs to that run alone. The table splits that CPU into user
# space and kernel (utime and stime apart), which is where the gap to a yardstick lies (stops
# 48-51 of docs/benchmarks.md read it per thread by hand). The load generator's CPU (bash's `time`)
# is reported beside it: a generator near 100% of its core limits the throughput it can show. The Colyseus peer needs `npm ci` in
# bench/colyseus (done here when node_modules is missing); Node and npm come from Debian. The
# script itself needs taskset, jq and python3 (for the table).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
MODE="${1:-closed}"
REPEATS="${REPEATS:-3}"
ROOMS="${ROOMS:-1000}"
DURATION="${DURATION:-20s}"
RATE="${RATE:-5000}"
IDLE="${IDLE:-10000}"
HOLD="${HOLD:-30s}"
TARGETS="${TARGETS:-aeroplane echo broadcast colyseus}"
LEVEL="${LEVEL:-random}"
SOURCE_ADDRS="${SOURCE_ADDRS:-$LOOPBACK_SOURCES}"
PORT="${PORT:-18400}"
OUT="${OUT:-$(mktemp -d /tmp/aeroplane-bench.XXXXXX)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release"
LOADTEST="${LOADTEST:-$BIN/aeroplane-loadtest}"
SERVER_CORE=0
CLIENT_CORE=1
TICKS_PER_SECOND="$(getconf CLK_TCK)"

case "$MODE" in
closed | open | idle) ;;
*)
    echo "usage: $0 [closed|open|idle]" >&2
    exit 2
    ;;
esac

log() { printf '== %s\n' "$*" >&2; }

log "building release binaries into $CARGO_TARGET_DIR"
(cd "$ROOT" && cargo build --release --quiet -p aeroplane-server -p aeroplane-loadtest -p aeroplane-bench-echo)
WARMUP="${WARMUP:-0s}"
# Our server's other builds, by target name.
declare -A VARIANT=()
[[ -n "${BEFORE:-}" ]] && VARIANT[before]="$BEFORE"
for variant in ${VARIANTS:-}; do
    VARIANT[${variant%%=*}]="${variant#*=}"
done
# kind_of TARGET: the server a target runs (aeroplane, echo, broadcast or colyseus).
kind_of() {
    local target="$1"
    if [[ -n "${VARIANT[$target]:-}" || "$target" == *-game ]]; then
        case "$target" in
        echo*) target='echo' ;;
        broadcast*) target=broadcast ;;
        *) target=aeroplane ;;
        esac
    fi
    echo "$target"
}
is_ours() { [[ "$(kind_of "$1")" == aeroplane ]]; }

if [[ "$MODE" != idle && " $TARGETS " == *" colyseus "* && ! -d "$ROOT/bench/colyseus/node_modules" ]]; then
    log "installing the Colyseus peer (npm ci)"
    (cd "$ROOT/bench/colyseus" && npm ci --no-audit --no-fund --loglevel=error)
fi

# As many open files as this shell may have (about 20,000 here): every socket is one.
ulimit -n "$(ulimit -Hn)"
log "open-file limit $(ulimit -n); raw results in $OUT"
mkdir -p "$OUT"

SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# start_server TARGET PORT: starts it pinned to the server core, sets SERVER_PID, waits for it.
start_server() {
    local target="$1" port="$2"
    local kind
    kind="$(kind_of "$target")"
    case "$kind" in
    aeroplane)
        local data binary="${VARIANT[$target]:-$BIN/aeroplane-server}"
        data="$(mktemp -d "$OUT/data.XXXXXX")"
        serve_pinned "$SERVER_CORE" aeroplane "$binary" "$port" "$OUT/server-$port.log" "$data"
        ;;
    echo | broadcast)
        serve_pinned "$SERVER_CORE" "$kind" "${VARIANT[$target]:-$BIN/bench-echo}" "$port" \
            "$OUT/server-$port.log"
        ;;
    colyseus)
        taskset -c "$SERVER_CORE" node "$ROOT/bench/colyseus/server.js" --listen "127.0.0.1:$port" \
            >"$OUT/server-$port.log" 2>&1 &
        ;;
    esac
    SERVER_PID=$!
    if wait_listening "$port" 10; then
        sleep 0.2
        return
    fi
    echo "the $target server did not start; its log:" >&2
    cat "$OUT/server-$port.log" >&2
    exit 1
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# cpu_ticks PID: the process's utime and stime, user space and kernel apart (fields 14 and 15;
# the name in field 2 may hold spaces, so count from the ")" that ends it).
cpu_ticks() {
    local stat
    stat="$(cat "/proc/$1/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $stat
    echo "${12} ${13}"
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# One load run: writes $OUT/<mode>-<target>-<repeat>.json, with the server's CPU and memory
# added to the load generator's summary.
load_run() {
    local target="$1" repeat="$2" port="$3"
    local file="$OUT/$MODE-$target-$repeat.json"
    start_server "$target" "$port"
    local base_kib before after before_user before_system
    base_kib="$(rss_kib "$SERVER_PID")"
    local protocol
    protocol="$(kind_of "$target")"
    local args=(--server "http://127.0.0.1:$port" --target "$protocol" --rooms "$ROOMS"
        --duration "$DURATION" --level "$LEVEL" --json --source-addrs "$SOURCE_ADDRS"
        --server-pid "$SERVER_PID")
    if [[ "$MODE" == open ]]; then
        args+=(--rate "$RATE" --warmup "$WARMUP")
    fi
    if [[ "$target" == *-game ]]; then
        args+=(--turns game)
    fi
    log "$MODE run $repeat: $target, $ROOMS rooms, $DURATION$([[ $MODE == open ]] && echo ", $RATE actions/s" || true)"
    before="$(cpu_ticks "$SERVER_PID")"
    local status=0 TIMEFORMAT='%U %S'
    # The load generator's own CPU (user, system) too, to see when it is the bottleneck.
    { time taskset -c "$CLIENT_CORE" "$LOADTEST" "${args[@]}" >"$file.load" 2>"$file.err" || status=$?; } 2>"$file.time"
    after="$(cpu_ticks "$SERVER_PID")"
    stop_server
    if [[ ! -s "$file.load" ]]; then
        echo "the load generator failed (exit $status):" >&2
        cat "$file.err" >&2
        exit 1
    fi
    local client_cpu
    client_cpu="$(awk '{ print $1 + $2 }' "$file.time")"
    local user system
    read -r user system <<<"$after"
    read -r before_user before_system <<<"$before"
    user=$((user - before_user))
    system=$((system - before_system))
    jq --argjson user "$user" --argjson system "$system" --argjson hz "$TICKS_PER_SECOND" \
        --argjson base "$base_kib" --argjson repeat "$repeat" --argjson exit "$status" \
        --argjson client "$client_cpu" --arg target "$target" \
        '. + {target: $target, server_cpu_seconds: (($user + $system) / $hz),
              server_user_seconds: ($user / $hz), server_system_seconds: ($system / $hz),
              server_base_kib: $base, repeat: $repeat, exit_status: $exit,
              load_generator_cpu_seconds: $client}' "$file.load" >"$file"
    rm -f "$file.load" "$file.time"
}

# The table: one row per run, then the medians per target and the ratios ours/echo,
# ours/broadcast and ours/colyseus, then issue 18's targets run by run.
report() {
    python3 - "$OUT" "$MODE" "$ROOMS" <<'PY'
import glob, json, statistics, sys

out, mode, rooms = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = [json.load(open(path)) for path in sorted(glob.glob(f"{out}/{mode}-*.json"))]
order = {"aeroplane": 0, "echo": 1, "echo-game": 1.5, "broadcast": 2, "broadcast-game": 2.5, "colyseus": 3}
# Variants of our server (BEFORE, VARIANTS) first, in the order they were run.
for run in runs:
    order.setdefault(run["target"], -1)
runs.sort(key=lambda run: (run["repeat"], order[run["target"]]))

def cpu_us(run):
    return run["server_cpu_seconds"] * 1e6 / max(run["actions"], 1)

def busy(run, field):
    return f"{100 * run[field] / run['seconds']:.0f}%"

def per_room_kib(run):
    return (run["server_peak_kib"] - run["server_base_kib"]) / rooms

def split_us(run):
    # user space / kernel, µs per action (runs recorded before the split say "-").
    if "server_user_seconds" not in run:
        return "-"
    per = 1e6 / max(run["actions"], 1)
    return f"{run['server_user_seconds'] * per:.1f} / {run['server_system_seconds'] * per:.1f}"

header = ("| target | run | actions | actions/s | server CPU µs/action | of it user / kernel "
          "| server / generator core busy "
          "| p50 ms | p99 ms | p99.9 ms | max ms | peak RSS MiB | (peak − start)/room KiB | errors |")
print(header)
print("|" + "---|" * (header.count("|") - 1))
for run in runs:
    rt = run["round_trip_ms"]
    errors = sum(run["errors"].values()) + run["failed_games"]
    print(f"| {run['target']} | {run['repeat']} | {run['actions']:,} | {run['actions_per_second']:,.0f} "
          f"| {cpu_us(run):.1f} | {split_us(run)} | {busy(run, 'server_cpu_seconds')} / {busy(run, 'load_generator_cpu_seconds')} "
          f"| {rt['p50']:.2f} | {rt['p99']:.2f} | {rt['p99_9']:.2f} | {rt['max']:.1f} "
          f"| {run['server_peak_kib'] / 1024:.1f} | {per_room_kib(run):.1f} | {errors} |")

medians = {}
for target in sorted(order, key=order.get):
    mine = [run for run in runs if run["target"] == target]
    if mine:
        medians[target] = {
            "cpu": statistics.median(cpu_us(run) for run in mine),
            "rate": statistics.median(run["actions_per_second"] for run in mine),
            "p99": statistics.median(run["round_trip_ms"]["p99"] for run in mine),
            "p99_9": max(run["round_trip_ms"]["p99_9"] for run in mine),
            "rss": statistics.median(run["server_peak_kib"] for run in mine) / 1024,
            "room": statistics.median(per_room_kib(run) for run in mine),
        }
        if all("server_user_seconds" in run for run in mine):
            medians[target]["user"] = statistics.median(
                run["server_user_seconds"] * 1e6 / max(run["actions"], 1) for run in mine)
            medians[target]["kernel"] = statistics.median(
                run["server_system_seconds"] * 1e6 / max(run["actions"], 1) for run in mine)
print()
print("| median of runs | server CPU µs/action | actions/s | p99 ms | worst p99.9 ms | peak RSS MiB | KiB/room |")
print("|---|---|---|---|---|---|---|")
for target, m in medians.items():
    print(f"| {target} | {m['cpu']:.1f} | {m['rate']:,.0f} | {m['p99']:.2f} | {m['p99_9']:.2f} | {m['rss']:.1f} | {m['room']:.1f} |")
ours = medians.get("aeroplane")
for peer in [target for target in medians if target != "aeroplane"]:
    if ours and peer in medians:
        m = medians[peer]
        print(f"\nours/{peer}: server CPU per action {ours['cpu'] / m['cpu']:.2f}x, "
              f"actions/s {ours['rate'] / m['rate']:.2f}x, peak RSS {ours['rss'] / m['rss']:.2f}x")
        if "user" in ours and "user" in m:
            print(f"ours/{peer}: user space {ours['user']:.1f} against {m['user']:.1f} µs/action, "
                  f"kernel {ours['kernel']:.1f} against {m['kernel']:.1f}")

# Run by run: issue 18's targets must hold in every run, which medians do not show. Each of our
# builds (aeroplane and the variants) against the yardsticks of the same repeat.
yardsticks = ("echo", "broadcast", "colyseus")
builds = [target for target in medians if not target.startswith(yardsticks)]
repeats = sorted({run["repeat"] for run in runs})
by_run = {(run["target"], run["repeat"]): run for run in runs}

def count(values, holds):
    return f"{sum(1 for value in values if holds(value))} of {len(values)}"

print()
for build in builds:
    for peer, most in (("broadcast", 1.5), ("broadcast-game", 1.5), ("colyseus", 0.5)):
        pairs = [(by_run[build, r], by_run[peer, r]) for r in repeats
                 if (build, r) in by_run and (peer, r) in by_run]
        if not pairs:
            continue
        ratios = [cpu_us(a) / cpu_us(b) for a, b in pairs]
        print(f"{build}/{peer}, server CPU per action, run by run: "
              f"{', '.join(f'{ratio:.2f}' for ratio in ratios)}x "
              f"(at most {most}x in {count(ratios, lambda ratio: ratio <= most)})")
        if peer == "colyseus" and mode == "closed":
            ahead = [a["actions_per_second"] > b["actions_per_second"] for a, b in pairs]
            print(f"{build} more actions/s than colyseus in {count(ahead, bool)} runs")
    if mode == "open":
        mine = [by_run[build, r] for r in repeats if (build, r) in by_run]
        p99 = [run["round_trip_ms"]["p99"] for run in mine]
        p99_9 = [run["round_trip_ms"]["p99_9"] for run in mine]
        print(f"{build}, run by run: p99 at most 5 ms in {count(p99, lambda ms: ms <= 5)}, "
              f"p99.9 at most 20 ms in {count(p99_9, lambda ms: ms <= 20)}")
PY
}

# Idle connections: a fresh server per layout; the load generator reads the server's RSS before,
# once all are open, and at the end of the hold.
idle_run() {
    local target="$1" layout="$2" port="$3"
    local file="$OUT/idle-$target-$layout.json"
    start_server "$target" "$port"
    log "idle: $target, $IDLE connections ($layout), held $HOLD"
    taskset -c "$CLIENT_CORE" "$LOADTEST" --server "http://127.0.0.1:$port" \
        --idle "$IDLE" --idle-layout "$layout" --hold "$HOLD" --json \
        --source-addrs "$SOURCE_ADDRS" --server-pid "$SERVER_PID" >"$file" 2>"$file.err" || true
    jq --arg peak "$(awk '/^VmHWM:/ { print $2 }' "/proc/$SERVER_PID/status")" --arg target "$target" \
        '. + {server_peak_kib: ($peak | tonumber), target: $target}' "$file" >"$file.tmp" && mv "$file.tmp" "$file"
    stop_server
}

if [[ "$MODE" == idle ]]; then
    # Our server and its variants among TARGETS (the yardsticks have no idle mode).
    port="$PORT"
    for target in $TARGETS; do
        is_ours "$target" || continue
        for layout in seated spectators; do
            idle_run "$target" "$layout" "$port"
            port=$((port + 1))
        done
    done
    echo "| target | layout | connections open | rooms | RSS before MiB | RSS all open MiB | RSS end of hold MiB | bytes per connection | errors |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for file in "$OUT"/idle-*.json; do
        jq -r '"| \(.target) | \(.layout) | \(.idle_connections) of \(.requested) | \(.rooms) | \(.server_rss_before_kib / 1024 * 10 | round / 10) | \(.server_rss_open_kib / 1024 * 10 | round / 10) | \(.server_rss_held_kib / 1024 * 10 | round / 10) | \(.bytes_per_connection | round) | \(.errors | to_entries | map("\(.key) \(.value)") | join(", ")) |"' \
            "$file"
    done
    exit 0
fi

port="$PORT"
for repeat in $(seq 1 "$REPEATS"); do
    for target in $TARGETS; do
        load_run "$target" "$repeat" "$port"
        port=$((port + 1))
        # Let the closed sockets' TIME_WAIT and the previous server's exit settle.
        sleep 2
    done
done
report
