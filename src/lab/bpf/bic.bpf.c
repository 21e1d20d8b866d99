// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_bic: BIC-TCP as a BPF struct_ops congestion controller.
 *
 * L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control (BIC) for Fast
 * Long-Distance Networks", INFOCOM 2004. After a loss at W_max, cwnd drops to
 * beta * W_max and then binary-searches towards W_max: each RTT it moves to the
 * midpoint (capped at S_max per RTT: linear when far), slowing to S_min near W_max
 * (the plateau), then probes beyond W_max slowly first and faster later ("max
 * probing"). Constants as Linux net/ipv4/tcp_bic.c: beta = 819/1024 (~0.8),
 * BICTCP_B = 4 (go 1/4 of the distance per RTT), max_increment (S_max) = 16,
 * smooth_part = 20 (S_min: +1 per 5 RTTs near W_max), low_window = 14 (Reno below),
 * fast convergence on (W_max = 0.9 cwnd if the loss came before reaching W_max),
 * no initial ssthresh, delayed-ACK ratio compensation (ACK_RATIO_SHIFT = 4).
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define BICTCP_BETA_SCALE 1024
#define BICTCP_B 4
#define BIC_FAST_CONVERGENCE 1
#define BIC_MAX_INCREMENT 16
#define BIC_LOW_WINDOW 14
#define BIC_BETA 819
#define BIC_SMOOTH_PART 20
#define ACK_RATIO_SHIFT 4
/* Linux recomputes at most every HZ/32 jiffies when cwnd is unchanged: 31.25 ms. */
#define BIC_UPDATE_US (USEC_PER_SEC / 32)

struct bic_priv {
	__u32 cnt;		/* increase cwnd by 1 after this many ACKs */
	__u32 last_max_cwnd;	/* W_max */
	__u32 last_cwnd;
	__u32 last_time;	/* us (truncated) of the last cnt update */
	__u32 epoch_start;	/* us (truncated); 0 = no epoch */
	__u32 delayed_ack;	/* packets per ACK << ACK_RATIO_SHIFT */
};

_Static_assert(sizeof(struct bic_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline void bictcp_reset(struct bic_priv *ca)
{
	ca->cnt = 0;
	ca->last_max_cwnd = 0;
	ca->last_cwnd = 0;
	ca->last_time = 0;
	ca->epoch_start = 0;
	ca->delayed_ack = 2 << ACK_RATIO_SHIFT;
}

SEC("struct_ops/bic_init")
void BPF_PROG(bic_init, struct sock *sk)
{
	bictcp_reset(inet_csk_ca(sk));
}

static __always_inline void bictcp_update(struct bic_priv *ca, __u32 cwnd)
{
	__u32 now = (__u32)now_us();

	if (ca->last_cwnd == cwnd && (__s32)(now - ca->last_time) <= (__s32)BIC_UPDATE_US)
		return;
	ca->last_cwnd = cwnd;
	ca->last_time = now;
	if (ca->epoch_start == 0)
		ca->epoch_start = now;

	/* Small windows: behave like Reno. */
	if (cwnd <= BIC_LOW_WINDOW) {
		ca->cnt = cwnd;
		return;
	}

	if (cwnd < ca->last_max_cwnd) {
		/* Binary search increase towards W_max. */
		__u32 dist = (ca->last_max_cwnd - cwnd) / BICTCP_B;

		if (dist > BIC_MAX_INCREMENT)
			ca->cnt = cwnd / BIC_MAX_INCREMENT;		/* linear: S_max per RTT */
		else if (dist <= 1U)
			ca->cnt = (cwnd * BIC_SMOOTH_PART) / BICTCP_B;	/* plateau: S_min */
		else
			ca->cnt = cwnd / dist;				/* midpoint */
	} else {
		/* Max probing beyond W_max: slow first, then faster. */
		if (cwnd < ca->last_max_cwnd + BICTCP_B)
			ca->cnt = (cwnd * BIC_SMOOTH_PART) / BICTCP_B;
		else if (cwnd < ca->last_max_cwnd + BIC_MAX_INCREMENT * (BICTCP_B - 1))
			ca->cnt = (cwnd * (BICTCP_B - 1)) / (cwnd - ca->last_max_cwnd);
		else
			ca->cnt = cwnd / BIC_MAX_INCREMENT;
	}

	/* No loss yet (or very low utilisation): at least 5% per RTT. */
	if (ca->last_max_cwnd == 0 && ca->cnt > 20)
		ca->cnt = 20;

	/* Compensate for delayed ACKs: cnt counts ACKs, not packets. */
	ca->cnt = (ca->cnt << ACK_RATIO_SHIFT) / ca->delayed_ack;
	if (ca->cnt == 0)
		ca->cnt = 1;
}

/* On loss: remember W_max and back off to beta * cwnd. */
static __always_inline __u32 bic_ssthresh_of(struct bic_priv *ca, __u32 cwnd)
{
	ca->epoch_start = 0;	/* end of epoch */

	/* W_max, with fast convergence: a flow that lost before reaching its previous
	 * W_max releases bandwidth by aiming lower, (1 + beta) / 2 of cwnd. */
	if (cwnd < ca->last_max_cwnd && BIC_FAST_CONVERGENCE)
		ca->last_max_cwnd = (cwnd * (BICTCP_BETA_SCALE + BIC_BETA)) / (2 * BICTCP_BETA_SCALE);
	else
		ca->last_max_cwnd = cwnd;

	if (cwnd <= BIC_LOW_WINDOW)
		return ccb_max(cwnd >> 1U, 2U);
	return ccb_max((cwnd * BIC_BETA) / BICTCP_BETA_SCALE, 2U);
}

SEC("struct_ops/bic_ssthresh")
__u32 BPF_PROG(bic_ssthresh, struct sock *sk)
{
	return bic_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h): do what the skipped
 * ssthresh op would have done, from the window before the reduction. */
static __always_inline void bic_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, bic_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

SEC("struct_ops/bic_cong_avoid")
void BPF_PROG(bic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bic_priv *ca = inet_csk_ca(sk);

	bic_guard(sk);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
	} else {
		bictcp_update(ca, tp->snd_cwnd);
		tcp_cong_avoid_ai(tp, ca->cnt, 1);
	}
}

SEC("struct_ops/bic_undo_cwnd")
__u32 BPF_PROG(bic_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops/bic_set_state")
void BPF_PROG(bic_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Loss)
		bictcp_reset(inet_csk_ca(sk));
}

/* Track packets per ACK with an EWMA: ratio = 15/16 ratio + 1/16 sample. */
SEC("struct_ops/bic_pkts_acked")
void BPF_PROG(bic_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	bic_guard(sk);
	if (ca_state(sk) == TCP_CA_Open) {
		struct bic_priv *ca = inet_csk_ca(sk);

		ca->delayed_ack += sample->pkts_acked - (ca->delayed_ack >> ACK_RATIO_SHIFT);
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_bic = {
	.init = (void *)bic_init,
	.ssthresh = (void *)bic_ssthresh,
	.cong_avoid = (void *)bic_cong_avoid,
	.set_state = (void *)bic_set_state,
	.undo_cwnd = (void *)bic_undo_cwnd,
	.pkts_acked = (void *)bic_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_bic",
};
