// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_hybla: TCP Hybla as a BPF struct_ops congestion controller (an open-set stranger:
 * no class is trained on it).
 *
 * C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
 * Int. J. Satellite Communications and Networking 22(5), 2004. Hybla makes a long-RTT
 * flow grow as fast, in time, as a reference flow with RTT0 = 25 ms: with
 * rho = max(RTT / RTT0, 1),
 *     slow start:  cwnd += 2^rho - 1 per ACK      (Reno: +1)
 *     avoidance:   cwnd += rho^2 / cwnd per ACK   (Reno: +1/cwnd)
 * so the increase per RTT is rho^2 times Reno's. Loss recovery is Reno's (halving).
 * Details as Linux net/ipv4/tcp_hybla.c: RTT is the smallest smoothed RTT seen; rho kept
 * with 3 fractional bits, 2^rho from a table of 2^(i/8); increments per ACK (not per
 * packet acked), fractions of a packet accumulated in 1/128ths.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define HYBLA_RTT0_US (25 * USEC_PER_MSEC)

struct hybla_priv {
	__u32 rho_8;		/* rho << 3 */
	__u32 rho2_128;		/* rho^2 << 7 */
	__u32 rho;		/* integer part */
	__u32 minrtt_us;	/* smallest smoothed RTT */
	__u32 frac_128;		/* accumulated fraction of a packet, 1/128 units */
};

_Static_assert(sizeof(struct hybla_priv) <= ICSK_CA_PRIV_SIZE, "private area");

/* 128 x 2^(i/8), i = 0..8. Nine entries, not eight: clang puts a 32-byte constant in a
 * mergeable .rodata.cst32 section that libbpf 1.1 cannot load. */
static const __u32 pow2_frac[9] = { 128, 139, 152, 165, 181, 197, 215, 234, 256 };

static __always_inline void hybla_recalc_rho(struct hybla_priv *h)
{
	h->rho_8 = ccb_max((__u32)((__u64)h->minrtt_us * 8 / HYBLA_RTT0_US), 8U);
	h->rho = h->rho_8 >> 3;
	h->rho2_128 = (h->rho_8 * h->rho_8) << 1;	/* (rho_8/8)^2 x 128 */
}

SEC("struct_ops/hybla_init")
void BPF_PROG(hybla_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hybla_priv *h = inet_csk_ca(sk);

	h->frac_128 = 0;
	h->minrtt_us = tp->srtt_us >> 3;
	if (!h->minrtt_us)
		h->minrtt_us = HYBLA_RTT0_US;
	hybla_recalc_rho(h);
	/* Start as fast as the reference flow would (Linux: cwnd = rho). */
	tp->snd_cwnd = ccb_max(tp->snd_cwnd, ccb_min(h->rho, 64U));
}

static __always_inline void hybla_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

SEC("struct_ops/hybla_cong_avoid")
void BPF_PROG(hybla_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hybla_priv *h = inet_csk_ca(sk);
	__u32 srtt = tp->srtt_us >> 3, inc_128, inc;
	__u32 shift;

	hybla_guard(tp);
	if (srtt && srtt < h->minrtt_us) {
		h->minrtt_us = srtt;
		hybla_recalc_rho(h);
	}
	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		/* 2^rho - 1 packets per ACK, in 1/128ths. */
		shift = ccb_min(h->rho, 16U);
		inc_128 = (pow2_frac[h->rho_8 & 7] << shift) - 128;
	} else {
		inc_128 = h->rho2_128 / ccb_max(tp->snd_cwnd, 1U);
	}
	inc = inc_128 >> 7;
	h->frac_128 += inc_128 & 0x7f;
	if (h->frac_128 >= 128) {
		inc++;
		h->frac_128 -= 128;
	}
	/* Slow start never jumps past ssthresh. */
	if (tcp_in_slow_start(tp) && tp->snd_cwnd + inc > tp->snd_ssthresh)
		tp->snd_cwnd = tp->snd_ssthresh;
	else
		tp->snd_cwnd += inc;
	clamp_cwnd(tp);
}

SEC("struct_ops/hybla_pkts_acked")
void BPF_PROG(hybla_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	hybla_guard(tcp_sk(sk));
}

SEC("struct_ops/hybla_ssthresh")
__u32 BPF_PROG(hybla_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/hybla_undo_cwnd")
__u32 BPF_PROG(hybla_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_hybla = {
	.init = (void *)hybla_init,
	.ssthresh = (void *)hybla_ssthresh,
	.undo_cwnd = (void *)hybla_undo_cwnd,
	.cong_avoid = (void *)hybla_cong_avoid,
	.pkts_acked = (void *)hybla_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_hybla",
};
