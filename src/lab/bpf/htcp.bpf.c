// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_htcp: H-TCP as a BPF struct_ops congestion controller.
 *
 * D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance networks",
 * PFLDnet 2004 (and draft-leith-tcp-htcp-06). The additive increase depends on the
 * time Delta since the last back-off: for Delta <= Delta_L = 1 s it is Reno's; after,
 *     alpha(Delta) = 1 + 10 (Delta - Delta_L) + ((Delta - Delta_L) / 2)^2
 * scaled by 2 (1 - beta) to stay fair, and (RTT scaling) by minRTT / 100 ms clamped to
 * [0.5, 10]-> the increase per unit time does not depend on the RTT. Back-off:
 * beta = minRTT / maxRTT clamped to [0.5, 0.8] (adaptive back-off), forced to 0.5
 * when the achieved throughput changed by more than 20% between back-offs (bandwidth
 * switch) or minRTT <= 10 ms. Constants and fixed point (alpha, beta << 7) as Linux
 * net/ipv4/tcp_htcp.c with use_rtt_scaling = use_bandwidth_switch = 1. Difference:
 * the kernel counts time in jiffies (4 ms at HZ=250); here "jiffies" are milliseconds
 * (HZ = 1000), read from the monotonic clock TCP uses.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define HTCP_HZ 1000U		/* time unit: ms */
#define ALPHA_BASE (1 << 7)	/* 1.0 << 7 */
#define BETA_MIN (1 << 6)	/* 0.5 << 7 */
#define BETA_MAX 102		/* 0.8 << 7 */
#define USE_RTT_SCALING 1
#define USE_BANDWIDTH_SWITCH 1

struct htcp_priv {
	__u32 alpha;		/* << 7 */
	__u8 beta;		/* << 7 */
	__u8 modeswitch;	/* delay the adaptive beta until one congestion event */
	__u16 pkts_acked;
	__u32 packetcount;
	__u32 minRTT;		/* ms */
	__u32 maxRTT;		/* ms */
	__u32 last_cong;	/* ms: end of the last congestion event */
	__u32 undo_last_cong;
	__u32 undo_maxRTT;
	__u32 undo_old_maxB;
	/* Bandwidth estimation (packets per second). */
	__u32 minB;
	__u32 maxB;
	__u32 old_maxB;
	__u32 Bi;
	__u32 lasttime;
};

