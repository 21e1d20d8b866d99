// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_highspeed: HighSpeed TCP (S. Floyd, RFC 3649) as a BPF struct_ops controller.
 *
 * RFC 3649 makes the AIMD parameters functions of the window: below Low_Window = 38
 * packets a(w) = 1, b(w) = 0.5 (Reno); above, the increase a(w) grows and the decrease
 * b(w) shrinks towards 0.1 at High_Window = 83000. Linux (net/ipv4/tcp_highspeed.c)
 * uses the RFC's Appendix B table: for table row i, windows up to cwnd[i] get
 * a(w) = i + 1 packets per RTT and b(w) = md[i] / 256. The same table is used here.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define HSTCP_AIMD_MAX 72

/* RFC 3649 Appendix B: upper window of each row, and b(w) scaled by 256. */
static const __u32 hstcp_cwnd[HSTCP_AIMD_MAX] = {
	38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039,
	3399, 3778, 4177, 4596, 5036, 5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346,
	9991, 10661, 11358, 12082, 12834, 13614, 14424, 15265, 16137, 17042, 17981, 18955,
	19965, 21013, 22101, 23230, 24402, 25618, 26881, 28193, 29557, 30975, 32450,
	33986, 35586, 37253, 38992, 40808, 42707, 44694, 46776, 48961, 51258, 53677,
	56230, 58932, 61799, 64851, 68113, 71617, 75401, 79517, 84035, 89053,
};
static const __u32 hstcp_md[HSTCP_AIMD_MAX] = {
	128, 112, 104, 98, 93, 89, 86, 83, 81, 78, 76, 74, 72, 71, 69, 68, 66, 65, 64, 62,
	61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 52, 51, 50, 49, 48, 48, 47, 46, 45, 45, 44,
	43, 43, 42, 41, 41, 40, 39, 39, 38, 38, 37, 36, 36, 35, 35, 34, 33, 33, 32, 32, 31,
	30, 30, 29, 28, 28, 27, 26, 26, 25, 24,
};

struct hstcp_priv {
	__u32 ai;	/* table row: hstcp_cwnd[ai-1] < cwnd <= hstcp_cwnd[ai] */
};

_Static_assert(sizeof(struct hstcp_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline __u32 row(__u32 ai)
{
	return ai < HSTCP_AIMD_MAX ? ai : HSTCP_AIMD_MAX - 1;
}

SEC("struct_ops/hstcp_init")
void BPF_PROG(hstcp_init, struct sock *sk)
{
	struct hstcp_priv *ca = inet_csk_ca(sk);

	/* Linux also caps snd_cwnd_clamp at 2^32/128 so cwnd * md cannot overflow; that
	 * field is read-only to BPF, so the multiplication below is done in 64 bits. */
	ca->ai = 0;
}

/* Multiplicative decrease by b(w) of the current table row. */
static __always_inline __u32 hstcp_ssthresh_of(struct hstcp_priv *ca, __u32 cwnd)
{
	__u32 cut = (__u32)(((__u64)cwnd * hstcp_md[row(ca->ai)]) >> 8);

	return ccb_max(cwnd - cut, 2U);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void hstcp_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, hstcp_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

SEC("struct_ops/hstcp_pkts_acked")
void BPF_PROG(hstcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	hstcp_guard(sk);
}

SEC("struct_ops/hstcp_cong_avoid")
void BPF_PROG(hstcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hstcp_priv *ca = inet_csk_ca(sk);
	__u32 cwnd;
	__u32 ai;
	int i;

	hstcp_guard(sk);
	cwnd = tp->snd_cwnd;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
		return;
	}

	/* The table row that brackets cwnd: hstcp_cwnd[ai-1] < cwnd <= hstcp_cwnd[ai]
	 * (Linux walks there from the previous row; a scan from 0 gives the same row and
	 * keeps the index provably in bounds for the verifier). */
	for (i = 0; i < HSTCP_AIMD_MAX - 1; i++) {
		if (cwnd <= hstcp_cwnd[i])
			break;
	}
	ai = (__u32)i;
	ca->ai = ai;

	/* Additive increase: cwnd += a(w) / cwnd per segment, a(w) = ai + 1. */
	if (cwnd < tp->snd_cwnd_clamp) {
		tp->snd_cwnd_cnt += ai + 1;
		if (tp->snd_cwnd_cnt >= cwnd) {
			tp->snd_cwnd_cnt -= cwnd;
			tp->snd_cwnd = cwnd + 1;
		}
	}
}

SEC("struct_ops/hstcp_ssthresh")
__u32 BPF_PROG(hstcp_ssthresh, struct sock *sk)
{
	return hstcp_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/hstcp_undo_cwnd")
__u32 BPF_PROG(hstcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_highspeed = {
	.init = (void *)hstcp_init,
	.ssthresh = (void *)hstcp_ssthresh,
	.undo_cwnd = (void *)hstcp_undo_cwnd,
	.cong_avoid = (void *)hstcp_cong_avoid,
	.pkts_acked = (void *)hstcp_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_highspeed",
};
