# xdpbr - XDP Ethernet bridge
#
#   make            build the datapath, skeleton, xdpbrd and xdpbr (first
#                   checks what the build needs: tools/checkdeps.sh names
#                   the missing Debian packages)
#   make deps       install build and test dependencies (Debian 12, as root)
#   make demo       run the bridge on a demo topology of network namespaces
#   make check      run all tests (unit, BPF_PROG_RUN, integration, the
#                   short sanitizer runs on a second build in build-san/,
#                   and the VM lane)
#   make check-vm   only the VM lane: Debian 12's kernel in QEMU (tests/vm/)
#   make install    install into $(DESTDIR)$(PREFIX) (default /usr/local);
#                   make uninstall, with the same variables, removes it again
#   make deb        build the Debian package into $(BUILD)/deb/ (tools/mkdeb.sh)

BUILD    ?= $(if $(filter 1,$(SANITIZE)),build-san,build)
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	    -Wformat=2 -Wshadow -Wstrict-prototypes
CPPFLAGS += -Iinclude -Ilib -I$(BUILD) -D_GNU_SOURCE -MMD -MP

# Libraries per part, from pkg-config: each binary links only what it uses.
# The compile flags follow our own -I, so lib/json.h is found before
# json-c's json.h. pkg-config's complaints about a missing library are
# silenced here: depcheck (below) says what to install instead.
PKG_CONFIG  ?= pkg-config
LIB_PKGS    := libbpf libxdp libmnl json-c
DAEMON_PKGS := $(LIB_PKGS) libsystemd libmicrohttpd inih libcap-ng libseccomp
CLI_PKGS    := $(LIB_PKGS)
pkg = $(shell $(PKG_CONFIG) $(1) 2>/dev/null)
LIB_PKG_CFLAGS    := $(call pkg,--cflags $(LIB_PKGS))
DAEMON_PKG_CFLAGS := $(call pkg,--cflags $(DAEMON_PKGS))
CLI_PKG_CFLAGS    := $(call pkg,--cflags $(CLI_PKGS))
LIB_LDLIBS        := $(call pkg,--libs $(LIB_PKGS))
DAEMON_LDLIBS     := $(call pkg,--libs $(DAEMON_PKGS)) -lpthread
CLI_LDLIBS        := $(call pkg,--libs $(CLI_PKGS))

# The release, and the git revision of the tree built ("unknown" outside
# git, or in a tree that is not the top of its own repository):
# `xdpbrd --version`, `xdpbr -V`. Only lib/version.c sees them; it is
# rebuilt when either changes ($(BUILD)/version.stamp).
VERSION  := 0.1.0
GIT_REV  := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
		    git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_FLAGS := -DXDPBR_VERSION='"$(VERSION)"' -DXDPBR_GIT='"$(GIT_REV)"'

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -Iinclude -Ibpf $(if $(MULTIARCH),-I/usr/include/$(MULTIARCH)) -MMD -MP

BPF_OBJ  := $(BUILD)/xdpbr.bpf.o
SKEL     := $(BUILD)/xdpbr.skel.h

# lib/: the user-space library of xdpbrd, xdpbr, the tools and the tests.
LIB_SRCS := lib/log.c lib/util.c lib/paths.c lib/pins.c lib/fdbtab.c \
	    lib/ports.c lib/portstats.c lib/hook.c lib/load.c lib/brport.c lib/bridge.c \
	    lib/xdpshare.c lib/netlink.c lib/netns.c \
	    lib/json.c lib/ctl.c lib/report.c lib/events.c lib/hostif.c lib/version.c \
	    lib/lock.c lib/fault.c lib/kfdb.c lib/kbridge.c lib/overlay.c lib/stpstate.c lib/stpmap.c lib/upgrade.c lib/settings.c
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libxdpbr.a

# daemon/: xdpbrd; cli/: xdpbr. The *_SRCS are the modules without main(),
# which the unit tests and fuzz harnesses link too.
DAEMON_SRCS := daemon/config.c daemon/http.c daemon/httpproc.c daemon/privs.c daemon/sandbox.c daemon/evpn.c daemon/brmirror.c daemon/mdbmirror.c daemon/macset.c daemon/rstp.c \
	       daemon/stpd.c daemon/fdbflush.c daemon/hostdev.c
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
# xdpbrd itself: its main and the parts of struct daemon (daemon/daemon.h),
# in xdpbrd only.
XDPBRD_SRCS := daemon/xdpbrd.c daemon/options.c daemon/apply.c daemon/links.c daemon/loop.c
XDPBRD_OBJS := $(XDPBRD_SRCS:%.c=$(BUILD)/%.o)
CLI_SRCS    := cli/cli.c cli/common.c cli/print.c cli/cmd_bridge.c cli/cmd_link.c cli/cmd_fdb.c \
	       cli/cmd_vlan.c cli/cmd_stats.c cli/cmd_monitor.c cli/cmd_vxlan.c cli/cmd_stp.c
