# Multi-stage build: compile with the Rust toolchain, run from a small Debian image as a non-root
# user. The web client is embedded in the binary, so the binary is all the runtime stage needs.
# (No `# syntax=` line: the builder's own Dockerfile frontend does, and needs no registry.)

FROM rust:1-bookworm AS build
WORKDIR /src
# The dependencies first, from the manifests and the lock file alone, with every workspace
# crate stubbed out: this slow layer is rebuilt only when a manifest or Cargo.lock changes, not
# on every code change. `tests/integration/deploy.rs` checks that every member's manifest is here.
COPY Cargo.toml Cargo.lock ./
COPY bench/echo/Cargo.toml bench/echo/
COPY crates/bot/Cargo.toml crates/bot/
COPY crates/client/Cargo.toml crates/client/
COPY crates/dice/Cargo.toml crates/dice/
COPY crates/loadtest/Cargo.toml crates/loadtest/
COPY crates/protocol/Cargo.toml crates/protocol/
COPY crates/rules/Cargo.toml crates/rules/
COPY crates/server/Cargo.toml crates/server/
COPY crates/store/Cargo.toml crates/store/
COPY .ci/stub-workspace .ci/
RUN .ci/stub-workspace \
 && cargo build --release --locked -p aeroplane-server --bin aeroplane-server
# Then the sources. They are older than the stubs' build, so they are touched for cargo to see
# them as changed; only the workspace's own crates compile here. The binary is stripped.
COPY . .
RUN find bench crates -name '*.rs' -exec touch {} + \
 && cargo build --release --locked -p aeroplane-server --bin aeroplane-server \
 && install -D --strip target/release/aeroplane-server /out/aeroplane-server

FROM debian:bookworm-slim AS runtime
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/aeroplane --create-home aeroplane
COPY --from=build /out/aeroplane-server /usr/local/bin/aeroplane-server
USER aeroplane
WORKDIR /var/lib/aeroplane
ENV AEROPLANE_LISTEN=0.0.0.0:8080 \
    AEROPLANE_DATA_DIR=/var/lib/aeroplane \
    AEROPLANE_LOG_FORMAT=json
EXPOSE 8080
# Liveness, not readiness: while the database is down the outbox keeps play going, and a
# restart would only cut the games short (README, "Liveness and readiness").
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["aeroplane-server", "probe", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["aeroplane-server"]
