#!/usr/bin/env bash
# A profile-guided (PGO) release build of the server: built once instrumented, trained on the
# load generator's games, then built again with what the training counted, so that LLVM lays out
# and inlines the code the way games run it (docs/benchmarks.md, "Stop 43"; issue 18).
#
# Measured in stop 43: 16% fewer user-space instructions per action, and no less CPU per action
# (0.92-1.11x the plain build's in ten interleaved closed-loop runs, two trainings). The server's time goes to
# the kernel and to memory that 1,000 rooms keep cold, which the layout does not change. So the
# Docker image and the README's commands build without it; this script stays to repeat the
# measurement on another machine or after a change.
#
#   bench/pgo.sh [server|echo]     # writes target/pgo/aeroplane-server (or target/pgo/bench-echo)
#
# `server` (the default) is the product. The result is an ordinary release binary of this
# checkout, with the same flags, behaviour and files; only its machine code is arranged
# differently. Paths the training does not run (a PostgreSQL store, the NATS journal and
# cluster) are compiled as rarely used: they work the same, and may be a little slower than in a
# plain release build. `echo` builds the benchmark's echo ceiling the same way (trained on its
# broadcast rooms, then on its echo), so that a profile-guided server is compared with a
# profile-guided yardstick.
#
# Settings (environment):
#   OUT=target/pgo                     where the optimised binary goes
#   LLVM_PROFDATA=llvm-profdata-<N>    the profile merger; its LLVM major version N must be
#                                      rustc's (`rustc -vV`; on Debian, `apt-get install llvm-N`)
#   TRAIN_ROOMS=200 TRAIN_DURATION=10s closed-loop training: two-player rooms, then four-player
#                                      `classic` rooms (the echo: broadcast, then echo), each as long
#   PORT=18900
# Needs jq.
# Two more target directories are used for each (target/pgo-build/<server|echo>-{generate,use}):
# the flags of an instrumented or profile-fed build differ from a plain one's, and sharing
# `target/release` would rebuild everything each time. Needs about twice a release build's time.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
WHAT="${1:-server}"
OUT="${OUT:-$ROOT/target/pgo}"
TRAIN_ROOMS="${TRAIN_ROOMS:-200}"
TRAIN_DURATION="${TRAIN_DURATION:-10s}"
PORT="${PORT:-18900}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

case "$WHAT" in
server) package=aeroplane-server binary=aeroplane-server ;;
echo) package=aeroplane-bench-echo binary=bench-echo ;;
*)
    echo "usage: $0 [server|echo]" >&2
    exit 2
    ;;
esac

log() { printf '== %s\n' "$*" >&2; }

llvm_major="$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')"
PROFDATA="${LLVM_PROFDATA:-llvm-profdata-$llvm_major}"
if ! command -v "$PROFDATA" >/dev/null; then
    echo "$PROFDATA not found: rustc uses LLVM $llvm_major, and its profiles need that" \
        "version's llvm-profdata (Debian: apt-get install llvm-$llvm_major; or set LLVM_PROFDATA)" >&2
    exit 2
fi

work="$(mktemp -d /tmp/aeroplane-pgo.XXXXXX)"
# Where the counts go, and the merged profile: fixed paths (the profile's named by its digest), so
# that the flags of both builds stay the same from run to run and cargo rebuilds only what changed.
generate="$TARGET_DIR/pgo-build/$WHAT-generate"
use="$TARGET_DIR/pgo-build/$WHAT-use"
raw="$generate/profiles"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

log "1/4 building the instrumented $binary ($generate) and the load generator"
RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR="$generate" \
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" -p "$package"
CARGO_TARGET_DIR="$TARGET_DIR" \
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" -p aeroplane-loadtest
# Build scripts and procedural macros of the instrumented build wrote counts of their own here.
rm -rf "$raw"

log "2/4 training: $TRAIN_ROOMS rooms for $TRAIN_DURATION, twice"
ulimit -n "$(ulimit -Hn)"
instrumented="$generate/release/$binary"
if [[ "$WHAT" == server ]]; then
    "$instrumented" --listen "127.0.0.1:$PORT" --data-dir "$work/data" --log-level warn \
        "${UNLIMITED[@]}" >"$work/server.log" 2>&1 &
    loads=("--target aeroplane --players 2" "--target aeroplane --ruleset classic --players 4")
else
    "$instrumented" --listen "127.0.0.1:$PORT" >"$work/server.log" 2>&1 &
    loads=("--target broadcast" "--target echo")
fi
server_pid=$!
if ! wait_listening "$PORT" 10; then
    echo "the instrumented $binary did not start; its log:" >&2
    cat "$work/server.log" >&2
    exit 1
fi
for load in "${loads[@]}"; do
    # A game lost to a timeout now and then does not spoil the training; no action at all does.
    # shellcheck disable=SC2086 # the load's flags are words on purpose
    "$TARGET_DIR/release/aeroplane-loadtest" --server "http://127.0.0.1:$PORT" --json \
        --rooms "$TRAIN_ROOMS" --duration "$TRAIN_DURATION" $load >"$work/load.json" \
        2>"$work/load.err" || true
    actions="$(jq -r '.actions // 0' "$work/load.json" 2>/dev/null || echo 0)"
    if [[ "$actions" == 0 ]]; then
        echo "the training load ($load) played no action:" >&2
        cat "$work/load.err" "$work/server.log" >&2
        exit 1
    fi
    log "   $load: $actions actions, $(jq -r '.failed_games' "$work/load.json") games lost"
done
# A graceful stop: the instrumented binary writes its counts as the process exits.
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""
if ! compgen -G "$raw/*.profraw" >/dev/null; then
    echo "the instrumented $binary wrote no profile; its log:" >&2
    cat "$work/server.log" >&2
    exit 1
fi

log "3/4 merging the profile with $PROFDATA"
"$PROFDATA" merge -o "$work/merged.profdata" "$raw"
mkdir -p "$use"
profile="$use/$(sha256sum "$work/merged.profdata" | cut -c1-16).profdata"
cp "$work/merged.profdata" "$profile"

log "4/4 building the optimised $binary ($use)"
RUSTFLAGS="-Cprofile-use=$profile" CARGO_TARGET_DIR="$use" \
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" -p "$package"
mkdir -p "$OUT"
cp "$use/release/$binary" "$OUT/$binary"
log "done: $OUT/$binary"
