// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_illinois: TCP-Illinois as a BPF struct_ops congestion controller.
 *
 * S. Liu, T. Basar, R. Srikant, "TCP-Illinois: A Loss- and Delay-Based Congestion
 * Control Algorithm for High-Speed Networks", Performance Evaluation 65(6-7), 2008.
 * Loss decides the direction, queueing delay the amount: once per RTT, from the
 * average queueing delay da and the maximum dm seen,
 *   alpha = alpha_max (10) while da <= d1 = dm/100 (after theta = 5 such RTTs once
 *           delay has risen), else k1 / (k2 + da), falling to alpha_min (0.3) at dm;
 *   beta  = 1/8 while da <= d2 = dm/10, 1/2 when da >= d3 = 8dm/10, linear between.
 * cwnd += alpha/cwnd per ACK (concave growth), ssthresh = (1 - beta) cwnd on loss;
 * Reno (alpha 1, beta 1/2) below win_thresh = 15 packets. Constants and fixed-point
 * scales as Linux net/ipv4/tcp_illinois.c (alpha << 7, beta << 6, RTTs in us).
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define ALPHA_SHIFT 7
#define ALPHA_SCALE (1u << ALPHA_SHIFT)
#define ALPHA_MIN ((3 * ALPHA_SCALE) / 10)	/* ~0.3 */
#define ALPHA_MAX (10 * ALPHA_SCALE)		/* 10.0 */
#define ALPHA_BASE ALPHA_SCALE			/* 1.0 */
#define RTT_MAX (0xffffffffu / ALPHA_MAX)	/* 3.3 s: keeps dm * ALPHA_MAX in 32 bits */

#define BETA_SHIFT 6
#define BETA_SCALE (1u << BETA_SHIFT)
#define BETA_MIN (BETA_SCALE / 8)		/* 0.125 */
#define BETA_MAX (BETA_SCALE / 2)		/* 0.5 */
#define BETA_BASE BETA_MAX

#define WIN_THRESH 15	/* below: plain Reno */
#define THETA 5		/* low-delay RTTs before alpha may return to alpha_max */

struct illinois_priv {
	__u64 sum_rtt;		/* sum of RTTs (us) within the last RTT */
	__u16 cnt_rtt;		/* number of those samples */
	__u16 acked;		/* packets acked by the current ACK */
	__u32 base_rtt;		/* min RTT (us) */
	__u32 max_rtt;		/* max RTT (us) */
	__u32 end_seq;		/* right edge of the current RTT */
	__u32 alpha;		/* additive increase << ALPHA_SHIFT */
	__u32 beta;		/* multiplicative decrease << BETA_SHIFT */
	__u8 rtt_above;		/* average delay has gone above d1 */
	__u8 rtt_low;		/* consecutive RTTs below d1 */
};

