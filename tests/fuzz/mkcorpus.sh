#!/usr/bin/env bash
#
# mkcorpus.sh - (re)writes the seed corpora of the fuzz harnesses,
# tests/fuzz/corpus/HARNESS/, from the descriptions below. The files are
# committed; run this after changing it, and commit what it wrote.
#
# Datapath seeds are two control bytes and a frame (see fuzz_datapath.c):
# byte 0 = VLAN filtering (bit 0) | ingress << 1 | learning off (0x10) |
# bridge limit (0x20) | ageing never (0x40) | port limit (0x80); byte 1 =
# storm control (1 full bucket, 2 empty). Ingress 0-4: p1..p5, 5: n1 (not a
# port), 6: ifindex 0, 7: an ifindex that does not exist. The MACs are those
# of the harness's FDB.

set -eu

DIR=$(cd "$(dirname "$0")" && pwd)/corpus

# bin FILE HEX...: the bytes HEX (spaces ignored) into FILE.
bin()
{
	local f=$1 hex
	shift
	hex=$(printf '%s' "$*" | tr -d ' \n')
	printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')" >"$f"
}

# pad HEX N: HEX zero-padded to N bytes.
pad()
{
	local hex=${1// /} n=$2
	while [ ${#hex} -lt $((2 * n)) ]; do
		hex+=00
	done
	printf '%s' "$hex"
}

# ctl VLAN INGRESS [FLAGS [STORM]]: the two control bytes.
ctl()
{
	printf '%02x%02x' $(($1 | $2 << 1 | ${3:-0})) "${4:-0}"
}

# ---------------------------------------------------------------- datapath
D=$DIR/datapath
rm -rf "$D"
mkdir -p "$D"

A1=0200000000a1 B2=0200000000b2 C3=0200000000c3 D4=0200000000d4
E5=0200000000e5 F6=0200000000f6 H7=020000000007 H9=020000000009
HA=02000000000a HB=02000000000b
BC=ffffffffffff
new() { printf '0200000001%02x' "$1"; }	# a MAC the FDB does not know

IP4="4500001c0001000040110000c6120001c6120002 0400040000080000"	# UDP
ARP() { printf '00010800060400 01%s c6120001 000000000000 c6120002' "$1"; }
IP6="6000000000083aff fe800000000000000000000000000001 ff020000000000000000000000000001 8000000000000000"
P1=0 P2=1 P3=2 P4=3 P5=4 N1=5 IFZERO=6 BOGUS=7
ON=1 OFF=0

bin "$D/untagged-ipv4-known-unicast" "$(ctl $OFF $P1)" "$(pad "$C3 $H9 0800 $IP4" 60)"
bin "$D/untagged-arp-broadcast" "$(ctl $OFF $P2)" "$(pad "$BC $(new 1) 0806 $(ARP "$(new 1)")" 60)"
bin "$D/untagged-ipv6-multicast" "$(ctl $OFF $P4)" "333300000001 $(new 2) 86dd $IP6"
bin "$D/tagged-vid10-trunk-to-access" "$(ctl $ON $P2)" "$(pad "$E5 $(new 3) 8100000a 0800 $IP4" 64)"
bin "$D/tagged-vid20-trunk-to-access-p3" "$(ctl $ON $P4)" "$(pad "$C3 $(new 4) 81000014 0800 $IP4" 64)"
bin "$D/double-tagged-8100-8100" "$(ctl $ON $P2)" "$(pad "$H7 $(new 5) 81000014 81000064 0800 $IP4" 68)"
bin "$D/8021ad-outer-stag" "$(ctl $ON $P2)" "$(pad "$BC $(new 6) 88a80064 8100000a 0800 $IP4" 68)"
bin "$D/8021ad-vlan-off" "$(ctl $OFF $P2)" "$(pad "$BC $(new 6) 88a80064 8100000a 0800 $IP4" 68)"
bin "$D/truncated-tag-16-bytes" "$(ctl $ON $P1)" "$BC $(new 7) 8100 00"
bin "$D/priority-tagged-pcp5" "$(ctl $ON $P1)" "$(pad "$BC $(new 8) 8100a000 0806 $(ARP "$(new 8)")" 64)"
bin "$D/tagged-vid4095" "$(ctl $ON $P2)" "$(pad "$BC $(new 9) 81000fff 0800 $IP4" 64)"
bin "$D/untagged-on-trunk-no-pvid" "$(ctl $ON $P2)" "$(pad "$BC $(new 10) 0806 $(ARP "$(new 10)")" 60)"
bin "$D/link-local-stp" "$(ctl $OFF $P1)" \
	"$(pad "0180c2000000 $(new 11) 0026 424203 0000 00 00 8000$(new 11) 00000000 8000$(new 11) 8001 0000 1400 0200 0f00" 60)"
bin "$D/link-local-lldp" "$(ctl $ON $P3)" \
	"$(pad "0180c200000e $(new 12) 88cc 0207 04$(new 12) 0403 076530 0602 0078 0000" 60)"
bin "$D/broadcast-not-a-port" "$(ctl $OFF $N1)" "$(pad "$BC $(new 13) 0806 $(ARP "$(new 13)")" 60)"
bin "$D/multicast-mdns-vlan20" "$(ctl $ON $P3)" "$(pad "01005e0000fb $(new 14) 0800 $IP4" 60)"
bin "$D/spoofed-static-source" "$(ctl $OFF $P2)" "$(pad "$C3 $A1 0800 $IP4" 60)"
bin "$D/spoofed-static-source-vlan20" "$(ctl $ON $P4)" "$(pad "$BC $B2 81000014 0800 $IP4" 64)"
bin "$D/hairpin-back-to-p4" "$(ctl $ON $P4)" "$(pad "$E5 $(new 15) 0800 $IP4" 60)"
bin "$D/isolated-p2-to-p3" "$(ctl $OFF $P2)" "$(pad "$C3 $(new 16) 0800 $IP4" 60)"
bin "$D/same-port-drop" "$(ctl $OFF $P1)" "$(pad "$H9 $(new 17) 0800 $IP4" 60)"
bin "$D/stale-dst-flooded" "$(ctl $OFF $P1)" "$(pad "$D4 $(new 18) 0800 $IP4" 60)"
bin "$D/stale-dst-ageing-never" "$(ctl $OFF $P1 0x40)" "$(pad "$D4 $(new 18) 0800 $IP4" 60)"
bin "$D/dst-on-down-port" "$(ctl $OFF $P1)" "$(pad "$F6 $(new 19) 0800 $IP4" 60)"
bin "$D/dst-static-on-non-member" "$(ctl $ON $P4)" "$(pad "$HA $(new 28) 81000014 0800 $IP4" 64)"
bin "$D/dst-learned-on-port-left-vlan" "$(ctl $ON $P3)" "$(pad "$HB $(new 29) 8100001e 0800 $IP4" 64)"
bin "$D/move-p1-host-to-p3" "$(ctl $OFF $P3)" "$(pad "$BC $H9 0806 $(ARP "$H9")" 60)"
bin "$D/learning-off" "$(ctl $OFF $P1 0x10)" "$(pad "$BC $(new 20) 0806 $(ARP "$(new 20)")" 60)"
bin "$D/learn-limits" "$(ctl $OFF $P4 0xa0)" "$(pad "$BC $(new 21) 0806 $(ARP "$(new 21)")" 60)"
bin "$D/storm-empty-bucket" "$(ctl $OFF $P1 0 2)" "$(pad "$BC $(new 22) 0806 $(ARP "$(new 22)")" 60)"
bin "$D/storm-full-bucket" "$(ctl $ON $P1 0 1)" "$(pad "$C3 $(new 23) 0800 $IP4" 60)"
bin "$D/bad-source-multicast" "$(ctl $OFF $P1)" "$(pad "$C3 01005e000001 0800 $IP4" 60)"
bin "$D/bad-source-zero" "$(ctl $OFF $P1)" "$(pad "$C3 000000000000 0800 $IP4" 60)"
bin "$D/runt-10-bytes" "$(ctl $OFF $P1)" "$BC 0200 0000"
bin "$D/header-only-14-bytes" "$(ctl $OFF $P1)" "$BC $(new 24) 0800"
bin "$D/ingress-ifindex-0" "$(ctl $OFF $IFZERO)" "$(pad "$BC $(new 25) 0806 $(ARP "$(new 25)")" 60)"
bin "$D/ingress-ifindex-bogus" "$(ctl $OFF $BOGUS)" "$(pad "$BC $(new 26) 0806 $(ARP "$(new 26)")" 60)"
bin "$D/ingress-down-port-p5" "$(ctl $ON $P5)" "$(pad "$H7 $(new 27) 8100000a 0800 $IP4" 64)"
# jumbo: IPv4 total length 8986, the rest a counting pattern
jumbo=$(pad "$C3 $H9 0800 4500231a0001000040110000c6120001c6120002 0400040023060000" 42)
for ((i = 0; i < 9000 - 42; i++)); do
	jumbo+=$(printf '%02x' $((i & 255)))
done
bin "$D/jumbo-9000-bytes" "$(ctl $OFF $P1)" "$jumbo"
bin "$D/jumbo-9000-bytes-vlan-push" "$(ctl $ON $P2)" "${jumbo/#${C3}${H9}0800/${H7}${H9}8100000a0800}"
# jumbo floods: every copy too big for its port, counted as the egress
# program would have (tx_dropped_mtu, or flood_filtered where a rule drops
# it first): from an isolated port (p3's copy filtered), back out of a
# hairpin port, and in VLAN 10 (p3 is not in it)
bin "$D/jumbo-broadcast-isolated-p2" "$(ctl $OFF $P2)" "${jumbo/#${C3}${H9}/${BC}$(new 30)}"
bin "$D/jumbo-broadcast-hairpin-p4" "$(ctl $OFF $P4)" "${jumbo/#${C3}${H9}/${BC}$(new 31)}"
bin "$D/jumbo-broadcast-vlan10-p2" "$(ctl $ON $P2)" "${jumbo/#${C3}${H9}0800/${BC}$(new 32)8100000a0800}"

# ---------------------------------------------------------------- config
C=$DIR/config
rm -rf "$C"
mkdir -p "$C"
cp "$DIR/../../../etc/xdpbrd.conf" "$C/example.conf"
printf '[bridge]\nname = br0\n' >"$C/minimal.conf"
printf '[bridge]\nname = br0\nvlan_filtering = on\ndefault_pvid = 0\n\n[port eth1]\npvid = 10\nuntagged = 10\nvlans = 20-30, 40 tagged\n\n[port eth2]\nvlans = 10,20\nstatic = 02:00:00:00:00:01 vlan 20\nstatic = 02-00-00-00-00-02\n' >"$C/vlans.conf"
printf '[bridge]\r\nname = br0\r\nlisten = [::1]:9638\r\n[port eth1]\r\nisolated = yes\r\nhairpin = TRUE\r\nmax_learned = 4294967295\r\n' >"$C/crlf.conf"
printf '\xef\xbb\xbf[bridge] ; comment\n  name = br0 ; inline\n# full line\n; another\nageing_time = 0\nfdb_size = 16\nmode = generic\n' >"$C/bom-comments.conf"
printf '[bridge]\nname = br0\nname = br1\n' >"$C/err-duplicate-key.conf"
printf '[port eth1]\npvid = 10\nvlans = 20\n' >"$C/err-pvid-not-member.conf"
printf '[port eth1]\nstatic = 01:00:5e:00:00:01\n' >"$C/err-static-multicast.conf"
printf '[port eth1]\nstatic = 02:00:00:00:00:01\n[port eth2]\nstatic = 02:00:00:00:00:01\n' >"$C/err-static-twice.conf"
printf '[port eth1]\nvlans = %s\n' "$(seq -s, 1 2 400)" >"$C/err-line-too-long.conf"
printf '[port eth1]\nlearning = off\n  flood = off\n[port eth1]\n' >"$C/err-duplicate-port.conf"
printf '[bridge]\nlisten = 127.0.0.1\nstorm = 1\n' >"$C/err-listen.conf"
printf '[bridge]\nname = br0\nlisten = none\n' >"$C/listen-none.conf"
printf '[port eth1]\nstorm_bcast = 1000\nstorm_mcast = 100000000\nstorm_unknown = 0\n' >"$C/storm.conf"
for ((i = 1; i <= 63; i++)); do printf '[port p%d]\n' $i; done >"$C/63-ports.conf"
{ cat "$C/63-ports.conf"; printf '[port p64]\n'; } >"$C/err-64-ports.conf"

# ---------------------------------------------------------------- cli
L=$DIR/cli
rm -rf "$L"
mkdir -p "$L"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '%s' "$line" | tr ' ' '\n' >"$L/$(printf '%02d' $n)-${line//[^a-z0-9]/_}"
done <<'EOF'
bridge show
-j -p bridge show
bridge set ageing_time 300 fdb_max_learned 1000
bridge set vlan_filtering on default_pvid 10
link show dev eth0
link set dev eth1 learning off flood on mcast_flood off bcast_flood on isolated on hairpin off max_learned 10
link set dev eth1 storm bcast 100 mcast 200 unknown 0 learning on
link add dev eth1 master br0 mode generic
-b br0 link del dev eth1
fdb show dev eth1 vlan 10 dynamic
fdb add 02:00:00:00:00:01 dev eth1 vlan 10 static
fdb del 02:00:00:00:00:01 dev eth1 vlan 10
fdb flush dev eth1 permanent
vlan show dev eth1
vlan add dev eth1 vid 10-20 untagged
vlan add dev eth1 vid 5 pvid untagged
vlan del dev eth1 vid 10
stats show dev eth1 rate 2 count 3
-r 2 stats
monitor fdb count 5
help
fdb help
link set help
l s d eth0 l of
-json f a 02-00-00-00-00-0a d e1
link del slot 5
EOF

# ---------------------------------------------------------------- bpdu
# A settings byte, then records CTL LEN BPDU (see fuzz_bpdu.c). CTL: bit 0
# port 2, bits 1-3 seconds after, bit 4 link flap, bit 5 mcheck, bit 6
# guard reset. The BPDUs: from 02:00:00:00:0b:09 (BR9) and :0b:05 (BR5).
B=$DIR/bpdu
rm -rf "$B"
mkdir -p "$B"
BR9=000000000b09 BR5=000000000b05
T="1400 0200 0f00"			# max age 20, hello 2, forward delay 15
# cfg ROOT COST BRIDGE PORT: a config BPDU (35 bytes), flags 00
cfg() { printf '0000 00 00 00 %s %08x %s %s 0000 %s' "$1" "$2" "$3" "$4" "$T"; }
# rst FLAGS ROOT COST BRIDGE PORT: an RST BPDU (36 bytes)
rst() { printf '0000 02 02 %s %s %08x %s %s 0000 %s 00' "$1" "$2" "$3" "$4" "$5" "$T"; }
TCN="0000 00 80"
rec() { printf '%02x%02x %s' "$1" "$(($(printf '%s' "$2" | tr -d ' ' | wc -c) / 2))" "$2"; }
R_BETTER=1000$BR9 R_WORSE=f000$BR9
DESIG_PROP=0e DESIG_FWD=3c ROOT_AGREE=68 ALT=04

bin "$B/config-better-root" 02 "$(rec 0 "$(cfg "$R_BETTER" 0 "$R_BETTER" 8001)")"
bin "$B/config-worse-then-tcn" 02 "$(rec 4 "$(cfg "$R_WORSE" 0 "$R_WORSE" 8001)")" \
	"$(rec 4 "$(cfg "$R_WORSE" 0 "$R_WORSE" 8001)")" "$(rec 14 "$TCN")" "$(rec 0 "$TCN")"
bin "$B/config-tc-tca" 02 "$(rec 2 "$(cfg "$R_BETTER" 0 "$R_BETTER" 8001 | sed 's/^0000 00 00 00/0000 00 00 81/')")"
bin "$B/rst-proposal" 00 "$(rec 0 "$(rst $DESIG_PROP "$R_BETTER" 0 "$R_BETTER" 8001)")" \
	"$(rec 2 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001)")"
bin "$B/rst-both-ports-alternate" 00 "$(rec 0 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001)")" \
	"$(rec 1 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8002)")" \
	"$(rec 6 "$(rst $ALT "$R_BETTER" 20000 1000$BR5 8002)")"
bin "$B/rst-agreement" 00 "$(rec 0 "$(rst $ROOT_AGREE "$R_WORSE" 20000 f000$BR5 8001)")"
bin "$B/rst-then-config-migration" 00 "$(rec 6 "$(rst $DESIG_FWD "$R_WORSE" 0 "$R_WORSE" 8001)")" \
	"$(rec 6 "$(cfg "$R_WORSE" 0 "$R_WORSE" 8001)")" "$(rec 32 "$(rst $DESIG_FWD "$R_WORSE" 0 "$R_WORSE" 8001)")"
bin "$B/bpdu-guard-trip-reset" 05 "$(rec 1 "$(rst $DESIG_FWD "$R_WORSE" 0 "$R_WORSE" 8001)")" \
	"$(rec 65 "$TCN")"
bin "$B/root-guard" 08 "$(rec 14 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001)")"
bin "$B/self-loop" 20 "$(rec 14 "$TCN")" "$(rec 14 "$TCN")"
bin "$B/force-stp-hold-1" 50 "$(rec 0 "$(rst $DESIG_PROP "$R_BETTER" 0 "$R_BETTER" 8001)")"
bin "$B/short" 00 "$(rec 0 "0000 02")"
bin "$B/rst-truncated" 00 "$(rec 0 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001 | sed 's/ 00$//')")"
bin "$B/rst-version-0" 00 "$(rec 0 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001 | sed 's/^0000 02/0000 00/')")"
bin "$B/bad-type" 00 "$(rec 0 "0000 00 01 $(cfg "$R_BETTER" 0 "$R_BETTER" 8001 | cut -c12-)")"
bin "$B/rst-message-age-max-age" 00 "$(rec 0 "$(rst $DESIG_FWD "$R_BETTER" 0 "$R_BETTER" 8001 | sed 's/0000 1400/1400 1400/')")"
bin "$B/config-message-age-max-age" 00 "$(rec 0 "$(cfg "$R_BETTER" 0 "$R_BETTER" 8001 | sed 's/0000 1400/1400 1400/')")"

