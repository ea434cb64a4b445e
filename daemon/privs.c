// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* privs.c - drop every capability a thread does not use (see privs.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <grp.h>
#include <unistd.h>
#include <cap-ng.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "log.h"
#include "privs.h"

#define CAPBIT(c)	(1ULL << (c))
#define CAPS_MAX	64

/* A thread's sets as the kernel has them. */
struct caps {
	uint64_t eff, prm, inh;
};

/* The calling thread's sets (capget with pid 0 reads this thread's). */
static int caps_get(struct caps *c)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };	/* valgrind sees d[0] filled only */

	if (syscall(SYS_capget, &h, d))
		return -errno;
	c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c->prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

/* "CAP_NET_ADMIN" for CAP_NET_ADMIN (libcap-ng's names are lower case). */
static void cap_name(unsigned int cap, char *buf, size_t len)
{
	const char *name = capng_capability_to_name(cap);

	if (!name) {
		snprintf(buf, len, "capability %u", cap);
		return;
	}
	snprintf(buf, len, "CAP_%s", name);
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
}

const char *privs_names(uint64_t mask, char *buf, size_t len)
{
	char one[40];
	size_t n = 0;

	snprintf(buf, len, "none");
	for (unsigned int cap = 0; cap < CAPS_MAX && n < len; cap++) {
		if (!(mask & CAPBIT(cap)))
			continue;
		cap_name(cap, one, sizeof(one));
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", one);
	}
	return buf;
}

static bool keep_sys_admin;

void privs_keep_sys_admin(void)
{
	keep_sys_admin = true;
}

uint64_t privs_wanted(bool bind_low_port)
{
	return CAPBIT(CAP_BPF) | CAPBIT(CAP_NET_ADMIN) | CAPBIT(CAP_PERFMON) | CAPBIT(CAP_NET_RAW) |
	       CAPBIT(CAP_SETUID) | CAPBIT(CAP_SETGID) | CAPBIT(CAP_SETPCAP) | CAPBIT(CAP_KILL) |
	       (bind_low_port ? CAPBIT(CAP_NET_BIND_SERVICE) : 0) |
	       (keep_sys_admin ? CAPBIT(CAP_SYS_ADMIN) : 0);
}

int privs_check(bool bind_low_port)
{
	uint64_t want = privs_wanted(bind_low_port);
	char names[256];
	struct caps c;
	int err = caps_get(&c);

	if (err) {
		log_err("Couldn't read the capabilities xdpbrd runs with: %s", strerror(-err));
		return err;
	}
	if ((c.prm & want) == want)
		return 0;
	log_err("xdpbrd runs without %s, which it keeps to run the bridge (daemon/privs.h); "
		 "start it as root, or with those capabilities too",
		 privs_names(want & ~c.prm, names, sizeof(names)));
	return -EPERM;
}

/* What capng_apply may change: the bounding set too only with CAP_SETPCAP
 * (else it stays as the service manager's CapabilityBoundingSet= left it,
 * and Debian's libcap-ng logs a warning to syslog for trying). */
static capng_select_t apply_sets(void)
{
	struct caps c;

	return !caps_get(&c) && c.eff & CAPBIT(CAP_SETPCAP) ? CAPNG_SELECT_BOTH
							    : CAPNG_SELECT_CAPS;
}

/* The bounding set as wanted, when this thread may reduce it; else it stays
 * (the service manager's CapabilityBoundingSet= is the one that counts). */
static void bounds_note(uint64_t want)
{
	uint64_t extra = 0;
	char names[1024];

	for (unsigned int cap = 0; cap < CAPS_MAX; cap++)
		if (!(want & CAPBIT(cap)) && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			extra |= CAPBIT(cap);
	if (extra)
		log_debug("capability bounding set not reduced (that needs CAP_SETPCAP); it "
			  "still has %s", privs_names(extra, names, sizeof(names)));
}

int privs_drop(bool bind_low_port)
{
	uint64_t want = privs_wanted(bind_low_port);
	capng_select_t sets = apply_sets();
	char have[1024], wanted[256];
	struct caps c;
	int err;

	capng_clear(CAPNG_SELECT_BOTH);
	for (unsigned int cap = 0; cap < CAPS_MAX; cap++)
		if (want & CAPBIT(cap))
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED |
				     CAPNG_BOUNDING_SET, cap);
	/* Its result says nothing certain; the sets read back below are the
	 * truth. */
	capng_apply(sets);
	err = caps_get(&c);
	if (err) {
		log_err("Couldn't read back the capabilities after dropping them: %s",
			 strerror(-err));
		return err;
	}
	if (c.eff != want || c.prm != want || c.inh) {
		log_err("Couldn't drop capabilities: the main thread holds %s, it should hold "
			 "exactly %s", privs_names(c.eff | c.prm | c.inh, have, sizeof(have)),
			 privs_names(want, wanted, sizeof(wanted)));
		return -EPERM;
	}
	bounds_note(want);
	log_debug("capabilities now: %s", privs_names(want, wanted, sizeof(wanted)));
	return 0;
}

/* The bounding set, as the kernel has it. */
static uint64_t bounds_get(void)
{
	uint64_t b = 0;

	for (unsigned int cap = 0; cap < CAPS_MAX; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			b |= CAPBIT(cap);
	return b;
}

/* Reads back what privs_drop_process promises: 0 or -EPERM, said. */
static int stripped_check(uid_t uid, gid_t gid)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	char names[1024];
	struct caps c;
	uint64_t b = bounds_get();
	int err = caps_get(&c);

	if (err)
		return err;
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) || ru != uid || eu != uid ||
	    su != uid || rg != gid || eg != gid || sg != gid || getgroups(0, NULL) != 0) {
		log_err("the HTTP process did not end up as uid %u gid %u alone", uid, gid);
		return -EPERM;
	}
	/* The ambient set is within the permitted one: empty with it. */
	if (c.eff || c.prm || c.inh || b) {
		log_err("the HTTP process still holds %s",
			privs_names(c.eff | c.prm | c.inh | b, names, sizeof(names)));
		return -EPERM;
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return -EPERM;
	return 0;
}

int privs_drop_process(uid_t uid, gid_t gid)
{
	if (!uid)
		return -EINVAL;
	capng_clear(CAPNG_SELECT_ALL);
	/* The bounding set first (that takes CAP_SETPCAP), then the ids: a
	 * change of every uid away from 0 clears the other sets. */
	if (capng_apply(CAPNG_SELECT_BOUNDS) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) ||
	    setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return errno ? -errno : -EPERM;
	capng_apply(CAPNG_SELECT_CAPS);	/* the inheritable set, which setresuid keeps */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return stripped_check(uid, gid);
}
