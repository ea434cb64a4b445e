#!/usr/bin/env bash
# datapaths: auto
# The daemon's start, reloads and stop built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-san/xdpbrd, which make check builds):
# no report, no leak (the scenario is tests/integration/checked_daemon.sh).
# SAN_BUILD names another sanitizer build.
# shellcheck source=checked_daemon.sh source-path=SCRIPTDIR
CHECKER=asan
BUILD=${SAN_BUILD:-build-san}
. "$(dirname "$0")/checked_daemon.sh"
