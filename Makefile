# dcutop - GNU Makefile. `make run` and `make check` install missing Debian packages first
# (scripts/install-deps.sh), then re-enter make so pkg-config sees the new libraries.

CC      ?= cc
PKGS    := ncursesw sqlite3 libpcre2-8 yajl
BUILD   ?= build
VERSION := 0.1.0
SAMPLE  := sample-traces/dcu-weather-transformer

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
           -Wwrite-strings -Wcast-qual -Wundef
OPT     ?= -O2 -g
CFLAGS  ?=
CFLAGS  += -pthread -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DDCUTOP_VERSION='"$(VERSION)"' \
           $(OPT) $(WARN) -MMD -MP -Iinclude -Isrc/model $(shell pkg-config --cflags $(PKGS) zlib 2>/dev/null)
# -liberty: binutils' demangler for mangled kernel names (src/model/names/demangler.c; Debian's
# libiberty-dev has no pkg-config file)
MODEL_LIBS := $(shell pkg-config --libs sqlite3 libpcre2-8 yajl zlib 2>/dev/null) -lcsv -liberty -lm -pthread
APP_LIBS   := $(shell pkg-config --libs ncursesw 2>/dev/null) $(MODEL_LIBS)
TEST_LIBS  := $(shell pkg-config --libs cmocka 2>/dev/null) $(MODEL_LIBS)

