# PatchEngine — build, test, demo and benchmark entry points.
# `make test` and `make demo` install the Debian packages they need when missing.

SWIFT ?= swift
# postgresql: PatchServiceTests start a throwaway server (initdb + pg_ctl); chromium: the status
# page is checked in headless Chromium. Both are needed so CI never skips those tests.
# faketime: the TUF conformance suite runs some clients at a faked date. gdb: `make stress` turns
# a crashed test process's core into its threads' frames.
DEB_PACKAGES := libjavascriptcoregtk-4.1-dev libgnustep-base-dev libobjc-12-dev libffi-dev postgresql chromium faketime gdb

.PHONY: deps build test stress jspatch-suite bench demo qa-demo clean tuf-conformance tuf-interop

# Installs the system packages only when one of them is missing (needs root or sudo).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# A crash prints the crashed thread's backtrace and ends the run at once (the backtracer's
# default, every thread fully symbolicated, once hung a CI run until its time limit); a test run
# that hangs is stopped after TEST_TIMEOUT seconds; a step that fails prints its failures again at
# its end (Tools/run-tests/run.sh).
export SWIFT_BACKTRACE ?= enable=yes,interactive=no,threads=crashed,symbolicate=fast
# A child test process that fails leaves its whole output here (Tests/.../ChildTestProcess.swift).
export PATCHENGINE_CHILD_LOG_DIR ?= $(CURDIR)/.build/child-logs
TEST_TIMEOUT ?= 900
RUN_TESTS = SWIFT=$(SWIFT) TEST_TIMEOUT=$(TEST_TIMEOUT) ./Tools/run-tests/run.sh

# iOS as an App Store build runs: no libffi, no private symbol, no layout shortcut
# (docs/private-symbols.md).
APP_STORE_CONFIGURATION = PATCHENGINE_WITHOUT_LIBFFI=1 PATCHENGINE_PRIVATE_SYMBOLS=absent PATCHENGINE_NO_LAYOUT_SHORTCUTS=1
# The suites whose tests end entries with the limits (docs/limits.md).
LIMIT_SUITES = ExecutionTimeLimitTests|InternalCallTests|CheckPointLimitTests|ThreadedTimeLimitTests|LimitMonitorTests|HeapGrowthLimitTests|LimitEndByExceptionTests|LimitEndChoiceTests|PromiseJobLimitTests|BuiltinWalkLimitTests|LockDropOrderTests|ConcurrentVMTests|VMReplayTests

# The whole suite, then the engine's own tests again on the forwarding route (JSPatch's design
# route; the default is the closure route), again with JavaScriptCore's layout shortcuts off (the
# C API path a JavaScriptCore whose layouts don't match takes: LayoutShortcuts.swift), then
# without libffi as on iOS (register entries, forwarding for the other methods, register calls,
# NSInvocation for the rest: docs/platform-notes.md, "Apple platforms"; JSPatch's suite too) and
# in the App Store configuration, then the limit suites with the limits ended by JavaScriptCore's
# watchdog (`PatchEngine.LimitEnd.watchdog`; the default end is the exception), with polling and
# with signal traps, then the hook tests with a memory fence per hooked call instead of membarrier
# (what systems without it run).
test: deps
	$(SWIFT) build --build-tests
	$(RUN_TESTS)
	PATCHENGINE_DISPATCH_ROUTE=forwarding $(RUN_TESTS) --filter PatchEngineTests
	PATCHENGINE_DISPATCH_ROUTE=forwarding $(RUN_TESTS) --filter JSPatchSuiteTests
	@$(JSPATCH_SUITE_CHECK)
	PATCHENGINE_NO_LAYOUT_SHORTCUTS=1 $(RUN_TESTS) --filter PatchEngineTests
	PATCHENGINE_WITHOUT_LIBFFI=1 $(RUN_TESTS) --filter PatchEngineTests
	PATCHENGINE_WITHOUT_LIBFFI=1 $(RUN_TESTS) --filter JSPatchSuiteTests
	$(APP_STORE_CONFIGURATION) $(RUN_TESTS) --filter PatchEngineTests
	PATCHENGINE_LIMITS_END=watchdog $(RUN_TESTS) --filter '$(LIMIT_SUITES)'
	PATCHENGINE_LIMITS_END=watchdog JSC_usePollingTraps=false $(RUN_TESTS) --filter 'ExecutionTimeLimitTests|HeapGrowthLimitTests|ThreadedTimeLimitTests|LockDropOrderTests|ConcurrentVMTests'
	PATCHENGINE_NO_MEMBARRIER=1 $(RUN_TESTS) --filter 'HookFastPathTests|ToolkitConcurrencyTests|AspectsTests|HookHierarchyTests|ToolkitCompositionTests|DispatchTableConcurrencyTests'
	$(MAKE) tuf-conformance
	$(MAKE) tuf-interop
	$(MAKE) package-check

# An app depends on the package by version (`from: "1.0.0"`), builds and runs PatchEngine.evaluate
# (Tools/package-check/run.sh): SwiftPM allows that only while the manifest stays tools 6.2+.
.PHONY: package-check
package-check: deps
	SWIFT=$(SWIFT) ./Tools/package-check/run.sh

