// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* loop.c - xdpbrd's main loop and the services it runs: signals, the
 * ageing sweep, the datapath's events, the pins, the HTTP endpoint and the
 * event stream (daemon.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <bpf/libbpf.h>

#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "netlink.h"
#include "util.h"

/* One ageing step per tick looks at no more than this many entries: a
 * million-entry table is swept over a few seconds without a stall. */
#define AGE_TICK_MS	250
#define AGE_BUDGET	65536
#define MOVE_LOG_BURST		5
#define MOVE_LOG_PERIOD_S	10

static volatile sig_atomic_t quit, reload;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		quit = sig;
}

int loop_quit(void)
{
	return quit;
}

/* Handlers only set flags; the signals are delivered inside ppoll(). */
void loop_signals_catch(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* From here on they wait for ppoll() (loop_run): no wake-up is lost. */
void loop_signals_block(void)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);
}

static void log_move(struct daemon *d, const struct xdpbr_event *e)
{
	char mac[MAC_STRLEN], from[IF_NAMESIZE], to[IF_NAMESIZE];
	uint64_t now = mono_ns();

	if (now - d->lp.move_window_ns > MOVE_LOG_PERIOD_S * XDPBR_NSEC_PER_SEC) {
		if (d->lp.move_suppressed)
			log_warn("%u more MAC moves not logged in the last %d s",
				 d->lp.move_suppressed, MOVE_LOG_PERIOD_S);
		d->lp.move_window_ns = now;
		d->lp.move_logged = d->lp.move_suppressed = 0;
	}
	if (d->lp.move_logged >= MOVE_LOG_BURST) {
		d->lp.move_suppressed++;
		return;
	}
	d->lp.move_logged++;
	log_warn("MAC %s vlan %u moved from %s to %s (a MAC that keeps moving "
		 "suggests a loop)", mac_format(e->mac, mac), e->vlan,
		 ifname_of(e->old_ifindex, from), ifname_of(e->ifindex, to));
}

static int on_ringbuf_event(void *ctx, void *data, size_t len)
{
	struct daemon *d = ctx;
	const struct xdpbr_event *e = data;

	if (len < sizeof(*e))
		return 0;
	if (e->type == XDPBR_EV_MOVE)
		log_move(d, e);
	evpn_fdb_event(&d->evpn, e);
	brmirror_fdb_event(&d->mirror, e);
	events_send(&d->events, e);
	return 0;
}

static void emit_deleted(struct daemon *d, uint32_t type, const struct xdpbr_fdb_key *k,
			 const struct xdpbr_fdb_val *v)
{
	struct xdpbr_event e = {
		.ts = mono_ns(), .type = type, .ifindex = v->ifindex, .vlan = k->vlan,
	};

	evpn_fdb_deleted(&d->evpn, k, v);
	brmirror_fdb_deleted(&d->mirror, k);
	if (!events_listening(&d->events))
		return;
	memcpy(e.mac, k->mac, 6);
	events_send(&d->events, &e);
}

static void on_aged(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v, void *arg)
{
	emit_deleted(arg, XDPBR_EV_AGE, k, v);
}

static void on_deleted(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v, void *arg)
{
	emit_deleted(arg, XDPBR_EV_FLUSH, k, v);
}

void loop_hooks(struct daemon *d)
{
	ctl_set_delete_hook(on_deleted, d);
	d->lp.sweep.on_aged = on_aged;
	d->lp.sweep.arg = d;
}

