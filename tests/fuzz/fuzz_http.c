// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_http.c - libFuzzer harness for the statistics endpoint (daemon/http.c
 * on libmicrohttpd), fed raw bytes over TCP.
 *
 * The real server, http_server_run(), runs on 127.0.0.1:9638 in a network
 * namespace of the harness's own, against the maps of a loaded datapath:
 * the skeleton is loaded with its maps pinned in a private bpffs (a mount
 * namespace of its own, so nothing shows outside); the harness fills them
 * through maps_open_pinned(), the server reads them as in the daemon,
 * read-only from the pins, here in a thread of the harness (in the daemon
 * it runs in the stripped HTTP process, daemon/httpproc.c, where libFuzzer
 * would see no coverage). The bridge
 * "fz" has two veth ports, FDB entries (static and dynamic, VLANs 0 and 10)
 * and counters.
 *
 * Each input is sent as it is on a new connection, which is then half-closed
 * (no more requests); the harness reads until the server closes. What must
 * hold:
 *  - the server does not crash (ASan/UBSan run in its thread too), keeps
 *    accepting connections, and answers or closes within HANG_S seconds;
 *  - every response starts with a status line "HTTP/1.x NNN " whose NNN is
 *    200, 400, 404, 405, 413, 414, 431, 500 or 505, has a header block, and
 *    a body of its Content-Length, or chunks that end (a streamed /fdb
 *    page), or the rest of the stream when it has neither (a streamed page
 *    to HTTP/1.0); none after a HEAD. One interim response
 *    is allowed too: "100 Continue", which libmicrohttpd sends by itself to
 *    a request with "Expect: 100-continue" and a body (http.c then answers
 *    400); it has no body, and the server may close after it when the body
 *    never comes;
 *  - a JSON body (application/json) parses; an error document has "error"
 *    and a "status" equal to the response's; a 405 says Allow: GET, HEAD.
 *
 * libmicrohttpd itself is not instrumented: what libFuzzer sees is http.c
 * and the report/JSON code behind it, plus the statuses and number of the
 * responses, fed back as extra coverage counters.
 *
 * Needs root (BPF, namespaces, bpffs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#include "xdpbr.h"
#include "xdpbr.skel.h"
#include "ctl.h"
#include "http.h"
#include "pins.h"
#include "util.h"
#include "fuzz_common.h"

#define BRIDGE		"fz"
#define LISTEN_ADDR	"127.0.0.1"
#define LISTEN_PORT	9638
#define HANG_S		8		/* the server's own idle timeout is HTTP_TIMEOUT_S */
#define RESP_MAX	(4 << 20)

static const int allowed_status[] = { 200, 400, 404, 405, 413, 414, 431, 500, 505 };

static struct xdpbr *skel;
static struct xdpbr_maps maps;
static struct http_server server;
static pthread_t server_thread;
static int status_wr = -1;		/* the status pipe's write end */
static struct sockaddr_in addr;
static unsigned long long tally_conns, tally_resp, tally_status[600];

__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t features[1024];

static void report(void)
{
	fprintf(stderr, "fuzz_http: %llu connections, %llu responses:", tally_conns, tally_resp);
	for (int s = 0; s < 600; s++)
		if (tally_status[s])
			fprintf(stderr, " %d=%llu", s, tally_status[s]);
	fputc('\n', stderr);
	close(status_wr);		/* the end of the pipe ends http_server_run */
	pthread_join(server_thread, NULL);
	http_server_close(&server);
	maps_close(&maps);
	xdpbr__destroy(skel);
}

static void *serve(void *arg)
{
	int err = http_server_run(arg);

	if (err)
		fz_fail("http_server_run: %s", strerror(-err));
	return NULL;
}

/* The server on listen, in a thread, with the FDB's counts 5, 3, 2. */
static void server_start(const char *listen)
{
	const struct http_fdb fdb = { .entries = 5, .dynamic = 3, .statics = 2,
				      .at_ns = mono_ns() };
	int pipefd[2], lfd = http_listen(listen), err;

	if (lfd < 0)
		fz_setup_failed("http_listen(%s): %s", listen, strerror(-lfd));
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) ||
	    write(pipefd[1], &fdb, sizeof(fdb)) != (ssize_t)sizeof(fdb))
		fz_setup_failed("the status pipe: %s", strerror(errno));
	status_wr = pipefd[1];
	err = http_server_open(&server, BRIDGE, lfd, pipefd[0], mono_ns());
	if (err)
		fz_setup_failed("http_server_open: %s", strerror(-err));
	err = pthread_create(&server_thread, NULL, serve, &server);
	if (err)
		fz_setup_failed("pthread_create: %s", strerror(err));
}

