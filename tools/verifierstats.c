// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verifierstats - what the running kernel's verifier makes of a BPF object:
 * each program loaded with the verifier's statistics (BPF_LOG_STATS), one
 * line each, and unloaded again. Its maps are created under a pin
 * directory of its own and removed, so a running bridge is not touched.
 *
 *   verifierstats OBJECT
 *
 *   PROGRAM<TAB>PROCESSED<TAB>LIMIT<TAB>STATES<TAB>PEAK_STATES
 *
 * PROCESSED is the instructions the verifier walked (its "processed N
 * insns"), LIMIT what it allows (1,000,000 since Linux 5.2). A datapath
 * that grows towards LIMIT on an older verifier (Debian 12's 6.1 prunes
 * less than 6.18 and walks about twice as far) fails to load there with
 * E2BIG: tests/vm/test_platform.sh checks the headroom on 6.1.
 * Exit status 1 if the object does not load; the verifier's last lines
 * are then printed for the program that failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#define LOG_SIZE	(1 << 20)

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The numbers of the verifier's statistics line; 0 if absent. */
static int print_stats(const char *name, const char *log)
{
	unsigned long processed = 0, limit = 0, states = 0, peak = 0, per_insn;
	const char *p = log ? strstr(log, "processed ") : NULL;

	if (!p || sscanf(p, "processed %lu insns (limit %lu) max_states_per_insn %lu "
			 "total_states %lu peak_states %lu", &processed, &limit,
			 &per_insn, &states, &peak) != 5)
		return -1;
	printf("%s\t%lu\t%lu\t%lu\t%lu\n", name, processed, limit, states, peak);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/sys/fs/bpf/verifierstats_XXXXXX";	/* bpffs: no dots */
	struct bpf_object *obj;
	struct bpf_program *prog;
	int err, n = 0, i;
	char **logs;

	if (argc != 2) {
		fprintf(stderr, "usage: verifierstats OBJECT\n");
		return 2;
	}
	libbpf_set_print(quiet);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "verifierstats: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = dir);
	obj = bpf_object__open_file(argv[1], &opts);
	if (!obj) {
		fprintf(stderr, "verifierstats: %s: %s\n", argv[1], strerror(errno));
		rmdir(dir);
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		n++;
	logs = calloc(n, sizeof(*logs));
	i = 0;
	bpf_object__for_each_program(prog, obj) {
		logs[i] = calloc(1, LOG_SIZE);
		if (!logs[i])
			return 1;
		bpf_program__set_log_level(prog, 4);	/* BPF_LOG_STATS */
		bpf_program__set_log_buf(prog, logs[i++], LOG_SIZE);
	}
	err = bpf_object__load(obj);
	bpf_object__for_each_program(prog, obj) {
		size_t len;
		const char *log = bpf_program__log_buf(prog, &len);

		if (print_stats(bpf_program__name(prog), log) && err && log && *log)
			fprintf(stderr, "%s:\n%s\n", bpf_program__name(prog),
				strlen(log) > 2000 ? log + strlen(log) - 2000 : log);
	}
	bpf_object__unpin_maps(obj, NULL);
	bpf_object__close(obj);
	rmdir(dir);
	for (i = 0; i < n; i++)
		free(logs[i]);
	free(logs);
	if (err) {
		fprintf(stderr, "verifierstats: %s does not load: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
