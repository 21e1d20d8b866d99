// SPDX-License-Identifier: GPL-2.0
/*
 * Per-connection class picker for the shaper's HTB qdiscs (cls_bpf, direct action).
 *
 * Every new transport 5-tuple gets the next free HTB class the moment its first packet
 * is seen, and both directions of a connection get the same class, so concurrent
 * connections never share a queue. Two programs from one object share the maps:
 * "to_client" runs on the shaper's client-facing veth (the client is the destination),
 * "to_server" on its server-facing veth (the client is the source).
 *
 * cls_bpf can only set the minor class number (the filter is added with classid 1:0).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Class minors FIRST_CLASS .. FIRST_CLASS + SLOTS - 1 exist on both qdiscs.
 * Must match src/shaper/flowclass.ts. */
#define FIRST_CLASS 0x100
#define DEFAULT_CLASS 0x2   /* non-IP (ARP) and non-TCP/UDP traffic */
#define SHARED_CLASS 0x3    /* every flow, when the run asks for one shared queue */

struct flow_key {
	__u8 client[16];
	__u8 server[16];
	__u16 client_port;
	__u16 server_port;
	__u8 proto;
	__u8 family;
	__u8 pad[2];
};

/* Value: generation << 16 | class. LRU: a bottleneck kept across many probes (a crawl's
 * kept paths) never fills up; the least recently seen flows make room. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct flow_key);
	__type(value, __u32);
} ccb_flows SEC(".maps");

/* [0] = flows seen so far (next slot), [1] = slots (set by the loader; 0 = shared mode),
 * [2] = generation: the loader bumps it before each probe on a kept path, and a flow entry of
 * an earlier generation counts as unseen (a reused 5-tuple must not keep an old class that a
 * new flow may hold). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u32);
} ccb_state SEC(".maps");

static __always_inline int parse(struct __sk_buff *skb, struct flow_key *k, int client_is_dst)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	__u8 *l4;

	if ((void *)(eth + 1) > end)
		return -1;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		if ((void *)(ip + 1) > end)
			return -1;
		if (ip->frag_off & bpf_htons(0x1fff)) /* later fragments carry no ports */
			return -1;
		k->proto = ip->protocol;
		k->family = 4;
		__builtin_memcpy(client_is_dst ? k->client : k->server, &ip->daddr, 4);
		__builtin_memcpy(client_is_dst ? k->server : k->client, &ip->saddr, 4);
		l4 = (__u8 *)ip + ip->ihl * 4;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			return -1;
		k->proto = ip6->nexthdr; /* extension headers: treated as non-TCP/UDP */
		k->family = 6;
		__builtin_memcpy(client_is_dst ? k->client : k->server, &ip6->daddr, 16);
		__builtin_memcpy(client_is_dst ? k->server : k->client, &ip6->saddr, 16);
		l4 = (__u8 *)(ip6 + 1);
	} else {
		return -1;
	}
	if (k->proto != IPPROTO_TCP && k->proto != IPPROTO_UDP)
		return -1;
	if (l4 + 4 > (__u8 *)end)
		return -1;
	__u16 sport = ((__u16)l4[0] << 8) | l4[1];
	__u16 dport = ((__u16)l4[2] << 8) | l4[3];
	k->client_port = client_is_dst ? dport : sport;
	k->server_port = client_is_dst ? sport : dport;
	return 0;
}

static __always_inline int pick_class(struct __sk_buff *skb, int client_is_dst)
{
	struct flow_key k = {};
	__u32 zero = 0, one = 1, two = 2;
	__u32 *slots = bpf_map_lookup_elem(&ccb_state, &one);
	__u32 *next = bpf_map_lookup_elem(&ccb_state, &zero);
	__u32 *generation = bpf_map_lookup_elem(&ccb_state, &two);

	if (!slots || !next || !generation)
		return TC_ACT_OK; /* unreachable: array maps always have their slots */
	if (parse(skb, &k, client_is_dst) < 0) {
		skb->tc_classid = DEFAULT_CLASS;
		return TC_ACT_OK;
	}
	if (*slots == 0) {
		skb->tc_classid = SHARED_CLASS;
		return TC_ACT_OK;
	}
	__u32 gen = *generation & 0xffff;
	__u32 *v = bpf_map_lookup_elem(&ccb_flows, &k);
	if (v && (*v >> 16) == gen) {
		skb->tc_classid = *v & 0xffff;
		return TC_ACT_OK;
	}
	/* A new flow, or one last seen in an earlier probe: the next class in turn. */
	__u32 n = __sync_fetch_and_add(next, 1);
	__u32 c = FIRST_CLASS + (n % *slots);
	__u32 nv = gen << 16 | c;
	/* Two CPUs may race on a new flow's first packets: the loser adopts the winner's class
	 * (over an earlier generation's entry both writes land; a packet or two may differ). */
	if (bpf_map_update_elem(&ccb_flows, &k, &nv, v ? BPF_ANY : BPF_NOEXIST) != 0) {
		v = bpf_map_lookup_elem(&ccb_flows, &k);
		if (v)
			c = *v & 0xffff;
	}
	skb->tc_classid = c;
	return TC_ACT_OK;
}

SEC("classifier/to_client")
int to_client(struct __sk_buff *skb) { return pick_class(skb, 1); }

SEC("classifier/to_server")
int to_server(struct __sk_buff *skb) { return pick_class(skb, 0); }

char LICENSE[] SEC("license") = "GPL";
