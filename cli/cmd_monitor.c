// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_monitor.c - xdpbr monitor [ fdb ] [ count N ]: the FDB events of xdpbrd,
 * read from its event stream (the one command that needs the daemon).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <json-c/json.h>

#include "common.h"
#include "events.h"
#include "print.h"

/* The stream: lines of JSON, one event each. */
struct event_stream {
	int fd;
	char buf[16384];
	size_t used;
	bool skip;		/* in the rest of a line too long to keep */
	uint32_t seen;		/* events printed */
};

/* A line of the stream as an event object, or NULL if it is not one. */
static struct json_object *event_parse(const char *line)
{
	struct json_object *o = json_tokener_parse(line);

	if (o && json_object_is_type(o, json_type_object) && json_object_object_get(o, "event"))
		return o;
	json_object_put(o);
	return NULL;
}

/* A member as text, "?" if missing. */
static const char *member(struct json_object *o, const char *key)
{
	struct json_object *v = json_object_object_get(o, key);

	return v ? json_object_get_string(v) : "?";
}

/* In the words of `bridge monitor fdb`. */
static void print_event_text(struct json_object *o)
{
	struct json_object *from = json_object_object_get(o, "from");

	print_text("%s %s dev %s vlan %s master %s", member(o, "event"), member(o, "mac"),
		   member(o, "ifname"), member(o, "vlan"), member(o, "master"));
	if (from)
		print_text(" from %s", json_object_get_string(from));
	print_nl();
}

/* One event line from the daemon: as received (-j), pretty (-p), or as
 * text. 0, or -EINVAL for a line that is not an event. */
static int print_event(const struct cli_cmd *c, const char *line)
{
	struct json_object *o;

	if (c->json && !c->pretty) {
		puts(line);	/* the daemon's bytes, unparsed */
		fflush(stdout);
		return 0;
	}
	o = event_parse(line);
	if (!o)
		return cli_error(-EINVAL, "ignoring a line of the event stream that is not "
				 "an event: %.80s", line);
	print_begin(c->json, c->pretty);
	if (c->json)
		print_json_object(NULL, json_object_get(o));
	else
		print_event_text(o);
	print_end();
	json_object_put(o);
	return 0;
}

/* Connects to the bridge's event stream: a descriptor or -errno. */
static int monitor_connect(const char *br)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = events_path(sa.sun_path, sizeof(sa.sun_path), br);
	if (err)
		return cli_error(err, "bridge name '%s' too long", br);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cli_error(-errno, "can't create a socket: %s", strerror(errno));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	err = -errno;
	close(fd);
	/* no socket, or a dead daemon's */
	if (err == -ENOENT || err == -ECONNREFUSED)
		return cli_error(err, "no event stream for bridge %s: is xdpbrd running? "
				 "(xdpbr monitor needs the daemon)", br);
	return cli_error(err, "can't connect to the event stream %s: %s%s", sa.sun_path,
			 strerror(-err), errno_hint(err));
}

static bool count_reached(const struct cli_cmd *c, const struct event_stream *s)
{
	return c->count && s->seen >= c->count;
}

/* One complete line, len bytes: the daemon's hello, or an event. */
static void handle_line(const struct cli_cmd *c, const char *br, struct event_stream *s,
			const char *line, size_t len)
{
	if (!strncmp(line, EVENTS_HELLO_PREFIX, strlen(EVENTS_HELLO_PREFIX)))
		/* The daemon has registered us: from here on no event is
		 * missed. On stderr, for scripts that wait for it; stdout
		 * carries the events. */
		fprintf(stderr, "xdpbr: monitoring events of bridge %s\n", br);
	else if (len && !print_event(c, line))
		s->seen++;
}

/* The complete lines in the buffer, up to the count; keeps the rest. A
 * line that fills the buffer is dropped, with a message. */
static void handle_lines(const struct cli_cmd *c, const char *br, struct event_stream *s)
{
	char *line = s->buf, *nl;

	while (!count_reached(c, s) &&
	       (nl = memchr(line, '\n', s->used - (size_t)(line - s->buf)))) {
		*nl = '\0';
		if (!s->skip)
			handle_line(c, br, s, line, (size_t)(nl - line));
		s->skip = false;
		line = nl + 1;
	}
	s->used -= (size_t)(line - s->buf);
	memmove(s->buf, line, s->used);
	if (s->used == sizeof(s->buf)) {
		if (!s->skip)
			cli_error(0, "ignoring an event line longer than %zu bytes",
				  sizeof(s->buf));
		s->skip = true;
		s->used = 0;
	}
}

/* Waits for more of the stream: 1 read some, 0 nothing (a signal), or the
 * reported -errno (-EPIPE: the stream ended). */
static int read_more(struct event_stream *s, const char *br, const sigset_t *waitmask)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	ssize_t n;

	if (ppoll(&pfd, 1, NULL, waitmask) < 0)
		return errno == EINTR ? 0 : cli_error(-errno, "waiting for events: %s",
						      strerror(errno));
	n = read(s->fd, s->buf + s->used, sizeof(s->buf) - s->used);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 :
		       cli_error(-errno, "reading the event stream of bridge %s: %s", br,
				 strerror(errno));
	if (n == 0)
		return cli_error(-EPIPE, "the event stream of bridge %s ended: xdpbrd stopped "
				 "(or dropped this monitor as too slow)", br);
	s->used += (size_t)n;
	return 1;
}

/* monitor [fdb] [count N]: until N events, SIGINT/SIGTERM (0) or the end of
 * the stream (the daemon stopped: -EPIPE). */
int do_monitor(const struct cli_cmd *c, struct target *t)
{
	struct event_stream s = { 0 };
	sigset_t waitmask;
	int r = 0;

	s.fd = monitor_connect(t->br);
	if (s.fd < 0)
		return s.fd;
	catch_signals(&waitmask);
	while (!interrupted && !count_reached(c, &s)) {
		r = read_more(&s, t->br, &waitmask);
		if (r < 0)
			break;
		if (r)
			handle_lines(c, t->br, &s);
	}
	close(s.fd);
	return r < 0 ? r : 0;
}