# ---------------------------------------------------------------- http
W=$DIR/http
rm -rf "$W"
mkdir -p "$W"
req() { printf '%b' "$2" >"$W/$1"; }
req get-stats 'GET /stats HTTP/1.1\r\nHost: 127.0.0.1:9638\r\nUser-Agent: curl/7.88\r\nAccept: */*\r\n\r\n'
req get-metrics-http10 'GET /metrics HTTP/1.0\r\n\r\n'
req get-fdb 'GET /fdb HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-port-vlan 'GET /fdb?port=p1&vlan=10 HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-not-a-port 'GET /fdb?port=lo HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-bad-vlan 'GET /fdb?vlan=4095 HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-unknown-param 'GET /fdb?x=1&port HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-escaped 'GET /fdb?port=%70%31&vlan=%31%30 HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-page 'GET /fdb?limit=2 HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-page-after 'GET /fdb?limit=1&after=3&vlan=10 HTTP/1.1\r\nHost: x\r\n\r\n'
req get-fdb-page-http10 'GET /fdb?limit=3 HTTP/1.0\r\n\r\n'
req get-fdb-bad-limit 'GET /fdb?limit=0&after=x HTTP/1.1\r\nHost: x\r\n\r\n'
req pipelined-pages 'GET /fdb?limit=1 HTTP/1.1\r\nHost: x\r\n\r\nHEAD /fdb?limit=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /fdb?after=2 HTTP/1.1\r\nHost: x\r\n\r\n'
req head-stats 'HEAD /stats HTTP/1.1\r\nHost: x\r\n\r\n'
req post-stats 'POST /stats HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc'
req get-with-body 'GET /stats HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'
req get-chunked-body 'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
req get-expect-continue 'GET /stats HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nab'
req get-not-found 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'
req pipelined 'GET /stats HTTP/1.1\r\nHost: x\r\n\r\nHEAD /fdb HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
req http2-version 'GET /stats HTTP/2.0\r\nHost: x\r\n\r\n'
req absolute-uri 'GET http://x/stats HTTP/1.1\r\nHost: x\r\n\r\n'
req options-star 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'
req bare-lf 'GET /fdb?vlan=0 HTTP/1.1\nHost: x\n\n'
req no-host-http11 'GET /stats HTTP/1.1\r\n\r\n'
req garbage 'GE\x00T /\xff HTTP/1.1\r\n\r\n'
printf 'GET /fdb?port=%s HTTP/1.1\r\nHost: x\r\n\r\n' "$(head -c 40000 /dev/zero | tr '\0' a)" >"$W/uri-40k"
printf 'GET /stats HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' "$(head -c 66000 /dev/zero | tr '\0' b)" >"$W/header-66k"

echo "mkcorpus: $(find "$DIR" -type f | wc -l) seeds in $DIR"
