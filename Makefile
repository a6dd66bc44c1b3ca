# trimtab — one documented command per task. `make help` lists them.
PRESET ?= release
BUILD  := build/$(PRESET)
JOBS   ?= $(shell nproc)

.PHONY: help deps configure build test sanitize-test demo bench format asan image clean

help: ## Show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install missing Debian packages (apt-get; needs root or sudo)
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake --preset $(PRESET)

configure: deps $(BUILD)/build.ninja ## Configure the build tree (build/$(PRESET))

build: configure ## Build everything
	cmake --build $(BUILD) -j $(JOBS)

# A failed test is run once more (`--repeat until-pass:2`): timing-sensitive integration tests on a
# loaded 2-core machine must not sink a run for a one-off, while a real defect still fails twice.
# ctest prints the first failure in full, so a flaky test stays visible in the log.
test: build ## Build, then run every test (unit, scenario, integration, kubectl)
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure --timeout 900 --repeat until-pass:2

demo: build ## Build, then run the embedded default demo
	@bash scripts/demo.sh $(BUILD)/src/cli/trimtab

bench: build ## Build, then run the benchmarks (figures go to stdout)
	@bash scripts/bench.sh $(BUILD)

format: ## Reformat all C++ sources with clang-format
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

asan: ## Build and test with AddressSanitizer + UBSan
	$(MAKE) test PRESET=asan

# The sanitizer stage of CI (.ci/run runs it after `make test`; docs/security.md). It builds only
# what it runs: the API server's HTTP-level tests under ASan + UBSan in the `fuzz` preset's tree
# (clang; the same objects link the libFuzzer targets), every fuzz target for FUZZ_TIME seconds
# from its corpus, and a subset of those tests under TSan (`tsan` preset). About 13 minutes on
# 2 cores without ccache, most of it compiling (docs/security.md has the figures).
SANITIZE_ASAN_TESTS := cluster_apiserver_server_test cluster_apiserver_lifecycle_test \
  cluster_apiserver_hardening_test cluster_apiserver_secure_server_test \
  cluster_apiserver_client_certificate_test cluster_apiserver_auth_layer_test \
  cluster_apiserver_protobuf_decode_test adapters_http_server_test adapters_http_server_tls_test \
  cluster_store_test
SANITIZE_TSAN_TESTS := cluster_apiserver_server_test cluster_apiserver_lifecycle_test \
  cluster_apiserver_secure_server_test cluster_apiserver_client_certificate_test \
  adapters_http_server_test adapters_http_server_tls_test cluster_store_test
# FUZZ_TIME=0 builds and runs no fuzz target (about 3 of the 13 minutes).
FUZZ_TIME    ?= 5
FUZZ_TARGETS := $(if $(filter 0,$(FUZZ_TIME)),,$(addprefix fuzz_,$(notdir $(wildcard tests/fuzz/corpus/*))))
empty :=
space := $(empty) $(empty)
tests_regex = '^($(subst $(space),|,$(strip $(1))))$$'

sanitize-test: deps ## API server tests under ASan+UBSan and TSan, a short run of each fuzz target
	cmake --preset fuzz
	cmake --build build/fuzz -j $(JOBS) --target $(SANITIZE_ASAN_TESTS) $(FUZZ_TARGETS)
	ctest --test-dir build/fuzz -j $(JOBS) --output-on-failure --timeout 900 \
	  -R $(call tests_regex,$(SANITIZE_ASAN_TESTS))
	$(if $(FUZZ_TARGETS),bash scripts/fuzz.sh build/fuzz -max_total_time=$(FUZZ_TIME))
	cmake --preset tsan
	cmake --build build/tsan -j $(JOBS) --target $(SANITIZE_TSAN_TESTS)
	ctest --test-dir build/tsan -j $(JOBS) --output-on-failure --timeout 900 \
	  -R $(call tests_regex,$(SANITIZE_TSAN_TESTS))

# The version in CMakeLists.txt's project(); `make image VERSION=1.2.3` overrides it.
VERSION ?= $(shell sed -n 's/^project(trimtab VERSION \([^ )]*\).*/\1/p' CMakeLists.txt)
IMAGE   ?= trimtab

image: ## Build the container image $(IMAGE):$(VERSION) with docker (docs/deploy.md)
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) .

clean: ## Remove build trees
	rm -rf build
