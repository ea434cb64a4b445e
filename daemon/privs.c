// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* privs.c - drop every capability the running daemon does not use. */
#include <errno.h>
#include <cap-ng.h>
#include <linux/capability.h>

#include "log.h"
#include "privs.h"

int privs_drop(bool bind_low_port)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET,
			  CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON, -1) ||
	    (bind_low_port &&
	     capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET,
			  CAP_NET_BIND_SERVICE)))
		return -EINVAL;
	if (capng_apply(CAPNG_SELECT_BOTH)) {
		log_warn("Couldn't drop capabilities; running with all of root's");
		return -EPERM;
	}
	log_debug("capabilities now: CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON%s",
		  bind_low_port ? ", CAP_NET_BIND_SERVICE" : "");
	return 0;
}