_Static_assert(sizeof(struct htcp_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline __u32 htcp_now(void)
{
	return (__u32)(now_us() / USEC_PER_MSEC);
}

static __always_inline __u32 htcp_cong_time(const struct htcp_priv *ca, __u32 now)
{
	return now - ca->last_cong;
}

static __always_inline __u32 htcp_ccount(const struct htcp_priv *ca, __u32 now)
{
	return ca->minRTT ? htcp_cong_time(ca, now) / ca->minRTT : 0;
}

static __always_inline void htcp_reset(struct htcp_priv *ca, __u32 now)
{
	ca->undo_last_cong = ca->last_cong;
	ca->undo_maxRTT = ca->maxRTT;
	ca->undo_old_maxB = ca->old_maxB;
	ca->last_cong = now;
}

SEC("struct_ops/htcp_undo_cwnd")
__u32 BPF_PROG(htcp_undo_cwnd, struct sock *sk)
{
	struct htcp_priv *ca = inet_csk_ca(sk);

	if (ca->undo_last_cong) {
		ca->last_cong = ca->undo_last_cong;
		ca->maxRTT = ca->undo_maxRTT;
		ca->old_maxB = ca->undo_old_maxB;
		ca->undo_last_cong = 0;
	}
	return tcp_reno_undo_cwnd(sk);
}

static __always_inline void htcp_beta_update(struct htcp_priv *ca, __u32 minRTT, __u32 maxRTT)
{
	if (USE_BANDWIDTH_SWITCH) {
		__u32 maxB = ca->maxB;
		__u32 old_maxB = ca->old_maxB;

		ca->old_maxB = ca->maxB;
		/* Throughput moved by more than ~20%: the path changed, back off by 0.5. */
		if (!(5 * maxB >= 4 * old_maxB && 5 * maxB <= 6 * old_maxB)) {
			ca->beta = BETA_MIN;
			ca->modeswitch = 0;
			return;
		}
	}
	if (ca->modeswitch && minRTT > 10 && maxRTT) {
		__u32 beta = (minRTT << 7) / maxRTT;

		ca->beta = beta < BETA_MIN ? BETA_MIN : beta > BETA_MAX ? BETA_MAX : beta;
	} else {
		ca->beta = BETA_MIN;
		ca->modeswitch = 1;
	}
}

static __always_inline void htcp_alpha_update(struct htcp_priv *ca, __u32 now)
{
	__u32 minRTT = ca->minRTT;
	__u32 factor = 1;
	__u32 diff = htcp_cong_time(ca, now);

	if (diff > HTCP_HZ) {
		__u64 d = diff - HTCP_HZ;

		/* 1 + 10 (Delta - 1 s) + ((Delta - 1 s) / 2)^2, Delta in seconds. */
		factor = 1 + (__u32)((10 * d + ((d / 2) * (d / 2) / HTCP_HZ)) / HTCP_HZ);
	}
	if (USE_RTT_SCALING && minRTT) {
		__u32 scale = (HTCP_HZ << 3) / (10 * minRTT);

		/* ratio 100 ms / minRTT, clamped to [0.5, 10], << 3 */
		scale = scale < (1U << 2) ? (1U << 2) : scale > (10U << 3) ? (10U << 3) : scale;
		factor = (factor << 3) / scale;
		if (!factor)
			factor = 1;
	}
	ca->alpha = 2 * factor * ((1 << 7) - ca->beta);
	if (!ca->alpha)
		ca->alpha = ALPHA_BASE;
}

/* Parameters are updated at the congestion event, when maxRTT is meaningful. */
static __always_inline __u32 htcp_ssthresh_of(struct htcp_priv *ca, __u32 cwnd)
{
	__u32 minRTT = ca->minRTT, maxRTT = ca->maxRTT;

	htcp_beta_update(ca, minRTT, maxRTT);
	htcp_alpha_update(ca, htcp_now());
	/* Slowly fading memory of maxRTT, for route changes. */
	if (minRTT > 0 && maxRTT > minRTT)
		ca->maxRTT = minRTT + ((maxRTT - minRTT) * 95) / 100;
	return ccb_max((cwnd * ca->beta) >> 7, 2U);
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h). */
static __always_inline void htcp_guard(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ccb_glitched(tp))
		ccb_repair(tp, htcp_ssthresh_of(inet_csk_ca(sk), ccb_prior_cwnd(tp)));
}

static __always_inline void measure_rtt(struct sock *sk, struct htcp_priv *ca, __u32 srtt)
{
	/* Minimum RTT seen so far (0 = none yet). */
	if (ca->minRTT > srtt || !ca->minRTT)
		ca->minRTT = srtt;
	/* Maximum RTT, learnt only in Open state and in steps of at most 20 ms so a
	 * single outlier cannot inflate it. */
	if (ca_state(sk) == TCP_CA_Open) {
		if (ca->maxRTT < ca->minRTT)
			ca->maxRTT = ca->minRTT;
		if (ca->maxRTT < srtt && srtt <= ca->maxRTT + 20)
			ca->maxRTT = srtt;
	}
}

SEC("struct_ops/htcp_pkts_acked")
void BPF_PROG(htcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct htcp_priv *ca = inet_csk_ca(sk);
	__u8 state = ca_state(sk);
	__u32 now = htcp_now();

	htcp_guard(sk);
	if (state == TCP_CA_Open)
		ca->pkts_acked = (__u16)sample->pkts_acked;
	if (sample->rtt_us > 0)	/* usecs_to_jiffies rounds up */
		measure_rtt(sk, ca, ((__u32)sample->rtt_us + USEC_PER_MSEC - 1) / USEC_PER_MSEC);

	if (!USE_BANDWIDTH_SWITCH)
		return;
	/* Achieved throughput, measured only outside loss recovery. */
	if (state != TCP_CA_Open && state != TCP_CA_Disorder) {
		ca->packetcount = 0;
		ca->lasttime = now;
		return;
	}
	ca->packetcount += sample->pkts_acked;
	if (ca->packetcount >= tp->snd_cwnd - ((ca->alpha >> 7) ? (ca->alpha >> 7) : 1) &&
	    now - ca->lasttime >= ca->minRTT && ca->minRTT > 0) {
		__u32 cur_Bi = ca->packetcount * HTCP_HZ / (now - ca->lasttime);

		if (htcp_ccount(ca, now) <= 3) {
			/* Just after a back-off. */
			ca->minB = ca->maxB = ca->Bi = cur_Bi;
		} else {
			ca->Bi = (3 * ca->Bi + cur_Bi) / 4;
			if (ca->Bi > ca->maxB)
				ca->maxB = ca->Bi;
			if (ca->minB > ca->maxB)
				ca->minB = ca->maxB;
		}
		ca->packetcount = 0;
		ca->lasttime = now;
	}
}

SEC("struct_ops/htcp_ssthresh")
__u32 BPF_PROG(htcp_ssthresh, struct sock *sk)
{
	return htcp_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops/htcp_cong_avoid")
void BPF_PROG(htcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct htcp_priv *ca = inet_csk_ca(sk);

	htcp_guard(sk);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
		return;
	}
	/* cwnd += alpha / cwnd per packet acked. */
	if (((tp->snd_cwnd_cnt * ca->alpha) >> 7) >= tp->snd_cwnd) {
		if (tp->snd_cwnd < tp->snd_cwnd_clamp)
			tp->snd_cwnd++;
		tp->snd_cwnd_cnt = 0;
		htcp_alpha_update(ca, htcp_now());
	} else {
		tp->snd_cwnd_cnt += ca->pkts_acked;
	}
	ca->pkts_acked = 1;
}

SEC("struct_ops/htcp_init")
void BPF_PROG(htcp_init, struct sock *sk)
{
	struct htcp_priv *ca = inet_csk_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->alpha = ALPHA_BASE;
	ca->beta = BETA_MIN;
	ca->pkts_acked = 1;
	ca->last_cong = htcp_now();
}

SEC("struct_ops/htcp_set_state")
void BPF_PROG(htcp_set_state, struct sock *sk, __u8 new_state)
{
	struct htcp_priv *ca = inet_csk_ca(sk);

	switch (new_state) {
	case TCP_CA_Open:
		/* Back in Open after recovery: Delta counts from here. */
		if (ca->undo_last_cong) {
			ca->last_cong = htcp_now();
			ca->undo_last_cong = 0;
		}
		break;
	case TCP_CA_CWR:
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		htcp_reset(ca, htcp_now());
		break;
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_htcp = {
	.init = (void *)htcp_init,
	.ssthresh = (void *)htcp_ssthresh,
	.cong_avoid = (void *)htcp_cong_avoid,
	.set_state = (void *)htcp_set_state,
	.undo_cwnd = (void *)htcp_undo_cwnd,
	.pkts_acked = (void *)htcp_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_htcp",
};