static void must(int err, const char *what)
{
	if (err)
		fz_setup_failed("%s: %s", what, strerror(errno ? errno : -err));
}

/* Bridge "fz": p1 and p2 (isolated) as ports, FDB entries in VLANs 0, 10
 * and 4094, counters on both ports, VLAN filtering on. */
static void bridge_fill(const unsigned int *ifindex)
{
	static const struct {
		__u8 mac[6];
		__u16 vlan;
		int port;
		__u16 flags;
	} fdb[] = {
		{ { 0x02, 0, 0, 0, 0, 0x01 }, 0, 0, XDPBR_FDB_STATIC },
		{ { 0x02, 0, 0, 0, 0, 0x02 }, 0, 1, 0 },
		{ { 0x02, 0, 0, 0, 0, 0x03 }, 10, 1, 0 },
		{ { 0x02, 0, 0, 0, 0, 0x04 }, 10, 0, XDPBR_FDB_STATIC },
		{ { 0x02, 0, 0, 0, 0, 0x05 }, 4094, 1, 0 },
	};
	struct xdpbr_config cfg = {
		.ageing_ns = 300 * XDPBR_NSEC_PER_SEC,
		.flags = XDPBR_CFG_VLAN_FILTERING,
		.fdb_max_learned = 1000,
	};
	int ncpus = libbpf_num_possible_cpus();
	struct xdpbr_stats *st = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*st));
	__u64 now = mono_ns(), two = 2;
	__u32 zero = 0;
	int err;

	if (!st || ncpus <= 0)
		fz_setup_failed("counting CPUs");
	for (__u32 i = 0; i < 2; i++) {
		struct xdpbr_port p = {
			.slot = i + 1,
			.flags = XDPBR_PORT_DEFAULT_FLAGS | (i ? XDPBR_PORT_ISOLATED : 0),
			.mode = XDPBR_MODE_GENERIC,
			.pvid = 1,
		};

		err = ctl_port_apply(&maps, ifindex[i], &p, bpf_program__fd(skel->progs.xdpbr_egress));
		if (err)
			fz_setup_failed("ctl_port_apply: %s", strerror(-err));
		for (int cpu = 0; cpu < ncpus; cpu++)
			for (int c = 0; c < XDPBR_CNT__MAX; c++)
				st[cpu].c[c] = (__u64)(c + 1) * (i + 1) * 1000 + (__u64)cpu;
		must(bpf_map_update_elem(maps.stats, &p.slot, st, BPF_ANY), "xdpbr_stats");
	}
	for (size_t i = 0; i < sizeof(fdb) / sizeof(fdb[0]); i++) {
		struct xdpbr_fdb_key k = { .vlan = fdb[i].vlan };
		struct xdpbr_fdb_val v = {
			.ifindex = ifindex[fdb[i].port],
			.slot = (__u16)(fdb[i].port + 1),
			.flags = fdb[i].flags,
			.last_seen = now - (__u64)i * XDPBR_NSEC_PER_SEC,
		};

		memcpy(k.mac, fdb[i].mac, 6);
		must(bpf_map_update_elem(maps.fdb, &k, &v, BPF_ANY), "xdpbr_fdb");
	}
	must(bpf_map_update_elem(maps.config, &zero, &cfg, BPF_ANY), "xdpbr_config");
	must(bpf_map_update_elem(maps.learned, &zero, &two, BPF_ANY), "xdpbr_learned");
	free(st);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[] = { "p1", "p2" }, *const peers[] = { "q1", "q2" };
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	unsigned int ifindex[2];
	char listen[32];
	int err;

	setvbuf(stderr, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	oo.pin_root_path = fz_private_bpffs(BRIDGE);
	fz_netns(names, peers, ifindex, 2);

	libbpf_set_print(fz_libbpf_print);
	skel = xdpbr__open_opts(&oo);
	if (!skel)
		fz_setup_failed("opening the skeleton: %s", strerror(errno));
	err = xdpbr__load(skel);
	if (err)
		fz_setup_failed("loading build/xdpbr.bpf.o: %s", strerror(-err));
	err = maps_open_pinned(BRIDGE, &maps);
	if (err)
		fz_setup_failed("maps_open_pinned: %s", strerror(-err));
	bridge_fill(ifindex);

	snprintf(listen, sizeof(listen), "%s:%d", LISTEN_ADDR, LISTEN_PORT);
	server_start(listen);
	addr.sin_family = AF_INET;
	addr.sin_port = htons(LISTEN_PORT);
	inet_pton(AF_INET, LISTEN_ADDR, &addr.sin_addr);
	atexit(report);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The request bytes, sent; what the server says, until it has been quiet
 * for QUIET_MS; then the half-close and the rest, until the server closes
 * (or resets). Returns the length read.
 *
 * Why not half-close at once: libmicrohttpd (0.9.75, epoll) does not see a
 * FIN that arrives with the request, and then holds the connection until its
 * idle timeout (HTTP_TIMEOUT_S) before closing: five seconds per input. A FIN
 * after a pause is a new event, and it closes at once.
 */
#define QUIET_MS	3
static size_t exchange(const uint8_t *data, size_t size, char *resp, size_t cap)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	double deadline = now_s() + HANG_S, quiet = 0;
	size_t sent = 0, got = 0;
	bool wr_open = true;
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		fz_setup_failed("socket: %s", strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) && errno != EINPROGRESS)
		fz_fail("connect to the server: %s", strerror(errno));
	tally_conns++;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double t = now_s(), left = deadline - t;
		int wait_ms = (int)(left * 1000) + 1;
		ssize_t n;

		if (left <= 0)
			fz_fail("no answer and no close within %d s (sent %zu of %zu bytes, "
				"read %zu)", HANG_S, sent, size, got);
		if (wr_open && sent < size)
			pfd.events |= POLLOUT;
		else if (wr_open) {
			if (!quiet)
				quiet = t + QUIET_MS / 1000.0;
			if (t >= quiet) {
				shutdown(fd, SHUT_WR);
				wr_open = false;
				continue;
			}
			wait_ms = (int)((quiet - t) * 1000) + 1;
		}
		if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR)
			fz_setup_failed("poll: %s", strerror(errno));
		if (wr_open && sent < size && (pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				wr_open = false;	/* reset: read what there is */
		}
		if (pfd.revents & (POLLIN | POLLERR | POLLHUP)) {
			n = recv(fd, resp + got, cap - got, 0);
			if (n > 0) {
				got += (size_t)n;
				quiet = 0;		/* more may come */
				if (got == cap)
					fz_fail("more than %zu bytes of response", cap);
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EINTR))
				break;			/* closed or reset */
		}
	}
	if (got == 0 && sent == 0 && size)
		fz_fail("the server closed before taking a byte");
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));	/* no TIME_WAIT */
	close(fd);
	return got;
}

