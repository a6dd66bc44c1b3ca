# The trimtab image: one binary (`trimtab operator`, `trimtab local`, `trimtab simulate` ...) on
# Debian 12, built from this checkout in a first stage with exactly the packages
# scripts/install-deps.sh installs for a developer, so the image and a laptop build alike.
#
#   docker build --build-arg VERSION=0.1.0 -t trimtab:0.1.0 .
#   (or `make image`, which passes the version from CMakeLists.txt)
#
# The runtime stage carries only the shared libraries the binary links and CA certificates, runs
# as an unprivileged user (65532, as deploy/base/deployment.yaml expects) and writes nothing
# outside /tmp, so the operator's root file system can stay read-only.

FROM debian:12 AS build
ARG VERSION=0.1.0
WORKDIR /src
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN bash scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake --preset release -DTRIMTAB_VERSION="${VERSION}" \
 && cmake --build build/release --target trimtab -j"$(nproc)" \
 && install -D -m 0755 build/release/src/cli/trimtab /out/usr/local/bin/trimtab

FROM debian:12-slim
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="trimtab" \
      org.opencontainers.image.description="Autoscaling control plane for Flink jobs on Kubernetes" \
      org.opencontainers.image.version="${VERSION}"
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libcurl4 libssl3 libsqlite3-0 \
      libyaml-cpp0.7 libre2-9 libfmt9 libspdlog1.10 zlib1g \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/trimtab"]
CMD ["operator"]
