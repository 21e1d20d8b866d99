// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_lp: TCP-LP (low priority) as a BPF struct_ops congestion controller (an open-set
 * stranger: no class is trained on it).
 *
 * A. Kuzmanovic, E. W. Knightly, "TCP-LP: A Distributed Algorithm for Low Priority Data
 * Transfer", IEEE INFOCOM 2003. Reno, plus an early congestion indication: when the
 * smoothed one-way delay exceeds its minimum by more than 15% of its (min, max) range,
 * LP halves cwnd at once (no loss needed) and starts an inference timeout of 3 RTTs;
 * a second indication within it sends cwnd to 1; during the timeout cwnd does not grow.
 * Constants and details as Linux net/ipv4/tcp_lp.c: threshold 15%, inference 3 x RTT,
 * smoothed delay 7/8 old + 1/8 new, after an indication min and max restart from the
 * smoothed delay (min = sowd, max = 2 sowd), ssthresh untouched by indications.
 * Differences: Linux measures the one-way delay from TCP timestamps with an estimate of
 * the receiver's clock rate; this uses the RTT sample, skips the sample of a lone
 * segment acked at a window of 1-2, and cuts to 2 packets where Linux cuts to 1 (both:
 * the receiver's delayed-ACK timer otherwise poses as queueing, see LP_MIN_CWND). On the lab's paths the ACK
 * direction never queues, so RTT - min RTT is the forward queueing delay, the signal
 * LP's threshold reads; a path congested in the ACK direction would make it back off
 * where Linux's LP would not.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define LP_THRESH_PCT 15
/* Linux and the paper go down to 1 packet. With one segment in flight every RTT sample
 * includes the receiver's delayed-ACK timer (up to 40 ms), LP reads that as queueing and
 * never leaves 1 (measured: 0.3 Mbit/s of 20 for 10 s). Two segments are acked at once. */
#define LP_MIN_CWND 2U

struct lp_priv {
	__u32 sowd_8;		/* smoothed delay << 3, us */
	__u32 owd_min;
	__u32 owd_max;
	__u32 owd_max_rsv;
	__u64 last_drop_us;	/* 0: never */
	__u32 inference_us;
	__u8 within_inf;
};

_Static_assert(sizeof(struct lp_priv) <= ICSK_CA_PRIV_SIZE, "private area");

SEC("struct_ops/lp_init")
void BPF_PROG(lp_init, struct sock *sk)
{
	struct lp_priv *lp = inet_csk_ca(sk);

	lp->sowd_8 = 0;
	lp->owd_min = 0xffffffff;
	lp->owd_max = 0;
	lp->owd_max_rsv = 0;
	lp->last_drop_us = 0;
	lp->inference_us = 0;
	lp->within_inf = 0;
}

static __always_inline void lp_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

SEC("struct_ops/lp_cong_avoid")
void BPF_PROG(lp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct lp_priv *lp = inet_csk_ca(sk);

	lp_guard(tcp_sk(sk));
	if (!lp->within_inf)
		tcp_reno_cong_avoid(sk, ack, acked);
}

static __always_inline void lp_delay_sample(struct lp_priv *lp, __u32 owd)
{
	if (owd < lp->owd_min)
		lp->owd_min = owd;
	/* The max forgets its own maximum: it keeps the one below it in reserve. */
	if (owd > lp->owd_max) {
		if (owd > lp->owd_max_rsv) {
			lp->owd_max = lp->owd_max_rsv ? lp->owd_max_rsv : owd;
			lp->owd_max_rsv = owd;
		} else {
			lp->owd_max = owd;
		}
	}
	if (lp->sowd_8) {
		if (owd > (lp->sowd_8 >> 3))
			lp->sowd_8 += owd - (lp->sowd_8 >> 3);
		else
			lp->sowd_8 -= (lp->sowd_8 >> 3) - owd;
	} else {
		lp->sowd_8 = owd << 3;
	}
}

SEC("struct_ops/lp_pkts_acked")
void BPF_PROG(lp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct lp_priv *lp = inet_csk_ca(sk);
	__u64 now = now_us();
	__u32 sowd;

	lp_guard(tp);
	if (sample->rtt_us <= 0)
		return;
	/* A lone segment waits for the receiver's delayed-ACK timer (up to 40 ms): its RTT is
	 * no queueing signal. Counting it, LP cut to cwnd 1 and stayed there (measured). */
	lp->inference_us = 3 * (tp->srtt_us >> 3);
	lp->within_inf = lp->last_drop_us && now - lp->last_drop_us < lp->inference_us;
	if (sample->pkts_acked == 1 && tp->snd_cwnd <= 2)
		return;
	lp_delay_sample(lp, (__u32)sample->rtt_us);

	sowd = lp->sowd_8 >> 3;
	if (lp->owd_max <= lp->owd_min ||
	    sowd < lp->owd_min + (lp->owd_max - lp->owd_min) * LP_THRESH_PCT / 100)
		return;	/* within the threshold */

	/* Early congestion indication. Restart the range from here. */
	lp->owd_min = sowd;
	lp->owd_max = sowd << 1;
	lp->owd_max_rsv = sowd << 1;
	if (lp->within_inf)
		tp->snd_cwnd = LP_MIN_CWND;
	else
		tp->snd_cwnd = ccb_max(tp->snd_cwnd >> 1, LP_MIN_CWND);
	lp->last_drop_us = now;
}

SEC("struct_ops/lp_ssthresh")
__u32 BPF_PROG(lp_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/lp_undo_cwnd")
__u32 BPF_PROG(lp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_lp = {
	.init = (void *)lp_init,
	.ssthresh = (void *)lp_ssthresh,
	.undo_cwnd = (void *)lp_undo_cwnd,
	.cong_avoid = (void *)lp_cong_avoid,
	.pkts_acked = (void *)lp_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_lp",
};
