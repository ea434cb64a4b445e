// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_events.c - lib/events.c: the FDB events `xdpbr monitor` reads,
 * one JSON object a line: their keys and values per type, the type names,
 * the socket path, and the line a client receives.
 */
#include <errno.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "xdpbr.h"
#include "events.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define NO_IFINDEX 999999u	/* no such interface: "if999999" */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key '%s' missing in %s", key,
			 json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_string))
		fail_msg("'%s' is not a string", key);
	return json_object_get_string(v);
}

static struct xdpbr_event event(uint32_t type, const char *mac, uint16_t vlan,
				uint32_t ifindex, uint32_t old_ifindex, uint64_t ts)
{
	struct xdpbr_event e = {
		.ts = ts, .type = type, .ifindex = ifindex, .old_ifindex = old_ifindex,
		.vlan = vlan,
	};

	assert_int_equal(mac_parse(mac, e.mac), 0);
	return e;
}

/* The keys of an event: exactly these, "from" for a move only. */
static void assert_keys(struct json_object *o, bool move)
{
	static const char *const keys[] = { "event", "mac", "vlan", "ifname", "master", "ts" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		get(o, keys[i]);
	if (move)
		assert_non_null(get(o, "from"));
	else
		assert_null(json_object_object_get(o, "from"));
	assert_int_equal(json_object_object_length(o), ARRAY_SIZE(keys) + move);
}

static void test_event_learn(void **state)
{
	struct xdpbr_event e = event(XDPBR_EV_LEARN, "02:00:5E:00:53:0A", 0, 1, 0,
				     12 * XDPBR_NSEC_PER_SEC + 345000000);
	struct json_object *o = event_json(&e, "br0");

	assert_keys(o, false);
	assert_string_equal(get_str(o, "event"), "learn");
	assert_string_equal(get_str(o, "mac"), "02:00:5e:00:53:0a");	/* lower case */
	assert_true(json_object_is_type(get(o, "vlan"), json_type_int));
	assert_int_equal(json_object_get_int64(get(o, "vlan")), 0);
	assert_string_equal(get_str(o, "ifname"), "lo");		/* ifindex 1 */
	assert_string_equal(get_str(o, "master"), "br0");
	/* ts: CLOCK_MONOTONIC in seconds */
	assert_true(json_object_is_type(get(o, "ts"), json_type_double));
	assert_float_equal(json_object_get_double(get(o, "ts")), 12.345, 1e-9);
	json_object_put(o);
}

static void test_event_move(void **state)
{
	struct xdpbr_event e = event(XDPBR_EV_MOVE, "02:00:5e:00:53:01", 4094, NO_IFINDEX,
				     1, 5 * XDPBR_NSEC_PER_SEC);
	struct json_object *o = event_json(&e, "lab_1");

	assert_keys(o, true);
	assert_string_equal(get_str(o, "event"), "move");
	assert_string_equal(get_str(o, "mac"), "02:00:5e:00:53:01");
	assert_int_equal(json_object_get_int64(get(o, "vlan")), 4094);
	assert_string_equal(get_str(o, "ifname"), "if999999");	/* where it is now */
	assert_string_equal(get_str(o, "from"), "lo");		/* where it was */
	assert_string_equal(get_str(o, "master"), "lab_1");
	assert_float_equal(json_object_get_double(get(o, "ts")), 5.0, 1e-9);
	json_object_put(o);
}

static void test_event_age_flush(void **state)
{
	static const struct {
		uint32_t type;
		const char *name;
	} cases[] = {
		{ XDPBR_EV_AGE, "age" },
		{ XDPBR_EV_FLUSH, "flush" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		/* old_ifindex set by mistake: still no "from" */
		struct xdpbr_event e = event(cases[i].type, "02:00:5e:00:53:02", 10,
					     NO_IFINDEX, 1, 0);
		struct json_object *o = event_json(&e, "br0");

		assert_keys(o, false);
		assert_string_equal(get_str(o, "event"), cases[i].name);
		assert_string_equal(get_str(o, "mac"), "02:00:5e:00:53:02");
		assert_int_equal(json_object_get_int64(get(o, "vlan")), 10);
		assert_string_equal(get_str(o, "ifname"), "if999999");
		assert_string_equal(get_str(o, "master"), "br0");
		assert_float_equal(json_object_get_double(get(o, "ts")), 0.0, 0);
		json_object_put(o);
	}
}

static void test_event_unknown_type(void **state)
{
	struct xdpbr_event e = event(77, "02:00:5e:00:53:03", 0, 1, 1, 0);
	struct json_object *o = event_json(&e, "br0");

	assert_keys(o, false);
	assert_string_equal(get_str(o, "event"), "unknown");
	json_object_put(o);
}

static void test_event_type_name(void **state)
{
	assert_string_equal(event_type_name(XDPBR_EV_LEARN), "learn");
	assert_string_equal(event_type_name(XDPBR_EV_MOVE), "move");
	assert_string_equal(event_type_name(XDPBR_EV_AGE), "age");
	assert_string_equal(event_type_name(XDPBR_EV_FLUSH), "flush");
	assert_string_equal(event_type_name(0), "unknown");	/* no type 0 */
	assert_string_equal(event_type_name(XDPBR_EV_FLUSH + 1), "unknown");
	assert_string_equal(event_type_name(UINT32_MAX), "unknown");
}

static void test_events_path(void **state)
{
	const struct ns_ids host = { 1, 2, 1, 2, 1 }, netns = { 3, 4, 1, 2, 9 };
	struct xdpbr_paths p;
	char buf[108];
	char small[sizeof("/run/xdpbr/br0.sock")];

	assert_int_equal(paths_build(&p, &host, -1), 0);
	paths_set(&p);
	assert_int_equal(events_path(buf, sizeof(buf), "br0"), 0);
	assert_string_equal(buf, "/run/xdpbr/br0.sock");
	assert_int_equal(events_path(buf, sizeof(buf), "abcdefghijklmno"), 0);
	assert_string_equal(buf, "/run/xdpbr/abcdefghijklmno.sock");
	/* exactly fits, and one byte short */
	assert_int_equal(events_path(small, sizeof(small), "br0"), 0);
	assert_string_equal(small, "/run/xdpbr/br0.sock");
	assert_int_equal(events_path(small, sizeof(small) - 1, "br0"), -ENAMETOOLONG);
	/* the longest bridge name fits a sockaddr_un path */
	assert_true(strlen("/run/xdpbr/abcdefghijklmno.sock") < sizeof(buf));
	/* another network namespace's: in a directory of its own */
	assert_int_equal(paths_build(&p, &netns, 5), 0);
	paths_set(&p);
	assert_int_equal(events_path(buf, sizeof(buf), "br0"), 0);
	assert_string_equal(buf, "/run/xdpbr/netns-cookie-9/br0.sock");
	assert_int_equal(paths_build(&p, &host, -1), 0);
	paths_set(&p);
}

/* What a monitor receives: the JSON of event_json() and a newline, one
 * event a line; a client that went away is dropped, the others served. */
static void test_send_lines(void **state)
{
	struct xdpbr_event learn = event(XDPBR_EV_LEARN, "02:00:5e:00:53:0a", 0, 1, 0, 0);
	struct xdpbr_event move = event(XDPBR_EV_MOVE, "02:00:5e:00:53:0a", 0, NO_IFINDEX, 1, 0);
	struct events ev;
	int a[2], b[2];
	char buf[1024], *nl;
	ssize_t n;
	struct json_object *o;

	log_init("test_events", LOG_LVL_WARN, false);	/* no chatter */
	memset(&ev, 0, sizeof(ev));
	ev.listen_fd = -1;
	snprintf(ev.bridge, sizeof(ev.bridge), "br0");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	assert_false(events_listening(&ev));
	events_send(&ev, &learn);			/* nobody listens: nothing */
	assert_int_equal(ev.sent, 0);

	ev.clients[ev.nclients++] = a[0];
	ev.clients[ev.nclients++] = b[0];
	assert_true(events_listening(&ev));
	events_send(&ev, &learn);
	events_send(&ev, &move);
	assert_int_equal(ev.sent, 4);

	n = read(a[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	nl = strchr(buf, '\n');				/* two lines, nothing else */
	assert_non_null(nl);
	assert_int_equal(buf[n - 1], '\n');
	assert_ptr_equal(strchr(nl + 1, '\n'), buf + n - 1);
	*nl = '\0';
	o = json_tokener_parse(buf);
	assert_non_null(o);
	assert_string_equal(get_str(o, "event"), "learn");
	assert_string_equal(get_str(o, "master"), "br0");
	json_object_put(o);
	buf[n - 1] = '\0';
	o = json_tokener_parse(nl + 1);
	assert_non_null(o);
	assert_string_equal(get_str(o, "event"), "move");
	assert_string_equal(get_str(o, "from"), "lo");
	json_object_put(o);

	close(b[1]);					/* a monitor goes away */
	events_send(&ev, &learn);
	assert_int_equal(ev.nclients, 1);
	assert_int_equal(ev.clients[0], a[0]);
	assert_int_equal(ev.dropped, 1);
	assert_int_equal(ev.sent, 5);
	n = read(a[1], buf, sizeof(buf) - 1);
	assert_true(n > 0 && buf[n - 1] == '\n');

	events_close(&ev);				/* closes the clients */
	assert_int_equal(ev.nclients, 0);
	assert_int_equal(read(a[1], buf, sizeof(buf)), 0);	/* EOF */
	close(a[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_learn),
		cmocka_unit_test(test_event_move),
		cmocka_unit_test(test_event_age_flush),
		cmocka_unit_test(test_event_unknown_type),
		cmocka_unit_test(test_event_type_name),
		cmocka_unit_test(test_events_path),
		cmocka_unit_test(test_send_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
