# HeadsUp: the two commands a new user needs are `make demo` and `make test`.
# Both install what is missing first (tools/install-deps.sh) and are safe to
# run again.

SWIFT ?= swift
# The engine's SIMD code is written with Swift's portable SIMD types; the
# release build lets the compiler use this machine's vector units (AVX-512,
# AVX2, NEON). For a binary that runs on other x86-64 machines set, e.g.,
# HEADSUP_TARGET_CPU=haswell (AVX2) or x86-64 (baseline).
HEADSUP_TARGET_CPU ?= native
RELEASE := -c release -Xswiftc -target-cpu -Xswiftc $(HEADSUP_TARGET_CPU)
HEADSUP_RELEASE := .build/release/headsup
DATASET := datasets/phone-motion-v1

.PHONY: all deps build release demo test check-data clean help

all: build

help:
	@echo "make demo    run HeadsUp's main job on the bundled data and weights"
	@echo "make test    build and run every test"
	@echo "make build   debug build;  make release: optimized build"

deps:
	@tools/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE) --product headsup

demo: release
	$(HEADSUP_RELEASE) dataset stats $(DATASET)

check-data:
	@cd $(DATASET) && sha256sum --quiet -c SHA256SUMS && echo "$(DATASET): checksums match the manifest"

test: deps check-data
	$(SWIFT) build --build-tests
	$(SWIFT) test

clean:
	rm -rf .build
