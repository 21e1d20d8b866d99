// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_scalable: Scalable TCP as a BPF struct_ops congestion controller.
 *
 * T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area Networks",
 * ACM CCR 33(2), 2003: per ACK cwnd += a (a = 0.01) and on loss cwnd -= b * cwnd
 * (b = 0.125), so growth is multiplicative (~1% per RTT) and the recovery time after a
 * loss does not depend on the window. Linux (net/ipv4/tcp_scalable.c) counts segments
 * acked: +1 per min(cwnd, 100) segments (TCP_SCALABLE_AI_CNT = 100: Reno-like below
 * 100 packets) and ssthresh = cwnd - cwnd >> 3 (TCP_SCALABLE_MD_SCALE = 3).
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define SCALABLE_AI_CNT 100U
#define SCALABLE_MD_SCALE 3

/* Back off by 1/8 only. */
static __always_inline __u32 scalable_ssthresh_of(__u32 cwnd)
{
	return ccb_max(cwnd - (cwnd >> SCALABLE_MD_SCALE), 2U);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void scalable_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, scalable_ssthresh_of(ccb_prior_cwnd(tp)));
}

SEC("struct_ops/scalable_pkts_acked")
void BPF_PROG(scalable_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	scalable_guard(tcp_sk(sk));
}

SEC("struct_ops/scalable_cong_avoid")
void BPF_PROG(scalable_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	scalable_guard(tp);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* +1 per min(cwnd, 100) segments acked: 1% per RTT once cwnd >= 100. */
	tcp_cong_avoid_ai(tp, ccb_min(tp->snd_cwnd, SCALABLE_AI_CNT), acked);
}

SEC("struct_ops/scalable_ssthresh")
__u32 BPF_PROG(scalable_ssthresh, struct sock *sk)
{
	return scalable_ssthresh_of(tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/scalable_undo_cwnd")
__u32 BPF_PROG(scalable_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_scalable = {
	.ssthresh = (void *)scalable_ssthresh,
	.undo_cwnd = (void *)scalable_undo_cwnd,
	.cong_avoid = (void *)scalable_cong_avoid,
	.pkts_acked = (void *)scalable_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_scalable",
};