/* The value of header name in the header block [h, end), or NULL. */
static const char *header(const char *h, const char *end, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *p = h; p && p < end; ) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > n && !strncasecmp(p, name, n) && p[n] == ':') {
			const char *v = p + n + 1;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			*len = (size_t)(eol - v);
			return v;
		}
		p = eol + 2;
	}
	return NULL;
}

static void check_json(int status, const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *v;

	if (!tok)
		fz_setup_failed("out of memory");
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success)
		fz_fail("status %d: JSON body of %zu bytes does not parse: %.*s", status, len,
			(int)(len < 200 ? len : 200), body);
	if (json_object_is_type(o, json_type_object) && status != 200) {
		if (!json_object_object_get_ex(o, "status", &v) ||
		    json_object_get_int(v) != status)
			fz_fail("status %d: error document with another \"status\": %.*s", status,
				(int)(len < 200 ? len : 200), body);
		if (!json_object_object_get_ex(o, "error", &v) ||
		    !json_object_is_type(v, json_type_string))
			fz_fail("status %d: error document without \"error\"", status);
	} else if (status != 200) {
		fz_fail("status %d with a JSON body that is not an error document", status);
	}
	json_object_put(o);
	json_tokener_free(tok);
}

/* A chunked body at p (before end) decoded into out (RESP_MAX); where it
 * ends, or NULL with a reason when it is not a complete chunked body. */
static const char *dechunk(const char *p, const char *end, char *out, size_t *len,
			   const char **why)
{
	*len = 0;
	for (;;) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		unsigned long long n;
		char *e;

		if (!eol) {
			*why = "a chunk size line without CRLF";
			return NULL;
		}
		n = strtoull(p, &e, 16);
		if (e == p || (e != eol && *e != ';')) {
			*why = "a chunk size that is not hex";
			return NULL;
		}
		p = eol + 2;
		if (!n)		/* the last chunk; no trailers from this server */
			break;
		if ((size_t)(end - p) < n + 2 || memcmp(p + n, "\r\n", 2) ||
		    *len + n > RESP_MAX) {
			*why = "a chunk shorter than its size, or without CRLF";
			return NULL;
		}
		memcpy(out + *len, p, n);
		*len += n;
		p += n + 2;
	}
	if ((size_t)(end - p) < 2 || memcmp(p, "\r\n", 2)) {
		*why = "no CRLF after the last chunk";
		return NULL;
	}
	return p + 2;
}

