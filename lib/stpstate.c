// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>

#include "stpstate.h"

const struct stp_state_word stp_state_words[STP_STATE_WORDS] = {
	{ "disabled", XDPBR_STP_DISCARDING, STP_WORD_READ },
	{ "listening", XDPBR_STP_DISCARDING, STP_WORD_READ },
	{ "learning", XDPBR_STP_LEARNING, STP_WORD_READ | STP_WORD_SHOWN_OFF | STP_WORD_SHOWN_ON },
	{ "forwarding", XDPBR_STP_FORWARDING,
	  STP_WORD_READ | STP_WORD_SHOWN_OFF | STP_WORD_SHOWN_ON },
	{ "blocking", XDPBR_STP_DISCARDING, STP_WORD_READ | STP_WORD_SHOWN_OFF },
	{ "discarding", XDPBR_STP_DISCARDING, STP_WORD_SHOWN_ON },
};

const char *stp_state_word(enum xdpbr_stp_state st, bool stp_on)
{
	unsigned int shown = stp_on ? STP_WORD_SHOWN_ON : STP_WORD_SHOWN_OFF;

	for (size_t i = 0; i < STP_STATE_WORDS; i++)
		if (stp_state_words[i].state == (int)st && (stp_state_words[i].use & shown))
			return stp_state_words[i].name;
	return "?";
}
