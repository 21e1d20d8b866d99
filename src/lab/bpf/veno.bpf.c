// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_veno: TCP Veno as a BPF struct_ops congestion controller.
 *
 * C. P. Fu, S. C. Liew, "TCP Veno: TCP Enhancement for Transmission over Wireless
 * Access Networks", IEEE JSAC 21(2), 2003. Veno uses Vegas' estimate of its own
 * backlog N = (cwnd/baseRTT - cwnd/RTT) * baseRTT = cwnd (RTT - baseRTT) / RTT to tell
 * congestive from random loss:
 *   - N < beta (3 packets): "non-congestive": grow like Reno, and on loss cut cwnd by
 *     only 1/5 (the loss was probably random);
 *   - N >= beta: "congestive": grow by 1 every other RTT, and on loss halve.
 * Constants and fixed point (N << 1) as Linux net/ipv4/tcp_veno.c, including its
 * choice to never reset the per-connection sample count.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define V_PARAM_SHIFT 1
#define VENO_BETA (3 << V_PARAM_SHIFT)

struct veno_priv {
	__u8 doing_veno_now;	/* do Veno this RTT? */
	__u8 pad8;
	__u16 cntrtt;		/* RTT samples seen */
	__u32 minrtt;		/* us, min over the current RTT */
	__u32 basertt;		/* us, min over the connection */
	__u32 inc;		/* in the congestive state: increase on this RTT? */
	__u32 diff;		/* N << V_PARAM_SHIFT */
};

_Static_assert(sizeof(struct veno_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline void veno_enable(struct veno_priv *veno)
{
	veno->doing_veno_now = 1;
	veno->minrtt = 0x7fffffff;
}

static __always_inline void veno_init(struct veno_priv *veno)
{
	veno->basertt = 0x7fffffff;
	veno->inc = 1;
	veno_enable(veno);
}

SEC("struct_ops/veno_init")
void BPF_PROG(veno_init_op, struct sock *sk)
{
	veno_init(inet_csk_ca(sk));
}

static __always_inline __u32 veno_ssthresh_of(struct veno_priv *veno, __u32 cwnd)
{
	if (veno->diff < VENO_BETA)
		return ccb_max(cwnd * 4 / 5, 2U);	/* random loss: cut by 1/5 */
	return ccb_max(cwnd >> 1U, 2U);			/* congestive loss: halve */
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void veno_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, veno_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

SEC("struct_ops/veno_pkts_acked")
void BPF_PROG(veno_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct veno_priv *veno = inet_csk_ca(sk);
	__s32 rtt_us = sample->rtt_us;
	__u32 vrtt;

	veno_guard(sk);
	if (rtt_us < 0)
		return;
	vrtt = (__u32)rtt_us + 1;	/* never zero */
	if (vrtt < veno->basertt)
		veno->basertt = vrtt;
	if (vrtt < veno->minrtt)
		veno->minrtt = vrtt;
	veno->cntrtt++;
}

SEC("struct_ops/veno_set_state")
void BPF_PROG(veno_set_state, struct sock *sk, __u8 new_state)
{
	struct veno_priv *veno = inet_csk_ca(sk);

	if (new_state == TCP_CA_Open)
		veno_enable(veno);
	else
		veno->doing_veno_now = 0;
}

SEC("struct_ops/veno_cwnd_event")
void BPF_PROG(veno_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	/* Restart from idle: the old samples describe a stale window. */
	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_TX_START)
		veno_init(inet_csk_ca(sk));
}

SEC("struct_ops/veno_cong_avoid")
void BPF_PROG(veno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct veno_priv *veno = inet_csk_ca(sk);

	veno_guard(sk);
	if (!veno->doing_veno_now) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (!tcp_is_cwnd_limited(sk))
		return;

	if (veno->cntrtt <= 2) {
		/* Too few samples to judge: Reno. */
		tcp_reno_cong_avoid(sk, ack, acked);
	} else {
		__u32 cwnd = tp->snd_cwnd;
		__u64 target_cwnd = ((__u64)cwnd * veno->basertt << V_PARAM_SHIFT) / veno->minrtt;

		veno->diff = (cwnd << V_PARAM_SHIFT) - (__u32)target_cwnd;

		if (tcp_in_slow_start(tp)) {
			acked = tcp_slow_start(tp, acked);
			if (!acked)
				goto done;
		}
		if (veno->diff < VENO_BETA) {
			/* Non-congestive: Reno, +1 per RTT. */
			tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
		} else if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
			/* Congestive: +1 every other RTT. */
			if (veno->inc && tp->snd_cwnd < tp->snd_cwnd_clamp) {
				tp->snd_cwnd++;
				veno->inc = 0;
			} else {
				veno->inc = 1;
			}
			tp->snd_cwnd_cnt = 0;
		} else {
			tp->snd_cwnd_cnt += acked;
		}
done:
		clamp_cwnd(tp);
	}
	/* New min RTT for the next ACKs (Linux leaves cntrtt accumulating). */
	veno->minrtt = 0x7fffffff;
}

SEC("struct_ops/veno_ssthresh")
__u32 BPF_PROG(veno_ssthresh, struct sock *sk)
{
	return veno_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/veno_undo_cwnd")
__u32 BPF_PROG(veno_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_veno = {
	.init = (void *)veno_init_op,
	.ssthresh = (void *)veno_ssthresh,
	.undo_cwnd = (void *)veno_undo_cwnd,
	.cong_avoid = (void *)veno_cong_avoid,
	.pkts_acked = (void *)veno_pkts_acked,
	.set_state = (void *)veno_set_state,
	.cwnd_event = (void *)veno_cwnd_event,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_veno",
};
