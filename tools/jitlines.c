// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * jitlines - where each source line of a loaded BPF program sits in its
 * JIT image, so that perf samples inside the program (bpf_prog_<tag>_<name>)
 * can be put on source lines without libbfd (Debian's bpftool has none, and
 * `bpftool prog dump jited` needs it).
 *
 *   jitlines PROG
 *
 * PROG: a program id, or a name: every loaded program of that name (the
 * same object loaded for two bridges runs as two programs, each with its
 * own image). Prints one line per line-info record, in address order:
 *
 *   ADDRESS<TAB>FILE:LINE<TAB>SOURCE
 *
 * ADDRESS is the kernel address (hex) the line's code starts at; a sample
 * at address A belongs to the last record at or below A. tools/bpfperf.sh
 * does that for a perf recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>


static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

struct rec {
	__u64 addr;
	const struct bpf_line_info *li;
};

static int by_addr(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The line table of the program behind fd (what: its name for messages). */
static int print_lines(int fd, const char *what)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nli, rec;
	struct bpf_line_info *li;
	struct rec *recs;
	struct btf *btf;
	__u64 *jli;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "jitlines: %s: %s\n", what, strerror(errno));
		return 1;
	}
	nli = info.nr_jited_line_info < info.nr_line_info ? info.nr_jited_line_info
							   : info.nr_line_info;
	rec = info.line_info_rec_size;
	if (!nli || !info.btf_id || rec < sizeof(*li)) {
		fprintf(stderr, "jitlines: %s has no line info (not JITed, or built without -g)\n",
			what);
		return 1;
	}
	li = calloc(nli, rec);
	jli = calloc(nli, sizeof(*jli));
	if (!li || !jli) {
		free(li);
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.nr_line_info = nli;
	info.line_info_rec_size = rec;
	info.line_info = (unsigned long)li;
	info.nr_jited_line_info = nli;
	info.jited_line_info_rec_size = sizeof(*jli);
	info.jited_line_info = (unsigned long)jli;
	len = sizeof(info);
	btf = bpf_obj_get_info_by_fd(fd, &info, &len) ? NULL
						     : btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		fprintf(stderr, "jitlines: %s: %s\n", what, strerror(errno));
		free(li);
		free(jli);
		return 1;
	}
	/* in instruction order; subprograms (global functions) have images
	 * of their own elsewhere */
	recs = calloc(nli, sizeof(*recs));
	if (!recs) {
		btf__free(btf);
		free(li);
		free(jli);
		return 1;
	}
	for (__u32 i = 0; i < nli; i++) {
		recs[i].addr = jli[i];
		recs[i].li = (const void *)((const char *)li + i * rec);
	}
	qsort(recs, nli, sizeof(*recs), by_addr);
	for (__u32 i = 0; i < nli; i++) {
		const struct bpf_line_info *l = recs[i].li;
		const char *src = btf__name_by_offset(btf, l->line_off);

		while (src && (*src == ' ' || *src == '\t'))
			src++;
		printf("%llx\t%s:%u\t%s\n", (unsigned long long)recs[i].addr,
		       base_name(btf__name_by_offset(btf, l->file_name_off)),
		       BPF_LINE_INFO_LINE_NUM(l->line_col), src ? src : "");
	}
	free(recs);
	btf__free(btf);
	free(li);
	free(jli);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info info;
	__u32 id = 0, len;
	int fd, err = 0, found = 0;
	char *end;
	unsigned long want;

	if (argc != 2) {
		fprintf(stderr, "usage: jitlines PROG (an id or the name of loaded programs)\n");
		return 2;
	}
	want = strtoul(argv[1], &end, 10);
	if (*argv[1] && !*end) {
		fd = bpf_prog_get_fd_by_id((__u32)want);
		if (fd < 0) {
			fprintf(stderr, "jitlines: no program %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		return print_lines(fd, argv[1]);
	}
	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, argv[1])) {
			found++;
			err |= print_lines(fd, argv[1]);
		}
		close(fd);
	}
	if (!found) {
		fprintf(stderr, "jitlines: no program named %s is loaded\n", argv[1]);
		return 1;
	}
	return err;
}
