# HeadsUp: the two commands a new user needs are `make demo` and `make test`.
# Both install what is missing first (tools/install-deps.sh) and are safe to
# run again.

SWIFT ?= swift
# A plain release build: the engine's kernels are compiled per CPU level
# (AVX-512, AVX2+FMA, baseline; Package.swift) and picked at run time, so the
# binary is portable and fast. HEADSUP_KERNELS=avx2|baseline forces a lower level.
RELEASE := -c release
HEADSUP_RELEASE := .build/release/headsup
DATASET := datasets/phone-motion-v1
# The shipped model beside the models it is compared with (those present).
DEMO_MODELS = $(foreach m,$(wildcard weights/model.h5 weights/cnn.h5 weights/seed.h5),--model $(m))

.PHONY: all deps build release demo test test-unit test-system check-data docs lint format bench scenarios clean help fuzz graph
PYTHON ?= python3

all: build

help:
	@echo "make demo    the live job on a recorded walk, then the bundled models compared on the test sessions; writes out/report.html"
	@echo "make test    build and run every test: test-unit, test-system, test-install"
	@echo "make test-unit     pure and in-process tests (no root, no daemons)"
	@echo "make test-system   namespaces, the emulated IIO kernel, D-Bus, mosquitto, feedbackd, soak, fuzzing"
	@echo "make test-install  the package: lintian, a DESTDIR install, a clean Debian root"
	@echo "make test-arm64    the arm64 package cross-built and installed into a clean arm64 Debian root under qemu-user"
	@echo "make fuzz    libFuzzer on each fuzzer target for FUZZ_SECONDS (30)"
	@echo "make bench   HeadsUp against Keras, ONNX Runtime and LiteRT on the same windows"
	@echo "make build   debug build;  make release: optimized build"
	@echo "make lint    swift format lint, the module-graph check and the docs' links;  make format: rewrite in the project's style"
	@echo "make graph   redraw the modules at the top of docs/architecture.md from Package.swift"

deps:
	@tools/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE) --product headsup

# The main job first: `headsup live` on the bundled hands walk at 4x speed (a
# status screen on a terminal, JSON lines otherwise), ending with its warning;
# then the evaluation of the bundled models on the test sessions.
demo: release
	@mkdir -p out
	$(HEADSUP_RELEASE) live --simulate crossing-hands --speed 4 --no-desktop
	$(HEADSUP_RELEASE) evaluate $(DEMO_MODELS) --json out/report.json --report out/report.html
	@echo "report: out/report.html (figures: out/report.json)"

check-data:
	@cd $(DATASET) && sha256sum --quiet -c SHA256SUMS && echo "$(DATASET): checksums match the manifest"

SWIFT_SOURCES := Sources Tests Package.swift tools/fuzz tools/bench/kernels
# Swift test suites that need the system (root and namespaces, a private
# D-Bus, mosquitto, feedbackd, minutes of real time) live in *SystemTests
# files and suites (matched as "…SystemTests/" in test names); tools/check_architecture.py keeps it so.
SYSTEM_TESTS := SystemTests/

# Every test, as CI runs it: the fast tests first, then the system's, then the package's.
test: deps check-data lint
	@$(MAKE) --no-print-directory test-unit test-system test-install test-arm64

# Pure and in-process tests: no root, no daemons (a few minutes after a build).
test-unit: deps
	$(SWIFT) build $(RELEASE) --product headsup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip $(SYSTEM_TESTS)
	@for target in $(FUZZERS); do .build/debug/fuzz-$$target 2>/dev/null || { echo "fuzz-$$target: an input of its corpus or crash files fails; rerun .build/debug/fuzz-$$target to see which"; exit 1; }; done
	HEADSUP_BIN=$(HEADSUP_RELEASE) $(PYTHON) -m unittest discover -s tools/training/tests -t .
	$(PYTHON) -m unittest discover -s tools/bench/tests -t .
	$(PYTHON) -m unittest discover -s tools/tests -t tools
	$(PYTHON) tools/check_docs.py

