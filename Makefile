# hvready: the two commands of the quick start are `make demo` and `make check`.
# Everything is built with CMake under build/ (and build-asan/ for the sanitizers).

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_OPTS ?=

.PHONY: all deps build build-asan test test-asan check format format-check demo bench soak fuzz install deb clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHVREADY_WERROR=ON $(CMAKE_OPTS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHVREADY_WERROR=ON -DHVREADY_SANITIZE=ON $(CMAKE_OPTS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under ASan+UBSan. detect_leaks stays on: unit tests must not leak.
test-asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

format-check:
	@files=$$(git ls-files '*.c' '*.h' 2>/dev/null || find agent aggregator common tests fuzz bench -name '*.[ch]'); \
	clang-format --dry-run --Werror $$files && echo "format-check: OK"

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

check: deps format-check test test-asan
	@echo "make check: all passed"

demo: build
	@bash scripts/demo.sh $(BUILD)

bench: build
	@bash bench/run.sh $(BUILD)

# 5,000 simulated agents at twice the normal rate for SOAK_MINUTES (default 10):
# no report rejected, memory flat (docs/robustness.md). Not a ctest: too long.
soak: build
	@bash bench/soak.sh $(BUILD)

fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHVREADY_FUZZ=ON -DHVREADY_SANITIZE=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	@bash scripts/fuzz.sh build-fuzz $${FUZZ_SECONDS:-60}

install: build
	cmake --install $(BUILD)

deb: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