/* The pins are the bridge's name for everyone else: keep them there. */
static void check_pins(struct daemon *d)
{
	int ret = bridge_pins_check(&d->br);

	if (ret == 1) {
		log_warn("the pins of bridge %s were removed: pinned its maps and programs "
			 "again in %s", d->br.name, d->br.dir);
		d->lp.pins_lost = false;
	} else if (ret < 0 && !d->lp.pins_lost) {
		/* Said once; forwarding is not affected. */
		log_warn("the pins of bridge %s are gone and can't be put back (%s)%s; the "
			 "bridge keeps forwarding, but xdpbr and a restarted xdpbrd won't find "
			 "it until they are", d->br.name, strerror(-ret),
			 ret == -ENOENT ? ": bpffs is not mounted on /sys/fs/bpf; mount it with "
			 "'mount -t bpf bpf /sys/fs/bpf' and they will be" : "");
		d->lp.pins_lost = true;
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * XDPBR_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* One bounded step of the ageing sweep; a finished pass is logged with
 * what it cost (debug level, or info when it aged anything out). */
static void age_step(struct daemon *d)
{
	uint64_t t0 = cpu_ns();
	int ret = ctl_fdb_age(&d->br.maps, mono_ns(), AGE_BUDGET, &d->lp.sweep);

	d->lp.sweep_cpu_ns += cpu_ns() - t0;
	if (ret < 0) {
		log_warn("ageing sweep failed: %s", strerror(-ret));
		d->lp.sweep.running = false;
		d->lp.sweep_cpu_ns = 0;
		return;
	}
	if (ret == 0)
		return;
	{
		uint64_t dyn = 0;

		for (int i = 1; i < XDPBR_MAX_PORTS; i++)
			dyn += d->lp.sweep.counts[i];
		if (d->http.on)
			http_set_fdb(&d->http, dyn + d->lp.sweep.statics, dyn, d->lp.sweep.statics);
	}
	if (d->lp.sweep.repaired)
		log_debug("learned counts set to what the quiet sweep counted (they had "
			  "drifted)");
	if (d->lp.sweep.aged)
		log_info("aged out %llu FDB entries (sweep of %llu entries, %.1f ms CPU)",
			 (unsigned long long)d->lp.sweep.aged, (unsigned long long)d->lp.sweep.seen,
			 (double)d->lp.sweep_cpu_ns / 1e6);
	else
		log_debug("sweep of %llu entries: nothing aged, %.1f ms CPU",
			  (unsigned long long)d->lp.sweep.seen, (double)d->lp.sweep_cpu_ns / 1e6);
	d->lp.sweep_cpu_ns = 0;
}

int loop_run(struct daemon *d)
{
	enum { PFD_NETLINK, PFD_EVENTS, PFD_MONITOR, PFD_EVPN, PFD_MIRROR, PFD_MCAST, PFD_N };
	struct pollfd pfd[PFD_N + XDPBR_MAX_PORTS] = {
		[PFD_NETLINK] = { .fd = mnl_socket_get_fd(d->lp.nl), .events = POLLIN },
		[PFD_EVENTS] = { .fd = d->lp.rb ? ring_buffer__epoll_fd(d->lp.rb) : -1, .events = POLLIN },
		[PFD_MONITOR] = { .fd = d->events.listen_fd, .events = POLLIN },
		[PFD_EVPN] = { .fd = evpn_fd(&d->evpn), .events = POLLIN },
	};
	/* A flush under way goes on in steps, one a turn: no sleep meanwhile. */
	const struct timespec now = { 0 };
	uint64_t next_age = mono_ns(), next_stp = mono_ns();
	struct timespec tick;
	sigset_t none;
	int n, nstp, err, wait_ms;

	sigemptyset(&none);
	brmirror_init(&d->mirror, &d->br);
	d->mirror.kernel_vlans = kernel_vlans_kept;
	d->mirror.arg = d;
	mcast_init(&d->mcast, &d->br);
	while (!quit) {
		nstp = stpd_pollfds(&d->stp, pfd + PFD_N, XDPBR_MAX_PORTS);
		/* The spanning tree's tick is the shortest, unless the EVPN
		 * mirror has work queued. */
		wait_ms = STPD_TICK_MS;
		evpn_wait(&d->evpn, &wait_ms);
		brmirror_wait(&d->mirror, &wait_ms);
		pfd[PFD_MIRROR] = (struct pollfd){ .fd = brmirror_fd(&d->mirror), .events = POLLIN };
		pfd[PFD_MCAST] = (struct pollfd){ .fd = mcast_fd(&d->mcast), .events = POLLIN };
		tick = (struct timespec){ wait_ms / 1000, (wait_ms % 1000) * 1000000L };
		/* Signals are blocked except inside ppoll: no lost wake-up. */
		n = ppoll(pfd, PFD_N + (nfds_t)nstp, fdbflush_busy(&d->flush) ? &now : &tick,
			  &none);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (quit)
			break;
		/* First in the turn: the heartbeat waits for nothing else. */
		if (mono_ns() >= next_stp) {
			next_stp = mono_ns() + STPD_TICK_MS * 1000000ULL;
			stpd_tick(&d->stp);
		}
		if (reload) {
			reload = 0;
			apply_reload(d);
		}
		if (n > 0 && pfd[PFD_NETLINK].revents & POLLIN) {
			err = linkwatch_read(d->lp.nl, on_link_event, d);
			if (err == -ENOBUFS) {
				log_warn("link events were lost: rereading every port's state");
				resync_links(d);
			}
		}
		if (n > 0 && pfd[PFD_MONITOR].revents & POLLIN)
			events_accept(&d->events);
		if (n > 0 && pfd[PFD_EVPN].revents & POLLIN)
			evpn_read(&d->evpn);
		if (n > 0 && pfd[PFD_MIRROR].revents & POLLIN)
			brmirror_read(&d->mirror);
		if (n > 0 && pfd[PFD_MCAST].revents & POLLIN)
			mcast_read(&d->mcast);
		if (n > 0)
			stpd_input(&d->stp, pfd + PFD_N, nstp);
		if (d->lp.rb)
			ring_buffer__consume(d->lp.rb);
		evpn_step(&d->evpn);
		brmirror_step(&d->mirror);
		mcast_step(&d->mcast);
		fdbflush_step(&d->flush);
		/* Events must not speed up the ageing tick. */
		if (mono_ns() >= next_age) {
			next_age = mono_ns() + AGE_TICK_MS * 1000000ULL;
			age_step(d);
			check_pins(d);
			http_watch(&d->http);
			if (++d->lp.ticks % (1000 / AGE_TICK_MS) == 0) {
				hostdev_sync(&d->host);
				statics_retry(d);
			}
		}
	}
	return 0;
}

/* The HTTP endpoint, the event stream and the ring buffer reader. None is
 * needed to forward: a failure is a warning, and the bridge runs on. */
void loop_services_start(struct daemon *d)
{
	const char *listen = listen_of(d, &d->ap.cfg);
	int err;

	if (!config_listen_none(listen)) {
		err = http_start(&d->http, d->br.name, listen, d->lp.start_ns);
		if (err)
			log_warn("Couldn't serve statistics on %s: %s (choose another address "
				 "with --listen or 'listen =' in the configuration)", listen,
				 strerror(-err));
		else
			log_info("statistics on http://%s/stats, /metrics and /fdb", listen);
	}
	err = events_open(&d->events, d->br.name);
	if (err)
		log_warn("Couldn't open the event stream %s: %s (xdpbr monitor won't work)",
			 d->events.path, strerror(-err));
	d->lp.rb = ring_buffer__new(d->br.maps.events, on_ringbuf_event, d, NULL);
	if (!d->lp.rb)
		log_warn("Couldn't read the datapath's event ring buffer: %s", strerror(errno));
}

void loop_services_stop(struct daemon *d)
{
	http_stop(&d->http);
	events_close(&d->events);
	ring_buffer__free(d->lp.rb);
	d->lp.rb = NULL;
}