# Tests against real parts of the system (namespaces, the emulated IIO
# kernel, D-Bus daemons, mosquitto, feedbackd, the soak) and the fuzzers:
# under CI=true a test that cannot run here fails instead of skipping.
test-system: deps
	$(SWIFT) build $(RELEASE) --product headsup
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory fuzz
	$(PYTHON) tools/fuzz/mutate_models.py --count 30 --binary $(HEADSUP_RELEASE)
	bash Tests/Harness/iio/selftest.sh
	$(SWIFT) test --skip-build --filter $(SYSTEM_TESTS)

# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of what HeadsUp
# parses itself: the fuzzer targets of Package.swift, built in their own
# scratch path with -sanitize=fuzzer and -D FUZZING (the target's main hands
# the command line to libFuzzer's driver instead of replaying), each run FUZZ_SECONDS on a private copy of its corpus.
# A crash leaves its input in .build/fuzz/<target>/ and fails. Whole damaged
# HDF5 files go through the command line instead (tools/fuzz/mutate_models.py):
# libhdf5 itself crashes on some of them.
FUZZERS := beacon-frames session-csv model-config dbus-values
FUZZ_SECONDS ?= 30
FUZZ_SCRATCH := .build/fuzz-build
# lld (the toolchain's) links them: gold stops with an internal error on the sanitizers' objects.
FUZZ_FLAGS := -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -D -Xswiftc FUZZING -Xcc -fsanitize=fuzzer-no-link,address -Xcc -DFUZZING -Xswiftc -use-ld=lld
fuzz: deps
	@for target in $(FUZZERS); do $(SWIFT) build $(FUZZ_FLAGS) --scratch-path $(FUZZ_SCRATCH) --product fuzz-$$target || exit 1; done
	@status=0; for target in $(FUZZERS); do \
		out=.build/fuzz/$$target; rm -rf $$out && mkdir -p $$out && cp -r tools/fuzz/corpus/$$target $$out/corpus; \
		if [ -d tools/fuzz/crashes/$$target ]; then cp tools/fuzz/crashes/$$target/* $$out/corpus/; fi; \
		max_len=$$([ $$target = beacon-frames ] && echo 300 || echo 8192); \
		if $(FUZZ_SCRATCH)/release/fuzz-$$target -max_total_time=$(FUZZ_SECONDS) -max_len=$$max_len -rss_limit_mb=4096 -timeout=10 \
			-artifact_prefix=$$out/ -print_final_stats=1 $$out/corpus > $$out/log 2>&1; then \
			echo "fuzz: $$target survived $(FUZZ_SECONDS) s ($$(grep -o 'number_of_executed_units: *[0-9]*' $$out/log | grep -o '[0-9]*$$') executions, 0 crashes)"; \
		else status=1; tail -n 40 $$out/log; echo "fuzz: $$target FAILED; the input is in $$out/"; fi; \
	done; exit $$status

# Regenerate what the docs take from the code: the settings table in
# docs/configuration.md and the module drawing in docs/architecture.md.
docs: build graph
	tools/update-settings-table.sh .build/debug/headsup docs/configuration.md

# The drawing of the modules at the top of docs/architecture.md, from Package.swift (a test fails when it is stale).
graph:
	$(PYTHON) tools/module_graph.py

# Style (.swift-format), the module graph (the pure modules link no C
# library) and the docs (links resolve, no page or comment cites a missing path).
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_SOURCES)
	$(PYTHON) tools/check_architecture.py
	$(PYTHON) tools/check_docs.py

# Rewrite the Swift sources in the project's style.
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_SOURCES)

bench: release
	$(PYTHON) -m tools.bench.run_bench --binary $(HEADSUP_RELEASE) --kernels all
	$(PYTHON) -m tools.bench.families --binary $(HEADSUP_RELEASE)

clean:
	rm -rf .build

# Rewrite the replay scenarios' expected outputs (after changing the model or the pipeline).
scenarios: build
	python3 tools/make_scenarios.py
	for s in datasets/scenarios/*/; do .build/debug/headsup replay $$s --json > $$s/expected.jsonl; done

