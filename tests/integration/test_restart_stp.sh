#!/usr/bin/env bash
# test_restart.sh with the spanning tree on (XT_STP, see lib.sh): the daemon
# resumes the port states the datapath holds, so the restarts lose nothing.
XT_STP=on exec "$(dirname "$0")/test_restart.sh" "$@"