# Every suite whose tests start threads, STRESS_RUNS times (default 50) in each configuration
# (closure route, forwarding route, no libffi, App Store configuration on the forwarding route),
# under CPU contention: busy processes pinned to every core beside the test processes (two runs per
# core at once, STRESS_JOBS), and in this debug build seeded pauses at the engine's yield points
# (PATCHENGINE_STRESS_SEED; each failure is printed with its seed). Tools/stress/run.sh; failed runs' logs stay in stress-results/.
STRESS_RUNS ?= 50
stress: deps
	$(SWIFT) build --build-tests
	STRESS_RUNS=$(STRESS_RUNS) SWIFT=$(SWIFT) ./Tools/stress/run.sh

# The TUF conformance suite (../shared/third_party/tuf-conformance, run from there) against
# patch-tuf-client; fails loudly when the suite's folder is missing (Tools/tuf-conformance/run.sh).
# TUF_MIN_PASSED: passes required while the client does not pass everything yet (empty: all).
TUF_MIN_PASSED ?=
tuf-conformance: deps
	SWIFT=$(SWIFT) TUF_MIN_PASSED=$(TUF_MIN_PASSED) ./Tools/tuf-conformance/run.sh

# python-tuf 7.0.0 both ways: PatchUpdater reads a repository python-tuf's metadata API wrote, and
# python-tuf's ngclient reads one `patchctl repo` published (Tools/tuf-interop/run.sh).
tuf-interop: deps
	SWIFT=$(SWIFT) ./Tools/tuf-interop/run.sh

# JSPatch's own suite (JSPatchTests.m and its scripts, read from ../shared/third_party/jspatch-tests)
# on both dispatch routes and without libffi (as on iOS); each run prints
# "JSPatch suite (<route> route): N of 146 assertion sites pass".
# Without that folder the suite is skipped, loudly; .ci/run sets PATCHENGINE_REQUIRE_JSPATCH_SUITE=1,
# which makes a missing suite a failure.
JSPATCH_SUITE_CHECK = [ -d "$${JSPATCH_SUITE_DIR:-../shared/third_party/jspatch-tests}" ] || \
	echo "*** JSPatch's own suite was NOT run: ../shared/third_party/jspatch-tests is missing ***"
jspatch-suite: deps
	$(SWIFT) build --build-tests
	$(RUN_TESTS) --filter JSPatchSuiteTests
	PATCHENGINE_DISPATCH_ROUTE=forwarding $(RUN_TESTS) --filter JSPatchSuiteTests
	PATCHENGINE_WITHOUT_LIBFFI=1 $(RUN_TESTS) --filter JSPatchSuiteTests
	@$(JSPATCH_SUITE_CHECK)

# Apple platforms: every Objective-C and C file of the package (the runtime core, the engine's C
# support, the Objective-C API, the test, benchmark and sample fixtures) compile-checked (clang -fsyntax-only) for
# arm64-apple-ios15.0, arm64-apple-macos13.0 and x86_64-apple-macos13.0 against Apple's runtime
# headers (../shared/tools/apple-compile-check, once per target: Tools/apple-check/run.sh;
# nothing is linked or run). Fails unless every file compiles. .ci/run runs it after the tests.
APPLE_CHECK ?= ../shared/tools/apple-compile-check/run.sh
.PHONY: apple-check
apple-check: deps
	APPLE_CHECK=$(APPLE_CHECK) ./Tools/apple-check/run.sh

# arm64 executed, not only compile-checked: the runtime core's register paths (register and
# mixed-register calls and entries, variadic sends, swizzle continuations, forwarding's
# NSInvocation marshalling) cross-compiled for aarch64 Linux against a Debian arm64 root (built
# once into .build/arm64-root) and run under qemu-aarch64, as iOS runs them (no libffi); every
# result compared with compiled code (Tools/arm64-check/run.sh, Tests/Arm64Check). Installs
# qemu-user and mmdebstrap when missing. .ci/run runs it after the tests.
.PHONY: arm64-check
arm64-check:
	./Tools/arm64-check/run.sh

# Prints the benchmark table and writes bench-results/latest.json, then the live QA loop's
# save → applied latency (qaloopbench; see Benchmarks/README.md).
# Extra options: make bench BENCH_ARGS="--filter preprocessor --runs 9"
BENCH_ARGS ?=
bench: deps
	$(SWIFT) run -c release patchbench $(BENCH_ARGS)
	$(SWIFT) build -c release --product patchctl
	$(SWIFT) run -c release qaloopbench
	SWIFT=$(SWIFT) ./Tools/tuf-bench/run.sh

demo: deps
	./Samples/demo.sh

# The live QA loop (patchctl dev + the shop's live mode): save → screen changes within a second,
# a syntax error back with line:column, the fix applied again (Samples/qa-demo.sh).
qa-demo: deps
	./Samples/qa-demo.sh

clean:
	rm -rf .build