# ---------------------------------------------------------------------------
# Installing: `make install` (PREFIX, default /usr/local; DESTDIR for staging),
# `make uninstall`, `make deb` (out/headsup_<version>_<arch>.deb from the same
# staged tree). The installed binary is a portable release build, without
# -target-cpu flags, with the Swift runtime linked in (libiio, libsystemd and
# libc stay shared; libhdf5, libmosquitto and libcurl are loaded with dlopen
# when used), built in its own scratch path.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/headsup
LIBEXECDIR ?= $(PREFIX)/libexec/headsup
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/headsup
# HeadsUp reads /etc/headsup/config.yaml whatever the prefix.
SYSCONFDIR ?= /etc
# systemd and udev also read these under /usr/local/lib; D-Bus and zsh do not.
SYSTEMDSYSTEMUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSTEMDUSERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
DBUSSYSTEMPOLICYDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/dbus-1/system.d,/etc/dbus-1/system.d)
BASHCOMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPLETIONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
FISHCOMPLETIONDIR ?= $(PREFIX)/share/fish/vendor_completions.d
APPLICATIONSDIR ?= $(PREFIX)/share/applications

# ARCH=arm64 on an amd64 machine: cross-built with Debian's Swift
# (tools/cross/, docs/arm64.md), in its own scratch path; any other ARCH,
# or none, is this machine's.
CROSS_ARM64 := $(if $(filter arm64,$(ARCH)),$(if $(filter arm64,$(shell dpkg --print-architecture 2>/dev/null)),,yes))
DIST_SCRATCH := $(if $(CROSS_ARM64),.build-arm64,.build-dist)
DIST_BIN := $(DIST_SCRATCH)/release/headsup
DIST_GEN := $(DIST_SCRATCH)/generated
DIST_NICE ?= nice -n 10
# No $ORIGIN run path (nothing is loaded from beside the binary); full RELRO;
# packed relative relocations where lld and glibc >= 2.36 allow (relr-flags.sh says why;
# tools/cross/build.sh asks it about the arm64 sysroot's glibc).
DIST_LINK_BASE := --disable-local-rpath -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro
DIST_LINK := $(DIST_LINK_BASE) $(if $(CROSS_ARM64),,$(shell tools/package/relr-flags.sh))
GENERATE_MANUAL := $(DIST_SCRATCH)/argument-parser/release/generate-manual
# The package uses the build machine's systemd and udev directories (bookworm: /lib/...);
# an arm64 one, the sysroot's (trixie: /usr/lib/...).
DEB_STAGE := $(DIST_SCRATCH)/deb/debian/headsup
DEB_PKG_CONFIG = $(if $(CROSS_ARM64),PKG_CONFIG_LIBDIR=$$(tools/cross/sdk.sh sysroot)/usr/share/pkgconfig) pkg-config
DEB_DIRS = SYSTEMDSYSTEMUNITDIR=$$($(DEB_PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system) \
	UDEVRULESDIR=$$($(DEB_PKG_CONFIG) --variable=udevdir udev 2>/dev/null || echo /lib/udev)/rules.d
# The shipped models and cards (weights/folds/ stays in the source tree).
DIST_WEIGHTS = $(wildcard weights/*.h5 weights/*.json)
INSTALL ?= install
STRIP ?= $(if $(CROSS_ARM64),aarch64-linux-gnu-strip,strip)

.PHONY: dist install install-files uninstall deb test-install test-arm64

# The portable binary, the man page and completions generated from its parser.
ifeq ($(CROSS_ARM64),yes)
dist: deps
	$(DIST_NICE) tools/cross/build.sh $(DIST_SCRATCH) $(DIST_LINK)
else
dist: deps
	$(DIST_NICE) $(SWIFT) build -c release --static-swift-stdlib $(DIST_LINK) --product headsup --scratch-path $(DIST_SCRATCH)
	$(DIST_NICE) $(SWIFT) build -c release --package-path $(DIST_SCRATCH)/checkouts/swift-argument-parser \
		--scratch-path $(DIST_SCRATCH)/argument-parser --product generate-manual
	tools/package/generate-docs.sh $(DIST_BIN) $(GENERATE_MANUAL) $(DIST_GEN)
endif

install: dist
	@$(MAKE) --no-print-directory install-files
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then \
		echo "install: creating user headsup, reloading udev and systemd"; \
		systemd-sysusers $(SYSUSERSDIR)/headsup.conf || true; \
		if [ -d /run/udev ]; then udevadm control --reload && udevadm trigger --subsystem-match=iio --action=add || true; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi; \
	fi

# What install puts in place, from an already built `make dist`.
install-files:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/weights $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(SYSCONFDIR)/headsup $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR) \
		$(DESTDIR)$(SYSTEMDUSERUNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(DBUSSYSTEMPOLICYDIR) \
		$(DESTDIR)$(BASHCOMPLETIONDIR) $(DESTDIR)$(ZSHCOMPLETIONDIR) $(DESTDIR)$(FISHCOMPLETIONDIR) $(DESTDIR)$(APPLICATIONSDIR)
	$(INSTALL) -m 0755 $(DIST_BIN) $(DESTDIR)$(BINDIR)/headsup
	$(STRIP) --strip-all --remove-section=.comment $(DESTDIR)$(BINDIR)/headsup
	$(INSTALL) -m 0644 $(DIST_WEIGHTS) $(DESTDIR)$(DATADIR)/weights/
	tools/package/install-data.sh $(DESTDIR)$(DATADIR)
	$(INSTALL) -m 0644 dist/config.example.yaml $(DESTDIR)$(DATADIR)/config.example.yaml
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml ]; then \
		echo "install: keeping $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml (the example is $(DATADIR)/config.example.yaml)"; \
	else $(INSTALL) -m 0644 dist/config.example.yaml $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml; fi
	sed 's|@BINDIR@|$(BINDIR)|g' dist/systemd/headsup.service.in > $(DIST_GEN)/headsup.service
	sed 's|@BINDIR@|$(BINDIR)|g' dist/systemd/user/headsup.service.in > $(DIST_GEN)/headsup.user.service
	sed 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' dist/udev/70-headsup.rules.in > $(DIST_GEN)/70-headsup.rules
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.service $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/headsup.service
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.user.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/headsup.service
	$(INSTALL) -m 0644 dist/sysusers.d/headsup.conf $(DESTDIR)$(SYSUSERSDIR)/headsup.conf
	$(INSTALL) -m 0644 $(DIST_GEN)/70-headsup.rules $(DESTDIR)$(UDEVRULESDIR)/70-headsup.rules
	$(INSTALL) -m 0644 dist/udev/81-headsup-iio-sensor-proxy.rules $(DESTDIR)$(UDEVRULESDIR)/81-headsup-iio-sensor-proxy.rules
	$(INSTALL) -m 0755 dist/udev/iio-permissions $(DESTDIR)$(LIBEXECDIR)/iio-permissions
	$(INSTALL) -m 0644 dist/dbus/headsup.conf $(DESTDIR)$(DBUSSYSTEMPOLICYDIR)/headsup.conf
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.1.gz $(DESTDIR)$(MANDIR)/man1/headsup.1.gz
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.bash $(DESTDIR)$(BASHCOMPLETIONDIR)/headsup
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.zsh $(DESTDIR)$(ZSHCOMPLETIONDIR)/_headsup
	$(INSTALL) -m 0644 $(DIST_GEN)/headsup.fish $(DESTDIR)$(FISHCOMPLETIONDIR)/headsup.fish
	$(INSTALL) -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(INSTALL) -m 0644 dist/applications/headsup.desktop $(DESTDIR)$(APPLICATIONSDIR)/headsup.desktop

# Removes what install put there; a configuration that differs from the example stays.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/headsup $(DESTDIR)$(LIBEXECDIR)/iio-permissions \
		$(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/headsup.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/headsup.service \
		$(DESTDIR)$(SYSUSERSDIR)/headsup.conf $(DESTDIR)$(UDEVRULESDIR)/70-headsup.rules \
		$(DESTDIR)$(UDEVRULESDIR)/81-headsup-iio-sensor-proxy.rules \
		$(DESTDIR)$(DBUSSYSTEMPOLICYDIR)/headsup.conf $(DESTDIR)$(MANDIR)/man1/headsup.1.gz \
		$(DESTDIR)$(BASHCOMPLETIONDIR)/headsup $(DESTDIR)$(ZSHCOMPLETIONDIR)/_headsup \
		$(DESTDIR)$(FISHCOMPLETIONDIR)/headsup.fish $(DESTDIR)$(APPLICATIONSDIR)/headsup.desktop
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	@if cmp -s $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml dist/config.example.yaml; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml ]; then \
		echo "uninstall: keeping $(DESTDIR)$(SYSCONFDIR)/headsup/config.yaml (changed from the example)"; fi
	@rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SYSCONFDIR)/headsup 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then \
		if [ -d /run/udev ]; then udevadm control --reload || true; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi; \
		echo "uninstall: user and group headsup are kept (userdel headsup to remove them)"; \
	fi

deb: dist
	rm -rf $(DEB_STAGE)
	@$(MAKE) --no-print-directory install-files DESTDIR=$(CURDIR)/$(DEB_STAGE) PREFIX=/usr $(DEB_DIRS)
	$(if $(CROSS_ARM64),DEB_HOST_ARCH=arm64) tools/package/build-deb.sh $(DEB_STAGE) out > $(DIST_SCRATCH)/deb-path
	@echo "package: $$(cat $(DIST_SCRATCH)/deb-path)"

# The package on a clean Debian bookworm root (Tests/Harness/install/): skips
# with a reason when not root or without debootstrap, fails under CI=true.
test-install: deb
	Tests/Harness/install/destdir_test.sh
	@if command -v lintian > /dev/null; then \
		echo "lintian $$(cat $(DIST_SCRATCH)/deb-path)"; lintian --fail-on error,warning $$(cat $(DIST_SCRATCH)/deb-path); \
	elif [ "$(CI)" = true ]; then echo "test-install: lintian missing" >&2; exit 1; fi
	@rc=0; Tests/Harness/install/clean_root_test.sh --deb $$(cat $(DIST_SCRATCH)/deb-path) || rc=$$?; \
		[ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# The arm64 package on an emulated arm64 (Tests/Harness/arm64/): installed
# with apt into a clean Debian trixie arm64 root and run there under
# qemu-user, with the clean-root checks plus every replay scenario byte for
# byte and evaluate against the amd64 release binary. Skips with a reason,
# before building anything, when not root or without qemu-user-static and
# binfmt_misc; fails under CI=true. The cached arm64 root is made (or its
# apt lists refreshed) beside the builds.
test-arm64: deps
	@rc=0; Tests/Harness/arm64/arm64_test.sh --preflight || rc=$$?; \
	if [ $$rc -eq 77 ]; then exit 0; elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
	mkdir -p .build-arm64; \
	Tests/Harness/arm64/arm64_test.sh --prepare-root > .build-arm64/prepare-root.log 2>&1 & root=$$!; \
	$(MAKE) --no-print-directory dist ARCH= && $(MAKE) --no-print-directory deb ARCH=arm64 || { wait $$root; exit 1; }; \
	wait $$root || { cat .build-arm64/prepare-root.log; exit 1; }; cat .build-arm64/prepare-root.log; \
	if command -v lintian > /dev/null; then \
		echo "lintian $$(cat .build-arm64/deb-path)"; lintian --fail-on error,warning $$(cat .build-arm64/deb-path) || exit 1; \
	elif [ "$(CI)" = true ]; then echo "test-arm64: lintian missing" >&2; exit 1; fi; \
	Tests/Harness/arm64/arm64_test.sh --deb $$(cat .build-arm64/deb-path) --amd64 .build-dist/release/headsup
