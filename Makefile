# xdpbr - XDP Ethernet bridge
#
#   make            build the datapath, skeleton, xdpbrd and xdpbr
#   make deps       install build and test dependencies (Debian 12, as root)
#   make demo       run the bridge on a demo topology of network namespaces
#   make check      run all tests (unit, BPF_PROG_RUN, integration)

BUILD    ?= build
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	    -Wformat=2 -Wshadow -Wstrict-prototypes
CPPFLAGS += -Iinclude -Idaemon -I$(BUILD) -D_GNU_SOURCE -MMD -MP
LDLIBS   += -lbpf -lelf -lz -lmnl -ljson-c -linih -lsystemd -lmicrohttpd -lcap-ng -lpthread

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -Iinclude -Ibpf $(if $(MULTIARCH),-I/usr/include/$(MULTIARCH)) -MMD -MP

BPF_OBJ  := $(BUILD)/xdpbr.bpf.o
SKEL     := $(BUILD)/xdpbr.skel.h

# Daemon modules shared by xdpbrd, xdpbr and the unit tests.
LIB_SRCS := daemon/log.c daemon/util.c daemon/maps.c daemon/fdb.c \
	    daemon/ports.c daemon/stats.c daemon/bridge.c daemon/netlink.c \
	    daemon/json.c daemon/ctl.c daemon/config.c daemon/report.c \
	    daemon/events.c daemon/http.c daemon/privs.c
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libxdpbr.a

BINS     := $(BUILD)/xdpbrd $(BUILD)/xdpbr

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
BPFTEST   := $(BUILD)/tests/test_datapath
TOOLS     := $(BUILD)/tools/sendframe $(BUILD)/tools/fdbfill

PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc

.PHONY: all deps demo check clean install
all: $(BINS) $(BPF_OBJ) $(TOOLS)

deps:
	@tools/deps.sh

$(BUILD)/%.bpf.o: bpf/%.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name xdpbr > $@.tmp && mv $@.tmp $@

$(BUILD)/daemon/%.o: daemon/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/xdpbrd: $(BUILD)/daemon/xdpbrd.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/xdpbr: $(BUILD)/daemon/xdpbr.o $(BUILD)/daemon/cli.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Unit tests: real module code, libbpf syscalls wrapped (tests/unit/mock_bpf.c).
UNIT_WRAP := -Wl,--wrap=bpf_map_lookup_batch,--wrap=bpf_map_get_next_key,--wrap=bpf_map_lookup_elem,--wrap=bpf_obj_get,--wrap=libbpf_num_possible_cpus,--wrap=bpf_obj_get_info_by_fd
$(BUILD)/tests/%.o: tests/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $(BUILD)/tests/unit/mock_bpf.o $(BUILD)/daemon/cli.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(UNIT_WRAP) $(LDLIBS) -lcmocka -o $@

# Keep the test objects: they are intermediate files to make.
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tests/unit/mock_bpf.o $(BUILD)/tests/bpf/test_datapath.o \
	    $(BUILD)/tools/fdbfill.o

$(BPFTEST): $(BUILD)/tests/bpf/test_datapath.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tools/sendframe: tools/sendframe.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@

$(BUILD)/tools/fdbfill: $(BUILD)/tools/fdbfill.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/tools/%.o: tools/%.c $(SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD):
	@mkdir -p $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all $(TOOLS)
	tools/demo.sh

check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS) $(BPFTEST) $(TOOLS)
	tests/run.sh

install: all
	install -D -m 0755 $(BUILD)/xdpbrd $(DESTDIR)$(SBINDIR)/xdpbrd
	install -D -m 0755 $(BUILD)/xdpbr $(DESTDIR)$(SBINDIR)/xdpbr
	install -D -m 0644 $(BPF_OBJ) $(DESTDIR)$(PREFIX)/lib/xdpbr/xdpbr.bpf.o
	install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	sed 's|@SBINDIR@|$(SBINDIR)|g' systemd/xdpbrd@.service > $(DESTDIR)$(UNITDIR)/xdpbrd@.service
	install -m 0644 man/xdpbrd.8 man/xdpbr.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/xdpbrd.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -D -m 0644 etc/xdpbrd.conf $(DESTDIR)$(SYSCONFDIR)/xdpbr/example.conf

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- benchmark ----
# make bench: xdpbr vs. the Linux bridge vs. a bare devmap redirect (the
# ceiling), on namespaces and multi-queue veths, with the live-frames packet
# generator build/tools/pktgen (tools/pktgen.c, tools/pktgen.bpf.c).
# Arguments for tools/bench.sh: make bench BENCH_ARGS="--sizes 64 --reps 1".
# Not part of make check; tests/integration/test_bench_smoke.sh runs its
# smoke mode, so check builds pktgen too.
PKTGEN     := $(BUILD)/tools/pktgen
PKTGEN_OBJ := $(BUILD)/pktgen.bpf.o
PKTGEN_SKEL := $(BUILD)/pktgen.skel.h
BENCH_ARGS ?=

.PHONY: bench
$(PKTGEN_OBJ): tools/pktgen.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(PKTGEN_SKEL): $(PKTGEN_OBJ)
	$(BPFTOOL) gen skeleton $< name pktgen > $@.tmp && mv $@.tmp $@

$(PKTGEN): tools/pktgen.c $(PKTGEN_SKEL) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -lbpf -lelf -lz -lpthread -o $@

check: $(PKTGEN)

bench: deps
	@$(MAKE) --no-print-directory all $(PKTGEN)
	tools/bench.sh $(BENCH_ARGS)