/* Walks the responses; returns how many. */
static int check_responses(const char *r, size_t len)
{
	const char *p = r, *end = r + len;
	int n = 0;

	while (p < end) {
		static char chunks[RESP_MAX];
		const char *hdr, *hend, *v, *why;
		size_t vlen, body;
		bool ok = false, chunked, sized;
		int status;
		char *e;

		if ((size_t)(end - p) < 13 || strncmp(p, "HTTP/1.", 7) ||
		    (p[7] != '0' && p[7] != '1') || p[8] != ' ' || p[12] != ' ')
			fz_fail("response %d does not start with a status line: '%.*s'", n + 1,
				(int)((size_t)(end - p) < 60 ? (size_t)(end - p) : 60), p);
		status = (int)strtol(p + 9, &e, 10);
		if (e != p + 12)
			fz_fail("response %d: status '%.3s'", n + 1, p + 9);
		for (size_t i = 0; i < sizeof(allowed_status) / sizeof(allowed_status[0]); i++)
			ok |= status == allowed_status[i];
		ok |= status == 100;		/* interim: checked below */
		if (!ok)
			fz_fail("response %d: status %d is not one the endpoint may answer", n + 1,
				status);
		tally_status[status]++;
		features[((unsigned int)status * 8 + (unsigned int)(n < 7 ? n : 7)) % 1024]++;
		hdr = memmem(p, (size_t)(end - p), "\r\n", 2);
		hend = hdr ? memmem(hdr, (size_t)(end - hdr), "\r\n\r\n", 4) : NULL;
		if (!hend)
			fz_fail("response %d (%d): no end of headers", n + 1, status);
		hdr += 2;
		hend += 2;			/* the last header's CRLF */
		v = header(hdr, hend, "Content-Length", &vlen);
		sized = v;
		body = v ? (size_t)strtoull(v, NULL, 10) : 0;
		v = header(hdr, hend, "Transfer-Encoding", &vlen);
		chunked = v && vlen >= 7 && !strncasecmp(v, "chunked", 7);
		p = hend + 2;
		if (status == 100 && body)
			fz_fail("100 Continue with a body");
		if (status == 405 && header(hdr, hend, "Content-Type", &vlen) &&
		    !header(hdr, hend, "Allow", &vlen))
			fz_fail("405 without Allow");
		/* after a HEAD, no body: the next response, or the end */
		if ((body || chunked || (!sized && status == 200)) &&
		    (p == end || ((size_t)(end - p) >= 7 && !strncmp(p, "HTTP/1.", 7)))) {
			n++;
			continue;
		}
		if (chunked) {
			const char *next = dechunk(p, end, chunks, &body, &why);

			if (!next)
				fz_fail("response %d (%d): chunked body: %s", n + 1, status, why);
			v = header(hdr, hend, "Content-Type", &vlen);
			if (v && vlen >= 16 && !strncmp(v, "application/json", 16))
				check_json(status, chunks, body);
			p = next;
			n++;
			continue;
		}
		if (!sized && status == 200)
			body = (size_t)(end - p);	/* to the close: a stream to HTTP/1.0 */
		if ((size_t)(end - p) < body)
			fz_fail("response %d (%d): body of %zu bytes, Content-Length %zu", n + 1,
				status, (size_t)(end - p), body);
		v = header(hdr, hend, "Content-Type", &vlen);
		if (v && vlen >= 16 && !strncmp(v, "application/json", 16))
			check_json(status, p, body);
		p += body;
		n++;
	}
	return n;
}

/* The server still answers a plain request, on a new connection. */
static void check_alive(void)
{
	static const char req[] = "GET /stats HTTP/1.0\r\n\r\n";
	static char resp[RESP_MAX];
	size_t got = exchange((const uint8_t *)req, sizeof(req) - 1, resp, sizeof(resp));

	if (check_responses(resp, got) != 1 || strncmp(resp + 9, "200", 3))
		fz_fail("the server no longer answers GET /stats with 200: '%.*s'",
			(int)(got < 80 ? got : 80), resp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char resp[RESP_MAX];
	static unsigned int runs;
	size_t got = exchange(data, size, resp, sizeof(resp));
	int n = check_responses(resp, got);

	tally_resp += (unsigned long long)n;
	features[1000 + (n < 20 ? n : 20)]++;
	if (++runs % 256 == 0)
		check_alive();
	return 0;
}
