/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_FAULT_H
#define XDPBR_FAULT_H

/*
 * fault - fault points for the tests: a crash or a failure at a moment no
 * real fault can be timed to (the middle of ctl_port_write, a port's
 * configuration refused by the maps). XDPBR_FAULT=NAME[@N] in the
 * environment makes fault_hit(NAME) true on the Nth time this process
 * passes that point (default the first), false every other time and for
 * every other name. Without the variable a point costs a getenv().
 *
 * The points (tests/integration/test_faultpoints.sh):
 *   ctl_port_write   the caller aborts between the slot's writes and the
 *                    ports hash's (lib/ctl.c)
 *   apply_port       xdpbrd fails to apply a port's section (-EIO)
 *   port_attach_slow a port's add pauses 300 ms between its map writes and
 *                    its attach (lib/brport.c), for another process to
 *                    add the same port then (test_ports_runtime)
 *   port_xdp_attach_slow  a port joining on XDP pauses 300 ms between its
 *                    TC program's attach and its XDP program's
 *                    (lib/brport.c): what comes in then is the TC
 *                    program's own (test_ports_runtime)
 *   port_xdp_mode_slow  a port joining on XDP pauses 300 ms between the
 *                    write of its XDP mode and its XDP program's attach
 *                    (lib/brport.c): what comes in then has passed no XDP
 *                    program yet (test_ports_runtime)
 */
#include <stdbool.h>

bool fault_hit(const char *name);

#endif
