/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_EVENTS_H
#define XDPBR_EVENTS_H

/*
 * events - FDB events to `xdpbr monitor`.
 *
 * The datapath reports learns and moves through the ring buffer
 * xdpbr_events; the daemon adds ageing and flushes. The daemon is the ring
 * buffer's one consumer and passes every event on, as one JSON object per
 * line, to the clients of a root-only Unix socket /run/xdpbr/<bridge>.sock
 * (another network namespace's: /run/xdpbr/netns-N/<bridge>.sock, paths.h):
 *
 *   {"event":"learn"|"move"|"age"|"flush","mac":"02:..","vlan":0,
 *    "ifname":"eth2","master":"br0","from":"eth1" (move only),"ts":12.345}
 *
 * and, from the spanning tree (daemon/stpd.c), with "master" and "ts" too:
 *
 *   {"event":"stp_state","ifname":"eth1","state":"forwarding","role":"root"}
 *   {"event":"stp_role","ifname":"eth1","role":"alternate","state":".."}
 *   {"event":"topology_change","ifname":"eth1","topology_changes":3}
 *   {"event":"stp_root","root_id":"8000.02:..","root_port":"eth1"|""}
 *   {"event":"bpdu_guard"|"root_guard","ifname":"eth1"}
 *   {"event":"stp_protocol","ifname":"eth1","protocol":"stp"|"rstp"}
 *   {"event":"bad_bpdu","ifname":"eth1"}
 *
 * The first line a client gets is {"event":"hello","master":"br0"}: from
 * then on it misses nothing. A client that can't keep up is dropped rather
 * than allowed to stall the daemon.
 */
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "xdpbr.h"

/* Whether an xdpbrd runs for the bridge: its event socket takes a
 * connection. */
bool events_daemon_runs(const char *bridge);
/* First line to every client, once it is registered: {"event":"hello",...}.
 * A monitor that has read it misses no later event. */
#define EVENTS_HELLO_PREFIX "{\"event\":\"hello\""
#define EVENTS_MAX_CLIENTS 16

struct events {
	char bridge[16];
	char path[108];
	int listen_fd;
	int clients[EVENTS_MAX_CLIENTS];
	int nclients;
	uint64_t sent, dropped;
};

/* Creates the socket (directories 0700, socket 0600). 0 or -errno. */
int events_open(struct events *ev, const char *bridge);
void events_close(struct events *ev);
/* Accepts pending clients (call when listen_fd is readable). */
void events_accept(struct events *ev);
/* Sends one event to every client. */
void events_send(struct events *ev, const struct xdpbr_event *e);
/* Sends an event object to every client and releases it. */
void events_send_json(struct events *ev, struct json_object *o);
/* The "ts" member, seconds of CLOCK_MONOTONIC, as every event has it. */
void event_add_ts(struct json_object *o, uint64_t ts_ns);
/* Whether anyone listens (to skip building events nobody reads). */
int events_listening(const struct events *ev);

/* The JSON of an event (shared with the CLI's text rendering). */
struct json_object *event_json(const struct xdpbr_event *e, const char *bridge);
const char *event_type_name(uint32_t type);

/* Socket path of a bridge's event stream into buf. */
int events_path(char *buf, size_t len, const char *bridge);

#endif
