// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_dctcp: DCTCP as a BPF struct_ops congestion controller, served WITHOUT ECN (an
 * open-set stranger: no class is trained on it).
 *
 * S. Bensley et al., RFC 8257 (2017), section 3.3-3.5: the sender keeps alpha, an EWMA
 * (g = 1/16, alpha starting at 1) of the fraction of bytes acknowledged with ECN-Echo
 * per window of data, and on ECN-Echo reduces cwnd once per window to cwnd (1 - alpha/2);
 * on loss it responds as Reno (halves); growth is Reno's. Constants as Linux
 * net/ipv4/tcp_dctcp.c (alpha in 1/1024, g = 2^-4, alpha initially 1024).
 * The lab's paths never mark CE and its clients do not negotiate ECN, so alpha only
 * decays and every reduction is a loss halving: "DCTCP without ECN" behaves as NewReno,
 * as Linux's DCTCP does when ECN is not negotiated (it falls back to Reno). The
 * receiver-side CE-state tracking of Linux (delayed ACK precision) is not needed for a
 * sender and is not implemented.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define DCTCP_MAX_ALPHA 1024U
#define DCTCP_SHIFT_G 4	/* g = 1/16 */

struct dctcp_priv {
	__u32 next_seq;		/* end of the current observation window */
	__u32 alpha;		/* 1/1024 */
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 loss_cwnd;
};

_Static_assert(sizeof(struct dctcp_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline void dctcp_reset_window(const struct tcp_sock *tp, struct dctcp_priv *d)
{
	d->next_seq = tp->snd_nxt;
	d->old_delivered = tp->delivered;
	d->old_delivered_ce = tp->delivered_ce;
}

SEC("struct_ops/dctcp_init")
void BPF_PROG(dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);

	d->alpha = DCTCP_MAX_ALPHA;
	d->loss_cwnd = 0;
	dctcp_reset_window(tp, d);
}

static __always_inline void dctcp_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

/* Once per window of data: alpha = (1 - g) alpha + g F, F = CE-marked fraction delivered. */
SEC("struct_ops/dctcp_in_ack_event")
void BPF_PROG(dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);
	__u32 delivered, delivered_ce, alpha, decay;

	if (before(tp->snd_una, d->next_seq))
		return;
	delivered = tp->delivered - d->old_delivered;
	delivered_ce = tp->delivered_ce - d->old_delivered_ce;
	alpha = d->alpha;
	decay = alpha >> DCTCP_SHIFT_G;
	alpha -= decay ? decay : alpha;	/* without a mark, a small alpha reaches 0 */
	if (delivered_ce) {
		delivered_ce = (delivered_ce << (10 - DCTCP_SHIFT_G)) / ccb_max(delivered, 1U);
		alpha = ccb_min(alpha + delivered_ce, DCTCP_MAX_ALPHA);
	}
	d->alpha = alpha;
	dctcp_reset_window(tp, d);
}

/* Called for ECN-Echo (CWR) and, before set_state overrides it, for loss. */
SEC("struct_ops/dctcp_ssthresh")
__u32 BPF_PROG(dctcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);
	__u32 cwnd = tp->snd_cwnd;

	d->loss_cwnd = cwnd;
	return ccb_max(cwnd - (__u32)(((__u64)cwnd * d->alpha) >> 11), 2U);
}

/* Loss: react as Reno, halving (RFC 8257 section 3.5). */
SEC("struct_ops/dctcp_set_state")
void BPF_PROG(dctcp_set_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);

	if (new_state == TCP_CA_Recovery && new_state != ca_state(sk)) {
		d->loss_cwnd = tp->snd_cwnd;
		tp->snd_ssthresh = ccb_max(tp->snd_cwnd >> 1, 2U);
	}
}

SEC("struct_ops/dctcp_cwnd_event")
void BPF_PROG(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		/* Timeout: one loss reaction, as Reno. */
		d->loss_cwnd = tp->snd_cwnd;
		tp->snd_ssthresh = ccb_max(tp->snd_cwnd >> 1, 2U);
	}
}

SEC("struct_ops/dctcp_cong_avoid")
void BPF_PROG(dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	dctcp_guard(tcp_sk(sk));
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/dctcp_pkts_acked")
void BPF_PROG(dctcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	dctcp_guard(tcp_sk(sk));
}

SEC("struct_ops/dctcp_undo_cwnd")
__u32 BPF_PROG(dctcp_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_priv *d = inet_csk_ca(sk);

	return ccb_max(tp->snd_cwnd, d->loss_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_dctcp = {
	.init = (void *)dctcp_init,
	.ssthresh = (void *)dctcp_ssthresh,
	.undo_cwnd = (void *)dctcp_undo_cwnd,
	.cong_avoid = (void *)dctcp_cong_avoid,
	.pkts_acked = (void *)dctcp_pkts_acked,
	.in_ack_event = (void *)dctcp_in_ack_event,
	.set_state = (void *)dctcp_set_state,
	.cwnd_event = (void *)dctcp_cwnd_event,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_dctcp",
};
