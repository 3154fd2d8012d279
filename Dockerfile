# syntax=docker/dockerfile:1
# Multi-stage build: compile with the Rust toolchain, run from a small Debian image as a non-root
# user. The web client is embedded in the binary, so the binary is all the runtime stage needs.

FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p aeroplane-server --bin aeroplane-server \
 && install -D target/release/aeroplane-server /out/aeroplane-server

FROM debian:bookworm-slim AS runtime
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/aeroplane --create-home aeroplane
COPY --from=build /out/aeroplane-server /usr/local/bin/aeroplane-server
USER aeroplane
WORKDIR /var/lib/aeroplane
ENV AEROPLANE_LISTEN=0.0.0.0:8080 \
    AEROPLANE_DATA_DIR=/var/lib/aeroplane \
    AEROPLANE_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["aeroplane-server", "probe", "http://127.0.0.1:8080/readyz"]
ENTRYPOINT ["aeroplane-server"]
