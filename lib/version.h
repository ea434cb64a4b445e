/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_VERSION_H
#define XDPBR_VERSION_H

/* "NAME VERSION (git REVISION)": what `xdpbrd --version` and `xdpbr -V`
 * print. VERSION is the Makefile's, REVISION `git describe --always
 * --dirty` of the tree it was built from, "unknown" outside git. */
const char *version_line(const char *name);

#endif
