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

.PHONY: all deps build release demo test check-data lint format bench scenarios clean help
PYTHON ?= python3

all: build

help:
	@echo "make demo    evaluate the bundled model on the bundled test sessions; writes out/report.html"
	@echo "make test    build and run every test"
	@echo "make bench   HeadsUp against Keras, ONNX Runtime and LiteRT on the same windows"
	@echo "make build   debug build;  make release: optimized build"
	@echo "make lint    swift format lint and the module-graph check;  make format: rewrite in the project's style"

deps:
	@tools/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE) --product headsup

demo: release
	@mkdir -p out
	$(HEADSUP_RELEASE) evaluate --json out/report.json --report out/report.html
	@echo "report: out/report.html (figures: out/report.json)"

check-data:
	@cd $(DATASET) && sha256sum --quiet -c SHA256SUMS && echo "$(DATASET): checksums match the manifest"

SWIFT_SOURCES := Sources Tests Package.swift tools/fuzz

test: deps check-data lint
	$(SWIFT) build $(RELEASE) --product headsup
	$(SWIFT) build --build-tests
	tools/fuzz/run.sh 30
	$(PYTHON) tools/fuzz/mutate_models.py --count 30 --binary $(HEADSUP_RELEASE)
	bash Tests/Harness/iio/selftest.sh
	HEADSUP_BIN=.build/debug/headsup $(PYTHON) -m unittest discover -s tools/training/tests
	$(PYTHON) -m unittest discover -s tools/bench/tests
	$(SWIFT) test

# Style (.swift-format) and the module graph: the pure modules link no C library.
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_SOURCES)
	$(PYTHON) tools/check_architecture.py

# Rewrite the Swift sources in the project's style.
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_SOURCES)

bench: release
	$(PYTHON) tools/bench/run_bench.py --binary $(HEADSUP_RELEASE)

clean:
	rm -rf .build

# Rewrite the replay scenarios' expected outputs (after changing the model or the pipeline).
scenarios: build
	python3 tools/make_scenarios.py
	for s in datasets/scenarios/*/; do .build/debug/headsup replay $$s --json > $$s/expected.jsonl; done
