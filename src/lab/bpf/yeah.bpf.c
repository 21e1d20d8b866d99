// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_yeah: YeAH-TCP as a BPF struct_ops congestion controller.
 *
 * A. Baiocchi, A. P. Castellani, F. Vacirca, "YeAH-TCP: Yet Another Highspeed TCP",
 * PFLDnet 2007. Two modes chosen once per RTT from a Vegas-style backlog estimate
 * Q = cwnd (RTT - baseRTT) / RTT and the queueing delay:
 *   - Fast mode (Q < alpha = 80 packets and RTT - baseRTT < baseRTT / phy, phy = 8):
 *     Scalable increase (+1 per min(cwnd, 100) acked);
 *   - Slow mode otherwise: Reno increase, plus "precautionary decongestion": when
 *     Q > alpha, cwnd -= min(Q / gamma, cwnd >> epsilon) (gamma = 1, epsilon = 1),
 *     never below reno_count, and ssthresh = cwnd - a drop without a loss.
 * On loss, if the flow has not been competing with Reno flows (fewer than rho = 16
 * consecutive slow RTTs) cwnd drops by max(Q, cwnd >> delta), delta = 3, capped at
 * cwnd/2; else it halves. reno_count tracks a Reno-friendly window; zeta = 50 fast RTTs
 * reset it. Constants as Linux net/ipv4/tcp_yeah.c.
 */
#include "ccb_vegas.h"

CCB_LICENSE;

#define YEAH_ALPHA 80	/* packets queued at the bottleneck */
#define YEAH_GAMMA 1	/* fraction of queue removed per RTT */
#define YEAH_DELTA 3	/* log2 of the minimum fraction of cwnd removed on loss */
#define YEAH_EPSILON 1	/* log2 of the maximum fraction removed by decongestion */
#define YEAH_PHY 8	/* max queueing delay as a fraction of baseRTT (1/8) */
#define YEAH_RHO 16	/* slow RTTs before a loss counts as competition */
#define YEAH_ZETA 50	/* fast RTTs before reno_count resets */
#define SCALABLE_AI_CNT 100U

struct yeah_priv {
	struct ccb_vegas_state vegas;	/* must be first */
	__u32 lastQ;
	__u32 doing_reno_now;	/* consecutive slow-mode RTTs */
	__u32 reno_count;
	__u32 fast_count;
};

_Static_assert(sizeof(struct yeah_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline __u32 yeah_ssthresh_of(struct yeah_priv *yeah, __u32 cwnd)
{
	__u32 reduction;

	if (yeah->doing_reno_now < YEAH_RHO) {
		/* Not competing with Reno: remove the estimated queue (>= 1/8, <= 1/2). */
		reduction = ccb_min(yeah->lastQ, ccb_max(cwnd >> 1, 2U));
		reduction = ccb_max(reduction, cwnd >> YEAH_DELTA);
	} else {
		reduction = ccb_max(cwnd >> 1, 2U);
	}
	yeah->fast_count = 0;
	yeah->reno_count = ccb_max(yeah->reno_count >> 1, 2U);
	return ccb_max(cwnd - reduction, 2U);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void yeah_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, yeah_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

SEC("struct_ops/yeah_init")
void BPF_PROG(yeah_init, struct sock *sk)
{
	struct yeah_priv *yeah = inet_csk_ca(sk);

	ccb_vegas_init(sk, &yeah->vegas);
	yeah->doing_reno_now = 0;
	yeah->lastQ = 0;
	yeah->reno_count = 2;
	yeah->fast_count = 0;
}

SEC("struct_ops/yeah_pkts_acked")
void BPF_PROG(yeah_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct yeah_priv *yeah = inet_csk_ca(sk);

	yeah_guard(sk);
	ccb_vegas_sample(&yeah->vegas, sample);
}

SEC("struct_ops/yeah_set_state")
void BPF_PROG(yeah_set_state, struct sock *sk, __u8 new_state)
{
	struct yeah_priv *yeah = inet_csk_ca(sk);

	ccb_vegas_set_state(sk, &yeah->vegas, new_state);
}

SEC("struct_ops/yeah_cwnd_event")
void BPF_PROG(yeah_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct yeah_priv *yeah = inet_csk_ca(sk);

	ccb_vegas_cwnd_event(sk, &yeah->vegas, ev);
}

SEC("struct_ops/yeah_cong_avoid")
void BPF_PROG(yeah_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct yeah_priv *yeah = inet_csk_ca(sk);

	yeah_guard(sk);
	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			goto do_vegas;
	}
	if (!yeah->doing_reno_now)
		tcp_cong_avoid_ai(tp, ccb_min(tp->snd_cwnd, SCALABLE_AI_CNT), acked);	/* Fast: Scalable */
	else
		tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);				/* Slow: Reno */

do_vegas:
	if (after(ack, yeah->vegas.beg_snd_nxt)) {
		/* Once per RTT, with >= 3 samples (fewer are probably delayed ACKs). */
		if (yeah->vegas.cntRTT > 2) {
			__u32 rtt = yeah->vegas.minRTT;
			__u32 base = yeah->vegas.baseRTT;
			__u32 queue = (__u32)((__u64)tp->snd_cwnd * (rtt - base) / rtt);

			if (queue > YEAH_ALPHA || rtt - base > base / YEAH_PHY) {
				/* Slow mode. */
				if (queue > YEAH_ALPHA && tp->snd_cwnd > yeah->reno_count) {
					/* Precautionary decongestion: drain the excess queue. */
					__u32 reduction = ccb_min(queue / YEAH_GAMMA, tp->snd_cwnd >> YEAH_EPSILON);

					tp->snd_cwnd -= reduction;
					tp->snd_cwnd = ccb_max(tp->snd_cwnd, yeah->reno_count);
					tp->snd_ssthresh = tp->snd_cwnd;
				}
				if (yeah->reno_count <= 2)
					yeah->reno_count = ccb_max(tp->snd_cwnd >> 1, 2U);
				else
					yeah->reno_count++;
				yeah->doing_reno_now = ccb_min(yeah->doing_reno_now + 1, 0xffffffU);
			} else {
				/* Fast mode. */
				yeah->fast_count++;
				if (yeah->fast_count > YEAH_ZETA) {
					yeah->reno_count = 2;
					yeah->fast_count = 0;
				}
				yeah->doing_reno_now = 0;
			}
			yeah->lastQ = queue;
		}
		/* Next RTT's window. */
		yeah->vegas.beg_snd_una = yeah->vegas.beg_snd_nxt;
		yeah->vegas.beg_snd_nxt = tp->snd_nxt;
		yeah->vegas.beg_snd_cwnd = tp->snd_cwnd;
		yeah->vegas.cntRTT = 0;
		yeah->vegas.minRTT = 0x7fffffff;
	}
}

SEC("struct_ops/yeah_ssthresh")
__u32 BPF_PROG(yeah_ssthresh, struct sock *sk)
{
	return yeah_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/yeah_undo_cwnd")
__u32 BPF_PROG(yeah_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_yeah = {
	.init = (void *)yeah_init,
	.ssthresh = (void *)yeah_ssthresh,
	.undo_cwnd = (void *)yeah_undo_cwnd,
	.cong_avoid = (void *)yeah_cong_avoid,
	.set_state = (void *)yeah_set_state,
	.cwnd_event = (void *)yeah_cwnd_event,
	.pkts_acked = (void *)yeah_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_yeah",
};
