// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* events.c - the event stream to `xdpbr monitor` (see events.h). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "events.h"
#include "json.h"
#include "log.h"
#include "paths.h"
#include "util.h"

static const char *const type_names[] = {
	[XDPBR_EV_LEARN] = "learn",
	[XDPBR_EV_MOVE] = "move",
	[XDPBR_EV_AGE] = "age",
	[XDPBR_EV_FLUSH] = "flush",
};

const char *event_type_name(uint32_t type)
{
	if (type < ARRAY_SIZE(type_names) && type_names[type])
		return type_names[type];
	return "unknown";
}

int events_path(char *buf, size_t len, const char *bridge)
{
	const struct xdpbr_paths *p;
	int err = paths_get(&p);

	return err ? err : sock_path_in(p, buf, len, bridge);
}

static int mkdir_private(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return chmod(path, 0700) ? -errno : 0;
}

/* The socket's directory: /run/xdpbr, and a network namespace's in it. */
static int run_dir_prepare(void)
{
	const struct xdpbr_paths *p;
	int err = paths_get(&p);

	if (!err)
		err = mkdir_private(PATHS_RUN_DIR);
	if (!err && p->keyed)
		err = mkdir_private(p->run_dir);
	return err;
}

bool events_daemon_runs(const char *bridge)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool runs;
	int fd;

	if (events_path(sa.sun_path, sizeof(sa.sun_path), bridge))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	runs = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return runs;
}

struct json_object *event_json(const struct xdpbr_event *e, const char *bridge)
{
	struct json_object *o = json_object_new_object();
	char mac[MAC_STRLEN], ifname[IFNAME_SHOWN];

	json_object_object_add(o, "event", json_object_new_string(event_type_name(e->type)));
	json_object_object_add(o, "mac", json_object_new_string(mac_format(e->mac, mac)));
	json_object_object_add(o, "vlan", json_object_new_uint64(e->vlan));
	json_object_object_add(o, "ifname",
			       json_object_new_string(ifname_shown(e->ifindex, ifname)));
	json_object_object_add(o, "master", json_object_new_string(bridge));
	if (e->type == XDPBR_EV_MOVE)
		json_object_object_add(o, "from",
				       json_object_new_string(ifname_shown(e->old_ifindex, ifname)));
	event_add_ts(o, e->ts);
	return o;
}

int events_open(struct events *ev, const char *bridge)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int err;

	memset(ev, 0, sizeof(*ev));
	ev->listen_fd = -1;
	snprintf(ev->bridge, sizeof(ev->bridge), "%s", bridge);
	err = events_path(ev->path, sizeof(ev->path), bridge);
	if (err)
		return err;
	err = run_dir_prepare();
	if (err)
		return err;
	ev->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ev->listen_fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ev->path);
	unlink(ev->path);	/* a previous daemon's, dead or it would own the bridge */
	if (bind(ev->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(ev->path, 0600) || listen(ev->listen_fd, 8)) {
		err = -errno;
		events_close(ev);
		return err;
	}
	return 0;
}

void events_close(struct events *ev)
{
	for (int i = 0; i < ev->nclients; i++)
		close(ev->clients[i]);
	ev->nclients = 0;
	if (ev->listen_fd >= 0) {
		const struct xdpbr_paths *p;

		close(ev->listen_fd);
		unlink(ev->path);
		if (!paths_get(&p) && p->keyed)
			rmdir(p->run_dir);	/* a namespace's, when its last bridge goes */
	}
	ev->listen_fd = -1;
}

void events_accept(struct events *ev)
{
	int fd;

	while ((fd = accept4(ev->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (ev->nclients == EVENTS_MAX_CLIENTS) {
			log_warn("event stream: more than %d monitors, refusing one",
				 EVENTS_MAX_CLIENTS);
			close(fd);
			continue;
		}
		char hello[64];
		int len = snprintf(hello, sizeof(hello), "%s,\"master\":\"%s\"}\n",
				   EVENTS_HELLO_PREFIX, ev->bridge);

		/* A fresh socket's buffer takes a line this short at once. */
		if (send(fd, hello, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) != len) {
			close(fd);
			continue;
		}
		ev->clients[ev->nclients++] = fd;
		log_debug("event stream: monitor connected (%d)", ev->nclients);
	}
}

int events_listening(const struct events *ev)
{
	return ev->nclients > 0;
}

void events_send_json(struct events *ev, struct json_object *o)
{
	const char *line;
	size_t len;

	if (!ev->nclients) {
		json_object_put(o);
		return;
	}
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(line);
	for (int i = 0; i < ev->nclients; i++) {
		struct iovec iov[2] = { { (void *)line, len }, { "\n", 1 } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n = sendmsg(ev->clients[i], &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n == (ssize_t)(len + 1)) {
			ev->sent++;
			continue;
		}
		/* Gone, or too slow to keep its socket buffer drained: a
		 * partial line would corrupt its stream, so drop the client. */
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			log_debug("event stream: a monitor left");
		else
			log_info("event stream: dropping a monitor (%s)",
				 n < 0 ? strerror(errno) : "too slow to keep up");
		ev->dropped++;
		close(ev->clients[i]);
		ev->clients[i--] = ev->clients[--ev->nclients];
	}
	json_object_put(o);
}

void events_send(struct events *ev, const struct xdpbr_event *e)
{
	if (ev->nclients)
		events_send_json(ev, event_json(e, ev->bridge));
}

void event_add_ts(struct json_object *o, uint64_t ts_ns)
{
	char ts[32];	/* microseconds are plenty, and print stably */

	snprintf(ts, sizeof(ts), "%.6f", (double)ts_ns / 1e9);
	json_object_object_add(o, "ts", json_object_new_double_s((double)ts_ns / 1e9, ts));
}
