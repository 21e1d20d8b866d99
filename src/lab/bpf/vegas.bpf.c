// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_vegas: TCP Vegas as a BPF struct_ops congestion controller.
 *
 * Brakmo & Peterson, IEEE JSAC 13(8), 1995. Once per RTT Vegas compares the expected
 * rate (cwnd / baseRTT) with the actual one (cwnd / RTT); their difference times
 * baseRTT is the number of its own packets sitting in queues:
 *     diff = cwnd * (RTT - baseRTT) / baseRTT
 * and it keeps alpha <= diff <= beta by moving cwnd one packet per RTT. It leaves slow
 * start as soon as diff > gamma. Constants and the Linux refinements (min RTT within an
 * RTT, cwnd set to the actual rate when leaving slow start, Reno behaviour when fewer
 * than 3 RTT samples) as net/ipv4/tcp_vegas.c: alpha = 2, beta = 4, gamma = 1.
 */
#include "ccb_vegas.h"

CCB_LICENSE;

#define VEGAS_ALPHA 2	/* lower bound of own packets queued */
#define VEGAS_BETA 4	/* upper bound of own packets queued */
#define VEGAS_GAMMA 1	/* leave slow start above this many queued */

_Static_assert(sizeof(struct ccb_vegas_state) <= ICSK_CA_PRIV_SIZE, "private area");

SEC("struct_ops/vegas_init")
void BPF_PROG(vegas_init, struct sock *sk)
{
	ccb_vegas_init(sk, inet_csk_ca(sk));
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h); Vegas backs off like Reno. */
static __always_inline void vegas_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

SEC("struct_ops/vegas_pkts_acked")
void BPF_PROG(vegas_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	vegas_guard(tcp_sk(sk));
	ccb_vegas_sample(inet_csk_ca(sk), sample);
}

SEC("struct_ops/vegas_set_state")
void BPF_PROG(vegas_set_state, struct sock *sk, __u8 new_state)
{
	ccb_vegas_set_state(sk, inet_csk_ca(sk), new_state);
}

SEC("struct_ops/vegas_cwnd_event")
void BPF_PROG(vegas_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	ccb_vegas_cwnd_event(sk, inet_csk_ca(sk), ev);
}

SEC("struct_ops/vegas_cong_avoid")
void BPF_PROG(vegas_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccb_vegas_state *v = inet_csk_ca(sk);

	vegas_guard(tp);
	if (!v->doing_vegas_now) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}

	if (after(ack, v->beg_snd_nxt)) {
		/* One RTT has passed: decide once per RTT. */
		v->beg_snd_nxt = tp->snd_nxt;

		/* With <= 2 samples this RTT they are probably delayed ACKs: act like Reno. */
		if (v->cntRTT <= 2) {
			tcp_reno_cong_avoid(sk, ack, acked);
		} else {
			__u32 rtt = v->minRTT;
			__u32 base = v->baseRTT;
			__u32 cwnd = tp->snd_cwnd;
			__u64 target_cwnd = (__u64)cwnd * base / rtt;	/* actual rate x baseRTT */
			__u32 diff = cwnd * (rtt - base) / base;	/* own packets queued */

			if (diff > VEGAS_GAMMA && tcp_in_slow_start(tp)) {
				/* Going too fast: match the actual rate and leave slow start. */
				tp->snd_cwnd = ccb_min(cwnd, (__u32)target_cwnd + 1);
				tp->snd_ssthresh = ccb_min(tp->snd_ssthresh, tp->snd_cwnd);
			} else if (tcp_in_slow_start(tp)) {
				tcp_slow_start(tp, acked);
			} else if (diff > VEGAS_BETA) {
				tp->snd_cwnd = cwnd - 1;
				tp->snd_ssthresh = ccb_min(tp->snd_ssthresh, tp->snd_cwnd);
			} else if (diff < VEGAS_ALPHA) {
				tp->snd_cwnd = cwnd + 1;
			}
			clamp_cwnd(tp);
			tp->snd_ssthresh = tcp_current_ssthresh(sk);
		}
		v->cntRTT = 0;
		v->minRTT = 0x7fffffff;
	} else if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
	}
}

SEC("struct_ops/vegas_ssthresh")
__u32 BPF_PROG(vegas_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/vegas_undo_cwnd")
__u32 BPF_PROG(vegas_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_vegas = {
	.init = (void *)vegas_init,
	.ssthresh = (void *)vegas_ssthresh,
	.undo_cwnd = (void *)vegas_undo_cwnd,
	.cong_avoid = (void *)vegas_cong_avoid,
	.pkts_acked = (void *)vegas_pkts_acked,
	.set_state = (void *)vegas_set_state,
	.cwnd_event = (void *)vegas_cwnd_event,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_vegas",
};
