#!/usr/bin/env bash
# Installs the Debian packages trimtab needs to build, test and run its demo.
# Safe to run repeatedly: it only calls apt-get when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  ccache  # reuses compiled objects across builds and checkouts (CMakeLists.txt)
  libboost-dev libboost-system-dev
  libcurl4-openssl-dev openssl
  libssl-dev  # TLS of trimtab local's API server and its local CA (src/adapters/http/x509.h)
  nlohmann-json3-dev libyaml-cpp-dev libre2-dev
  libsqlite3-dev zlib1g-dev
  libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-dev  # libFuzzer and the sanitizer runtimes: `make sanitize-test`, fuzz preset
  python3 python3-kubernetes python3-yaml
  prometheus  # a real Prometheus for the custom-metric source's integration test
  chromium chromium-driver python3-selenium  # the dashboard's end-to-end test (headless)
  libpqxx-dev  # the standalone autoscaler's PostgreSQL state store (trimtab autoscale)
  postgresql  # a real PostgreSQL server the state store's tests start (initdb, pg_ctl)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