CLI_OBJS    := $(CLI_SRCS:%.c=$(BUILD)/%.o)

BINS     := $(BUILD)/xdpbrd $(BUILD)/xdpbr

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
BPFTEST   := $(BUILD)/tests/test_datapath
BPFTEST_OBJS := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(wildcard tests/bpf/*.c))
TOOLS     := $(BUILD)/tools/sendframe $(BUILD)/tools/fdbfill $(BUILD)/tools/tapwire \
	     $(BUILD)/tools/jitlines $(BUILD)/tools/netnscookie $(BUILD)/tools/verifierstats \
	     $(BUILD)/tools/tcxprogs

PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
UNITDIR    ?= $(PREFIX)/lib/systemd/system
BPFDIR     ?= $(PREFIX)/lib/xdpbr
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
# The commented example configuration (the Debian package puts it in
# /usr/share/doc/xdpbr/examples/ instead).
EXAMPLE    ?= $(SYSCONFDIR)/xdpbr/example.conf
# The kernel's user-space STP helper: the kernel runs it by this path, so
# it is not under PREFIX (daemon/bridge-stp says what it answers). One of
# another (mstpd's) is left where it is: make install says so, and xdpbr's
# bridge devices then run without user-space STP.
STPHELPER  ?= /sbin/bridge-stp

.PHONY: all deps demo check clean install uninstall deb depcheck FORCE
all: $(BINS) $(BPF_OBJ) $(TOOLS)

deps:
	@tools/deps.sh

# Before anything is compiled: every tool, library and header the build
# needs is there, or a list of what is missing with its Debian package and
# a pointer to make deps (rather than the compiler's first "file not
# found"). Order-only: it runs once a make, and rebuilds nothing.
depcheck:
	@CC='$(CC)' CLANG='$(CLANG)' BPFTOOL='$(BPFTOOL)' PKG_CONFIG='$(PKG_CONFIG)' \
		MULTIARCH='$(MULTIARCH)' tools/checkdeps.sh \
		$(if $(filter check-bins check %/tests/%,$(MAKECMDGOALS)),test)

$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD) depcheck
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name xdpbr > $@.tmp && mv $@.tmp $@

$(BUILD)/lib/%.o: lib/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/version.stamp: FORCE | $(BUILD)
	@echo '$(VERSION) $(GIT_REV)' | cmp -s - $@ || echo '$(VERSION) $(GIT_REV)' >$@
$(BUILD)/lib/version.o $(BUILD)/fuzz/lib/version.o: $(BUILD)/version.stamp
$(BUILD)/lib/version.o $(BUILD)/fuzz/lib/version.o: CPPFLAGS += $(VERSION_FLAGS)

$(BUILD)/daemon/%.o: daemon/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DAEMON_PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/cli/%.o: cli/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLI_PKG_CFLAGS) $(CFLAGS) -c $< -o $@

# Made afresh: ar would keep members whose sources have left the list.
$(LIB): $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/xdpbrd: $(XDPBRD_OBJS) $(DAEMON_OBJS) $(LIB)
	$(CC) $(LDFLAGS) $^ $(DAEMON_LDLIBS) -o $@

$(BUILD)/xdpbr: $(BUILD)/cli/xdpbr.o $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) $^ $(CLI_LDLIBS) -o $@

# Unit tests: real module code, libbpf syscalls wrapped (tests/unit/mock_bpf.c).
UNIT_WRAP := -Wl,--wrap=bpf_map_lookup_batch,--wrap=bpf_map_get_next_key,--wrap=bpf_map_lookup_elem,--wrap=bpf_map_update_elem,--wrap=bpf_map_delete_elem,--wrap=bpf_map_delete_batch,--wrap=bpf_obj_get,--wrap=libbpf_num_possible_cpus,--wrap=bpf_obj_get_info_by_fd
# They see every folder's headers and link every module (the daemon's and
# the CLI's without their main()), so they need every library.
TEST_CPPFLAGS := -Idaemon -Icli $(DAEMON_PKG_CFLAGS)
$(BUILD)/tests/%.o: tests/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $(BUILD)/tests/unit/mock_bpf.o $(DAEMON_OBJS) $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) $^ $(UNIT_WRAP) $(DAEMON_LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka) -o $@

# Keep the test objects: they are intermediate files to make.
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tests/unit/mock_bpf.o $(BPFTEST_OBJS) \
	    $(BUILD)/tools/fdbfill.o

# The BPF_PROG_RUN fixtures: every tests/bpf/*.c (harness, tables, main).
$(BPFTEST): $(BPFTEST_OBJS) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LIB_LDLIBS) -o $@

$(BUILD)/tools/tapwire: tools/tapwire.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@

$(BUILD)/tools/jitlines: tools/jitlines.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -lbpf -o $@

$(BUILD)/tools/verifierstats: tools/verifierstats.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -lbpf -o $@

$(BUILD)/tools/tcxprogs: tools/tcxprogs.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -lbpf -o $@

$(BUILD)/tools/netnscookie: tools/netnscookie.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@

$(BUILD)/tools/sendframe: tools/sendframe.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@

$(BUILD)/tools/fdbfill: $(BUILD)/tools/fdbfill.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(LIB_LDLIBS) -o $@
$(BUILD)/tools/%.o: tools/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD):
	@mkdir -p $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all $(TOOLS)
	tools/demo.sh

# make check also builds everything with ASan and UBSan into $(SAN_BUILD)
# (see "fuzzing and sanitizers" below), and tests/run.sh runs the unit and
# BPF_PROG_RUN suites of that build, and tests/integration/test_asan.sh its
# daemon, next to the normal ones.
SAN_BUILD ?= build-san

.PHONY: check-bins
check-bins: all $(UNIT_BINS) $(BPFTEST) $(TOOLS)

check: deps
	@$(MAKE) --no-print-directory check-bins
	@$(if $(filter $(SAN_BUILD),$(BUILD)),:,$(MAKE) --no-print-directory SANITIZE=1 BUILD=$(SAN_BUILD) check-bins)
	BUILD=$(BUILD) SAN_BUILD=$(SAN_BUILD) tests/run.sh

# make check-vm: only the VM lane (tests/vm/): Debian 12's own kernel,
# fetched with apt-get download into /var/cache/xdpbr-vm (XDPBR_VM_CACHE),
# booted in QEMU with e1000e and virtio-net NICs on this build. make check
# runs it too when qemu-system-x86_64 is installed (tools/deps.sh installs it).
.PHONY: check-vm
check-vm: deps
	@$(MAKE) --no-print-directory all $(TOOLS)
	BUILD=$(BUILD) tests/run.sh vm/

# What make install installs and make uninstall removes: one list, so the
# two cannot disagree. Each word is MODE:FROM:TO (TO under $(DESTDIR)). The
# datapath object is for `ip link ... xdp obj` (xdpbrd and xdpbr carry
# their own copy, the skeleton); the completion file serves both commands.
INSTALL_FILES = \
	0755:$(BUILD)/xdpbrd:$(SBINDIR)/xdpbrd \
	0755:$(BUILD)/xdpbr:$(SBINDIR)/xdpbr \
	0644:$(BPF_OBJ):$(BPFDIR)/xdpbr.bpf.o \
	0644:$(BUILD)/xdpbrd@.service:$(UNITDIR)/xdpbrd@.service \
	0644:man/xdpbrd.8:$(MANDIR)/man8/xdpbrd.8 \
	0644:man/xdpbr.8:$(MANDIR)/man8/xdpbr.8 \
	0644:man/xdpbrd.conf.5:$(MANDIR)/man5/xdpbrd.conf.5 \
	0644:tools/completion/xdpbr:$(COMPLETIONDIR)/xdpbr \
	0644:tools/completion/xdpbr:$(COMPLETIONDIR)/xdpbrd \
	0644:etc/xdpbrd.conf:$(EXAMPLE) \
	0755:daemon/bridge-stp:$(STPHELPER)
# Directories that are xdpbr's alone: made by install, removed by uninstall
# when empty (a configuration of yours in /etc/xdpbr keeps it).
INSTALL_DIRS = $(BPFDIR) $(SYSCONFDIR)/xdpbr

# The unit names the daemon where it is installed: made anew each time, as
# SBINDIR may differ from the last install.
$(BUILD)/xdpbrd@.service: systemd/xdpbrd@.service FORCE | $(BUILD)
	sed 's|@SBINDIR@|$(SBINDIR)|g' $< > $@

# not_others FILE: a shell test, false for the STP helper's path when a
# helper that is not xdpbr's is there (daemon/bridge-stp's marker line).
not_others = { [ "$(1)" != "$(DESTDIR)$(STPHELPER)" ] || [ ! -e "$(1)" ] || \
	grep -q '^\# xdpbr-bridge-stp:' "$(1)"; }

install: all $(BUILD)/xdpbrd@.service
	@set -e; for f in $(INSTALL_FILES); do \
		mode=$${f%%:*}; from=$${f#*:}; from=$${from%%:*}; to=$(DESTDIR)$${f##*:}; \
		if ! $(call not_others,$$to); then \
			echo "install: $$to is not xdpbr's (mstpd's?): left as it is; xdpbr's bridge devices run without user-space STP"; \
			continue; \
		fi; \
		echo "install -D -m $$mode $$from $$to"; \
		install -D -m "$$mode" "$$from" "$$to"; \
	done
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/xdpbr

uninstall:
	@for f in $(INSTALL_FILES); do \
		to=$(DESTDIR)$${f##*:}; \
		$(call not_others,$$to) || continue; \
		if [ -e "$$to" ] || [ -L "$$to" ]; then echo "rm -f $$to"; rm -f "$$to"; fi; \
	done
	@for d in $(INSTALL_DIRS:%=$(DESTDIR)%); do \
		[ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || \
			echo "uninstall: kept $$d: not empty (files that make install did not put there)"; \
	done

# The Debian package (debian/), built by dpkg-buildpackage in a copy of the
# tree, so that its output in .. and debian/'s scratch files stay out of
# this one: xdpbr_$(VERSION)_ARCH.deb in $(DEB_DIR).
DEB_DIR ?= $(BUILD)/deb
deb:
	tools/mkdeb.sh '$(DEB_DIR)' '$(GIT_REV)'

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- benchmark ----
# make bench: xdpbr (its XDP and its TC datapath) vs. the Linux bridge vs. a
# bare devmap redirect (the ceiling), on namespaces and multi-queue veths,
# with the live-frames packet generator build/tools/pktgen (tools/pktgen.c,
# tools/pktgen.bpf.c; an XDP amplifier fed by AF_PACKET where live frames are refused); and TCP (iperf3) between namespaces on veth and on tap
# ports (build/tools/tapwire) through xdpbr and through the Linux bridge.
# Arguments for tools/bench.sh: make bench BENCH_ARGS="--sizes 64 --reps 1".
# It also draws the results (gnuplot, tools/plot.sh) as SVG in BENCH_PLOTS,
# next to the JSON they come from (bench.json).
# make bench-fdb: the control plane as the FDB grows (tools/fdbscale.sh:
# ageing pass CPU and xdpbrd's memory at 10k, 100k, 1M entries), its plot
# in BENCH_PLOTS too; arguments in FDBSCALE_ARGS.
# make plots: draw doc/plots/*.svg again from the JSON committed there.
# Not part of make check; tests/integration/test_bench_smoke.sh runs its
# smoke mode, so check builds pktgen too; test_plots.sh draws saved runs.
PKTGEN     := $(BUILD)/tools/pktgen
PKTGEN_OBJ := $(BUILD)/pktgen.bpf.o
PKTGEN_SKEL := $(BUILD)/pktgen.skel.h
BENCH_ARGS ?=
BENCH_PLOTS ?= $(BUILD)/plots
FDBSCALE_ARGS ?=

.PHONY: bench bench-fdb plots
$(PKTGEN_OBJ): tools/pktgen.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(PKTGEN_SKEL): $(PKTGEN_OBJ)
	$(BPFTOOL) gen skeleton $< name pktgen > $@.tmp && mv $@.tmp $@

$(PKTGEN): tools/pktgen.c $(PKTGEN_SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(shell $(PKG_CONFIG) --libs libbpf) -lpthread -o $@

check: $(PKTGEN)

bench: deps
	@$(MAKE) --no-print-directory all $(PKTGEN)
	tools/bench.sh --plot $(BENCH_PLOTS) $(BENCH_ARGS)

bench-fdb: deps
	@$(MAKE) --no-print-directory all
	tools/fdbscale.sh --plot $(BENCH_PLOTS) $(FDBSCALE_ARGS)

plots:
	tools/plot.sh bench doc/plots/bench.json doc/plots
	tools/plot.sh fdb doc/plots/fdbscale.json doc/plots

# ---- fuzzing and sanitizers ----
# make fuzz          build the libFuzzer harnesses of tests/fuzz/ (datapath,
#                    config, cli, http, bpdu) and run each for FUZZ_SECONDS (default
#                    60): execs, coverage and findings per harness, reproducers
#                    in $(BUILD)/fuzz/findings/HARNESS/ (tests/fuzz/run.sh, which
#                    says how to replay one). Needs root. E.g.
#                    make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS="datapath http"
# make fuzz-build    only build them, as $(BUILD)/fuzz/fuzz_HARNESS; make check
#                    does, for tests/integration/test_fuzz_smoke.sh (5 s each).
# make check SANITIZE=1 BUILD=build-san
#                    the daemon, the CLI, the tools and every test built with
#                    -fsanitize=address,undefined (gcc, Debian's libasan8 and
#                    libubsan1) into build-san/, leaving build/ alone, and make
#                    check run on that build; an ASan or UBSan report fails the
#                    suite it happens in. SANITIZE=1 wants a BUILD of its own
#                    given on the command line: BUILD is expanded as the lines
#                    above are read, so this section cannot change it.
#
# The harnesses, and the lib/, daemon/ and cli/ sources they test (all but
# the two main()s, in one archive), are built with clang
# (libFuzzer is clang's) and -fsanitize=fuzzer,address,undefined into
# $(BUILD)/fuzz/, apart from the normal objects; FUZZ_CC overrides clang.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_ALL     := datapath config cli http bpdu
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -std=gnu11 -Wall -Wextra \
		-Werror -Wno-unused-parameter -Wformat=2 -Wshadow -Wstrict-prototypes
FUZZ_LIB     := $(FUZZ_DIR)/libxdpbr.a
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_DIR)/%.o) $(DAEMON_SRCS:%.c=$(FUZZ_DIR)/%.o) \
		 $(CLI_SRCS:%.c=$(FUZZ_DIR)/%.o)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	tests/fuzz/run.sh -b $(BUILD) -t $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(FUZZ_LIB_OBJS): $(FUZZ_DIR)/%.o: %.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_XFLAGS) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%.o: tests/fuzz/fuzz_%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(TEST_CPPFLAGS) -Itests/fuzz -Itests/bpf $(FUZZ_CFLAGS) -c $< -o $@

# fuzz_datapath runs the datapath through the BPF_PROG_RUN test's harness.
$(FUZZ_DIR)/tests/bpf/harness.o: tests/bpf/harness.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DIR)/fuzz_datapath: $(FUZZ_DIR)/tests/bpf/harness.o

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(filter %.o,$^) $(filter %.a,$^) $(DAEMON_LDLIBS) -o $@

.SECONDARY: $(FUZZ_ALL:%=$(FUZZ_DIR)/fuzz_%.o) $(FUZZ_DIR)/tests/bpf/harness.o

check: $(FUZZ_ALL:%=$(FUZZ_DIR)/fuzz_%)

ifeq ($(SANITIZE),1)
ifeq ($(BUILD),build)
$(error SANITIZE=1 builds into a directory of its own, not build/: make check SANITIZE=1 BUILD=build-san)
endif
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	     -fno-omit-frame-pointer
override CFLAGS  += $(SAN_FLAGS)
override LDFLAGS += $(SAN_FLAGS)
# Leak checks at exit, UB fatal with a stack: a report fails its suite.
export ASAN_OPTIONS ?= detect_leaks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
endif

# ---- soak ----
# make soak: longer runs (minutes) of the fault and MAC-flood scenarios of
# make check (tests/integration/test_faults.sh, test_macflood.sh), the flood
# with 1,000,000 source MACs at full rate, printing the figures
# (tests/soak/run.sh; needs root). Not part of make check. Options through
# SOAK_ARGS, e.g. make soak SOAK_ARGS="--rounds 2 --macs 500000"; --unmount
# (or SOAK_UNMOUNT=1) adds the fault "bpffs unmounted under the bridge", run
# in a private mount namespace.
SOAK_ARGS ?=

.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory all $(PKTGEN)
	tests/soak/run.sh $(SOAK_ARGS)

# ---- mutants ----
# make mutants: the mutation checks (tests/mutants/run.sh): each deliberate
# bug of tests/mutants/list applied to a scratch copy of the tree, built,
# and the suites that must catch it run there; prints per mutant the
# checks that failed, and fails if one survives or no longer applies.
# Not part of make check (20-35 minutes; needs root). One mutant:
# make mutants MUTANTS="static-moves".
MUTANTS ?=

.PHONY: mutants
mutants: deps
	tests/mutants/run.sh $(MUTANTS)