MODEL_SRC := $(wildcard src/model/*.c src/model/*/*.c)
VIEW_SRC  := $(wildcard src/view/*.c)
APP_SRC   := $(wildcard src/app/*.c)
TEST_SRC  := $(wildcard tests/unit/test_*.c)

MODEL_OBJ := $(MODEL_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/default_rules.o $(BUILD)/gen/default_peaks.o \
             $(BUILD)/gen/repro_runtime.o
VIEW_OBJ  := $(VIEW_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/default_theme.o $(BUILD)/gen/mono_theme.o
APP_OBJ   := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN  := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# the app without main() and without term_curses.c (the only curses file): tests link it
APP_LIB_OBJ := $(filter-out $(BUILD)/src/app/main.o $(BUILD)/src/app/term_curses.o,$(APP_OBJ))
TEST_COMMON := $(BUILD)/tests/unit/testutil.o

.PHONY: all run check test asan bench clean deps deps-check update-golden update-screens
.PHONY: check-full valgrind-pass scale-pass unit-asan-pass test-unit-asan
.PHONY: check-stages asan-pass test-asan fuzz fuzz-build fuzz-bins fuzz-smoke fuzz-long docs

all: dcutop

dcutop: $(APP_OBJ) $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJ) $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a $(APP_LIBS) $(LDFLAGS)

# model and view are static libraries that tests link WITHOUT ncurses: a curses call in
# either fails to link (STYLE.md 1). Each is written anew, so that an object whose source is
# gone does not stay in it.
$(BUILD)/libdcumodel.a: $(MODEL_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/libdcuview.a: $(VIEW_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/libdcuapp.a: $(APP_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/default_rules.c: src/model/names/default.rules tools/text2c.sh
	@mkdir -p $(dir $@)
	sh tools/text2c.sh dcutop_default_rules < $< > $@
$(BUILD)/gen/default_peaks.c: src/model/analysis/default.peaks tools/text2c.sh
	@mkdir -p $(dir $@)
	sh tools/text2c.sh dcutop_default_peaks < $< > $@
$(BUILD)/gen/repro_runtime.c: src/model/analysis/repro_runtime.py tools/text2c.sh
	@mkdir -p $(dir $@)
	sh tools/text2c.sh dcutop_repro_runtime < $< > $@
$(BUILD)/gen/default_theme.c: themes/default.theme tools/text2c.sh
	@mkdir -p $(dir $@)
	sh tools/text2c.sh dcutop_default_theme < $< > $@
$(BUILD)/gen/mono_theme.c: themes/mono.theme tools/text2c.sh
	@mkdir -p $(dir $@)
	sh tools/text2c.sh dcutop_mono_theme < $< > $@
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $(TEST_COMMON) $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_COMMON) $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a $(TEST_LIBS) $(LDFLAGS)

# doc/keys.md, doc/options.md and the OPTIONS and KEYS of dcutop.1, generated from the key
# and option tables by a small program linked with the app library (tests/cli/test_docs.sh
# fails when they are stale)
$(BUILD)/tools/docgen: $(BUILD)/tools/docgen.o $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a $(MODEL_LIBS) $(LDFLAGS)
docs: dcutop $(BUILD)/tools/docgen
	sh tools/gen-docs.sh $(BUILD)/tools/docgen .

# ---- the two set-up commands of the README -------------------------------------------
deps:
	@sh scripts/install-deps.sh build
deps-check:
	@sh scripts/install-deps.sh check

run: deps
	@$(MAKE) --no-print-directory all
	./dcutop $(SAMPLE)

# make check (minutes): the suite, its tests side by side, and the unit tests under ASan +
# UBSan. make check-full adds the whole suite under ASan + UBSan, valgrind and every fuzz
# target for FUZZ_SECONDS. Each ends with one closing line that sums its stages
# (tests/tools/check-all.sh).
check: deps-check
	@CHECK_STAGES="suite unit-asan" MAKE="$(MAKE)" sh tests/tools/check-all.sh
check-full: deps-check
	@CHECK_STAGES="asan valgrind scale cluster fuzz" MAKE="$(MAKE)" sh tests/tools/check-all.sh
check-stages:
	@MAKE="$(MAKE)" sh tests/tools/check-all.sh

# the suite; valgrind (minutes of its own) is check-full's
test: dcutop $(TEST_BIN) $(BUILD)/tools/docgen
	@TESTS_SKIP="test_valgrind.sh test_deb.sh test_slurm.sh" sh tests/tools/run-tests.sh $(BUILD)
valgrind-pass: dcutop
	@sh tests/tools/run-tests.sh $(BUILD) tests/cli/test_valgrind.sh
# the scale checks of the plain build that make check leaves out (100,000 files)
scale-pass: dcutop
	@CHECK_FULL=1 sh tests/tools/run-tests.sh $(BUILD) tests/cli/test_walk.sh

# the same suite under AddressSanitizer and UndefinedBehaviorSanitizer, in its own build dir
asan: deps-check
	@$(MAKE) --no-print-directory asan-pass
asan-pass:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" DCUTOP_BIN=build-asan/dcutop test-asan
test-asan: $(BUILD)/dcutop $(TEST_BIN) $(BUILD)/tools/docgen
	@TESTS_SKIP="test_valgrind.sh test_deb.sh test_slurm.sh" DCUTOP=$(BUILD)/dcutop sh tests/tools/run-sanitized.sh $(BUILD)
# the unit tests alone under ASan + UBSan (make check's second stage)
# (-O0 and a folder of its own: it compiles four times faster than the -O1 of the full pass)
unit-asan-pass:
	@$(MAKE) --no-print-directory BUILD=build-asan-unit OPT="-O0 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" test-unit-asan
test-unit-asan: $(TEST_BIN)
	@sh tests/tools/run-sanitized.sh $(BUILD) $(TEST_BIN)
$(BUILD)/dcutop: $(APP_OBJ) $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJ) $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a $(APP_LIBS) $(LDFLAGS)

bench:
	@sh scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BUILD)/bench/gen_results_csv $(BUILD)/bench/gen_kineto_json \
	    $(BUILD)/bench/json_libs $(BUILD)/bench/csv_bare $(BUILD)/bench/duckdb_csv
	@BUILD=$(BUILD) sh bench/run.sh
$(BUILD)/bench/gen_results_csv: bench/gen_results_csv.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<
$(BUILD)/bench/gen_kineto_json: bench/gen_kineto_json.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<
# the floor for the CSV parser: libcsv alone, counting fields
$(BUILD)/bench/csv_bare: bench/csv_bare.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< -lcsv
# DuckDB's C library through dlopen (bench/fetch_duckdb.sh fetches it; never committed)
$(BUILD)/bench/duckdb_csv: bench/duckdb_csv.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< -ldl
# yajl (what dcutop uses) against json-c on the same file; json-c only for this measurement
$(BUILD)/bench/json_libs: bench/json_libs.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< $(shell pkg-config --cflags --libs yajl json-c 2>/dev/null)

# Golden outputs are rewritten only on purpose; review the diff before committing.
update-golden: dcutop
	@sh tests/tools/update-golden.sh

# ---- fuzzing (tests/fuzz): libFuzzer targets, one per parser ----------------------------
# The libraries are rebuilt with clang and the fuzzer's coverage hooks in their own folder.
FUZZ_BUILD   := build-fuzz
FUZZ_NAMES   := $(filter-out common,$(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_OPT     := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=all
FUZZ_SECONDS ?= 30

fuzz: deps-check
	@$(MAKE) --no-print-directory fuzz-build
fuzz-build:
	@$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) OPT="$(FUZZ_OPT)" fuzz-bins
.PRECIOUS: $(BUILD)/tests/fuzz/%.o
fuzz-bins: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz_common.o $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $(filter %.o,$^) \
	    $(BUILD)/libdcuapp.a $(BUILD)/libdcuview.a $(BUILD)/libdcumodel.a $(MODEL_LIBS)
# each target for FUZZ_SECONDS (30) from its committed corpus; fails on any finding
fuzz-smoke: fuzz-build
	@sh tests/fuzz/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_NAMES)
# one target for a long run, keeping what it finds: make fuzz-long T=json FUZZ_SECONDS=600
fuzz-long: fuzz-build
	@FUZZ_KEEP=$(FUZZ_BUILD)/corpus-new sh tests/fuzz/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(T)

clean:
	rm -rf build build-asan build-asan-unit build-fuzz dcutop

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the binary, the themes (found from the
# binary as ../share/dcutop/themes) and the man page.
PREFIX ?= /usr/local
.PHONY: install
install: dcutop
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/dcutop/themes \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 dcutop $(DESTDIR)$(PREFIX)/bin/dcutop
	install -m 644 themes/*.theme $(DESTDIR)$(PREFIX)/share/dcutop/themes/
	install -m 644 dcutop.1 $(DESTDIR)$(PREFIX)/share/man/man1/dcutop.1
	install -m 755 scripts/dcutop-slurm $(DESTDIR)$(PREFIX)/bin/dcutop-slurm
	install -m 644 dcutop-slurm.1 $(DESTDIR)$(PREFIX)/share/man/man1/dcutop-slurm.1

# make deb [DEB_OUT=dir]: a Debian package of the built binary (scripts/make-deb.sh), checked
# with lintian; `apt install ./dcutop_*.deb` installs it with its libraries.
DEB_OUT ?= .
.PHONY: deb cluster-pass
deb:
	@sh scripts/install-deps.sh deb
	@$(MAKE) --no-print-directory dcutop
	@sh scripts/make-deb.sh $(VERSION) $(DEB_OUT)
	@deb=$(DEB_OUT)/dcutop_$(VERSION)_$$(dpkg --print-architecture).deb; \
	    if command -v lintian >/dev/null; then lintian --fail-on error "$$deb"; fi
# check-full's stage for a cluster: the package built, linted and installed on a fresh Debian
# root; the Slurm map/reduce on a single-node Slurm started by the test
cluster-pass: dcutop
	@CHECK_FULL=1 sh tests/tools/run-tests.sh $(BUILD) tests/cli/test_deb.sh tests/cli/test_slurm.sh

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
