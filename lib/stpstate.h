/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_STPSTATE_H
#define XDPBR_STPSTATE_H

#include <stdbool.h>
#include "xdpbr.h"

/*
 * stpstate - the words of the spanning tree states (enum xdpbr_stp_state),
 * one table for printing and for
 * reading, as iproute2's port_states[]: bridge(8)'s five in its order (so a
 * row's index is its number, BR_STATE_*), then RSTP's "discarding". A row
 * says when it is printed and whether `link set state` reads it; the name
 * comes first, so the CLI's word lookup reads the table as it is.
 */
enum {
	STP_WORD_SHOWN_OFF	= 1U << 0,	/* printed while STP is off */
	STP_WORD_SHOWN_ON	= 1U << 1,	/* printed while STP runs */
	STP_WORD_READ		= 1U << 2,	/* a word of `link set state` */
};
#define STP_STATE_WORDS 6
extern const struct stp_state_word {
	const char *name;
	int state;			/* enum xdpbr_stp_state */
	unsigned int use;		/* STP_WORD_* */
} stp_state_words[STP_STATE_WORDS];

/* The word for a port in spanning tree state st (the one enforced,
 * ctl_port_stp_effective): "forwarding", "learning", and for discarding
 * "discarding" while STP runs, "blocking" (set by hand) while it does not. */
const char *stp_state_word(enum xdpbr_stp_state st, bool stp_on);

#endif
