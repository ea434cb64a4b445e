#!/usr/bin/env python3
# A multicast host on interface e0 of its namespace ($MCPEER_DEV if set),
# with the socket API
# of RFC 3678 (MCAST_*), which serves both families:
#   mcpeer.py join GROUP          joins GROUP for every source,
#   mcpeer.py include GROUP SRC   joins GROUP for SRC only (INCLUDE),
#   mcpeer.py exclude GROUP SRC   joins GROUP for every source but SRC
#                                 (EXCLUDE: SRC blocked),
# each printing "joined" and holding the membership until killed;
#   mcpeer.py send GROUP N        sends N UDP datagrams to GROUP, port 4242.
import os
import socket
import struct
import sys
import time

MCAST_JOIN_GROUP, MCAST_BLOCK_SOURCE, MCAST_JOIN_SOURCE_GROUP = 42, 43, 46

mode, group = sys.argv[1], sys.argv[2]
idx = socket.if_nametoindex(os.environ.get("MCPEER_DEV", "e0"))
v6 = ":" in group
fam = socket.AF_INET6 if v6 else socket.AF_INET
level = socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP
s = socket.socket(fam, socket.SOCK_DGRAM)


def storage(addr):
    """A struct sockaddr_storage (128 bytes) holding addr."""
    if v6:
        sa = struct.pack("@HHI16sI", fam, 0, 0, socket.inet_pton(fam, addr), 0)
    else:
        sa = struct.pack("@HH4s8x", fam, 0, socket.inet_pton(fam, addr))
    return sa.ljust(128, b"\0")


def req(*addrs):
    """struct group_req or group_source_req: e0's index, padded to 8."""
    return struct.pack("@I4x", idx) + b"".join(storage(a) for a in addrs)


if mode == "send":
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                     socket.inet_aton("0.0.0.0") + socket.inet_aton("0.0.0.0") +
                     struct.pack("@i", idx))
    for i in range(int(sys.argv[3])):
        s.sendto(b"xdpbr-mcast %d" % i, (group, 4242))
        time.sleep(0.01)
    sys.exit(0)
if mode == "include":
    s.setsockopt(level, MCAST_JOIN_SOURCE_GROUP, req(group, sys.argv[3]))
elif mode in ("join", "exclude"):
    s.setsockopt(level, MCAST_JOIN_GROUP, req(group))
    if mode == "exclude":
        s.setsockopt(level, MCAST_BLOCK_SOURCE, req(group, sys.argv[3]))
else:
    sys.exit("mcpeer.py: no mode " + mode)
print("joined", flush=True)
time.sleep(3600)