_Static_assert(sizeof(struct illinois_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline void rtt_reset(struct sock *sk, struct illinois_priv *ca)
{
	ca->end_seq = tcp_sk(sk)->snd_nxt;
	ca->cnt_rtt = 0;
	ca->sum_rtt = 0;
}

SEC("struct_ops/illinois_init")
void BPF_PROG(illinois_init, struct sock *sk)
{
	struct illinois_priv *ca = inet_csk_ca(sk);

	ca->alpha = ALPHA_MAX;
	ca->beta = BETA_BASE;
	ca->base_rtt = 0x7fffffff;
	ca->max_rtt = 0;
	ca->acked = 0;
	ca->rtt_low = 0;
	ca->rtt_above = 0;
	rtt_reset(sk, ca);
}

/* Multiplicative decrease: ssthresh = (1 - beta) cwnd. */
static __always_inline __u32 illinois_ssthresh_of(struct illinois_priv *ca, __u32 cwnd)
{
	return ccb_max(cwnd - ((cwnd * ca->beta) >> BETA_SHIFT), 2U);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void illinois_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, illinois_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

SEC("struct_ops/illinois_pkts_acked")
void BPF_PROG(illinois_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct illinois_priv *ca = inet_csk_ca(sk);
	__s32 rtt_us = sample->rtt_us;
	__u32 rtt;

	illinois_guard(sk);
	ca->acked = (__u16)sample->pkts_acked;
	if (rtt_us < 0)	/* no RTT sample (e.g. dup ACK) */
		return;
	rtt = (__u32)rtt_us;
	if (rtt > RTT_MAX)	/* ignore bogus values: prevents overflow in alpha */
		rtt = RTT_MAX;
	if (ca->base_rtt > rtt)
		ca->base_rtt = rtt;
	if (ca->max_rtt < rtt)
		ca->max_rtt = rtt;
	++ca->cnt_rtt;
	ca->sum_rtt += rtt;
}

/* alpha(da, dm): convex in delay (paper eq. for k1, k2). */
static __always_inline __u32 illinois_alpha(struct illinois_priv *ca, __u32 da, __u32 dm)
{
	__u32 d1 = dm / 100;	/* low threshold */

	if (da <= d1) {
		if (!ca->rtt_above)	/* never left the low-delay zone */
			return ALPHA_MAX;
		/* Wait theta good RTTs before jumping back to alpha_max. */
		if (++ca->rtt_low < THETA)
			return ca->alpha;
		ca->rtt_low = 0;
		ca->rtt_above = 0;
		return ALPHA_MAX;
	}
	ca->rtt_above = 1;

	/* alpha = k1 / (k2 + da), k1 = (dm-d1) amin amax / (amax-amin),
	 * k2 = (dm-d1) amin / (amax-amin) - d1; rewritten with da, dm shifted by d1. */
	dm -= d1;
	da -= d1;
	return (dm * ALPHA_MAX) / (dm + (da * (ALPHA_MAX - ALPHA_MIN)) / ALPHA_MIN);
}

/* beta(da, dm): 1/8 at low delay, 1/2 at high delay, linear in between. */
static __always_inline __u32 illinois_beta(__u32 da, __u32 dm)
{
	__u32 d2 = dm / 10, d3 = (8 * dm) / 10;

	if (da <= d2)
		return BETA_MIN;
	if (da >= d3 || d3 <= d2)
		return BETA_MAX;
	return (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da) / (d3 - d2);
}

static __always_inline void update_params(struct sock *sk, struct illinois_priv *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (tp->snd_cwnd < WIN_THRESH) {
		ca->alpha = ALPHA_BASE;
		ca->beta = BETA_BASE;
	} else if (ca->cnt_rtt > 0) {
		__u32 dm = ca->max_rtt - ca->base_rtt;
		__u32 da = (__u32)(ca->sum_rtt / ca->cnt_rtt) - ca->base_rtt;

		ca->alpha = illinois_alpha(ca, da, dm);
		ca->beta = illinois_beta(da, dm);
	}
	rtt_reset(sk, ca);
}

SEC("struct_ops/illinois_set_state")
void BPF_PROG(illinois_set_state, struct sock *sk, __u8 new_state)
{
	struct illinois_priv *ca = inet_csk_ca(sk);

	/* After a timeout, start again from Reno's parameters. */
	if (new_state == TCP_CA_Loss) {
		ca->alpha = ALPHA_BASE;
		ca->beta = BETA_BASE;
		ca->rtt_low = 0;
		ca->rtt_above = 0;
		rtt_reset(sk, ca);
	}
}

SEC("struct_ops/illinois_cong_avoid")
void BPF_PROG(illinois_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct illinois_priv *ca = inet_csk_ca(sk);

	illinois_guard(sk);
	if (after(ack, ca->end_seq))
		update_params(sk, ca);

	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
	} else {
		__u32 delta;

		/* snd_cwnd_cnt counts packets since the last increment. */
		tp->snd_cwnd_cnt += ca->acked;
		ca->acked = 1;
		/* cwnd += alpha / cwnd per packet. */
		delta = (tp->snd_cwnd_cnt * ca->alpha) >> ALPHA_SHIFT;
		if (delta >= tp->snd_cwnd) {
			tp->snd_cwnd = ccb_min(tp->snd_cwnd + delta / tp->snd_cwnd, tp->snd_cwnd_clamp);
			tp->snd_cwnd_cnt = 0;
		}
	}
}

SEC("struct_ops/illinois_ssthresh")
__u32 BPF_PROG(illinois_ssthresh, struct sock *sk)
{
	return illinois_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/illinois_undo_cwnd")
__u32 BPF_PROG(illinois_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_illinois = {
	.init = (void *)illinois_init,
	.ssthresh = (void *)illinois_ssthresh,
	.undo_cwnd = (void *)illinois_undo_cwnd,
	.cong_avoid = (void *)illinois_cong_avoid,
	.set_state = (void *)illinois_set_state,
	.pkts_acked = (void *)illinois_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_illinois",
};
