// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_westwood: TCP Westwood+ as a BPF struct_ops congestion controller.
 *
 * S. Mascolo et al., "TCP Westwood: Bandwidth Estimation for Enhanced Transport over
 * Wireless Links", MobiCom 2001, and L. A. Grieco, S. Mascolo, "Performance
 * evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion
 * control", ACM CCR 34(2), 2004 (Westwood+: one bandwidth sample per RTT).
 * Growth is Reno's. The sender estimates the bandwidth BWE from the rate of ACKed
 * bytes, sampled once per RTT (at least every 50 ms) and low-pass filtered twice with
 * 7/8 old + 1/8 new; after a loss, instead of halving:
 *   ssthresh = max(BWE * RTTmin / MSS, 2)   (and cwnd = ssthresh after recovery),
 * i.e. the window that fills the pipe without a queue. Linux (net/ipv4/
 * tcp_westwood.c) details kept: duplicate/delayed ACK accounting, RTTmin re-learnt
 * after a timeout, first-ACK alignment. Differences: time and RTTs in microseconds
 * instead of jiffies (the kernel's 4 ms jiffy would round the lab's sub-millisecond
 * RTTmin up to 4 ms), so BWE is kept in bytes per millisecond.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define WESTWOOD_RTT_MIN_US (50 * USEC_PER_MSEC)	/* minimum sampling window: 50 ms */
#define WESTWOOD_INIT_RTT_US (20 * USEC_PER_SEC)	/* "maybe too conservative" start */

struct westwood_priv {
	__u32 bw_ns_est;	/* first filter stage, bytes per ms */
	__u32 bw_est;		/* BWE, bytes per ms */
	__u32 rtt_win_sx;	/* us (truncated): start of the sampling window */
	__u32 bk;		/* bytes acked in the window */
	__u32 snd_una;		/* to count bytes acked */
	__u32 cumul_ack;
	__u32 accounted;	/* bytes already counted for dup ACKs */
	__u32 rtt;		/* latest RTT sample, us */
	__u32 rtt_min;		/* us */
	__u8 first_ack;		/* align snd_una on the first ACK */
	__u8 reset_rtt_min;	/* take the next RTT sample as the new min */
};

_Static_assert(sizeof(struct westwood_priv) <= ICSK_CA_PRIV_SIZE, "private area");

SEC("struct_ops/westwood_init")
void BPF_PROG(westwood_init, struct sock *sk)
{
	struct westwood_priv *w = inet_csk_ca(sk);

	w->bk = 0;
	w->bw_ns_est = 0;
	w->bw_est = 0;
	w->accounted = 0;
	w->cumul_ack = 0;
	w->reset_rtt_min = 1;
	w->rtt_min = w->rtt = WESTWOOD_INIT_RTT_US;
	w->rtt_win_sx = (__u32)now_us();
	w->snd_una = tcp_sk(sk)->snd_una;
	w->first_ack = 1;
}

static __always_inline __u32 westwood_do_filter(__u32 a, __u32 b)
{
	return ((7 * a) + b) >> 3;
}

static __always_inline void westwood_filter(struct westwood_priv *w, __u32 delta_us)
{
	__u32 sample = (__u32)((__u64)w->bk * USEC_PER_MSEC / delta_us);

	/* An empty filter takes the first sample as is. */
	if (w->bw_ns_est == 0 && w->bw_est == 0) {
		w->bw_ns_est = sample;
		w->bw_est = sample;
	} else {
		w->bw_ns_est = westwood_do_filter(w->bw_ns_est, sample);
		w->bw_est = westwood_do_filter(w->bw_est, w->bw_ns_est);
	}
}

/* Repair impossible values left by a kernel glitch (ccb_tcp.h): Reno's ssthresh, as the
 * ssthresh op would have set before the end of recovery. */
static __always_inline void westwood_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

SEC("struct_ops/westwood_pkts_acked")
void BPF_PROG(westwood_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct westwood_priv *w = inet_csk_ca(sk);

	westwood_guard(tcp_sk(sk));

	if (sample->rtt_us > 0)
		w->rtt = (__u32)sample->rtt_us;
}

/* One bandwidth sample per RTT (Westwood+), but never over less than 50 ms. */
static __always_inline void westwood_update_window(struct sock *sk, struct westwood_priv *w)
{
	__u32 now = (__u32)now_us();
	__u32 delta = now - w->rtt_win_sx;

	if (w->first_ack) {
		w->snd_una = tcp_sk(sk)->snd_una;
		w->first_ack = 0;
	}
	if (w->rtt && (__s32)delta > 0 && delta > ccb_max(w->rtt, (__u32)WESTWOOD_RTT_MIN_US)) {
		westwood_filter(w, delta);
		w->bk = 0;
		w->rtt_win_sx = now;
	}
}

static __always_inline void update_rtt_min(struct westwood_priv *w)
{
	if (w->reset_rtt_min) {
		w->rtt_min = w->rtt;
		w->reset_rtt_min = 0;
	} else {
		w->rtt_min = ccb_min(w->rtt, w->rtt_min);
	}
}

/* Bytes newly acked, counting a duplicate ACK as one MSS delivered and taking it back
 * from the next cumulative ACK (Linux westwood_acked_count). */
static __always_inline __u32 westwood_acked_count(struct sock *sk, struct westwood_priv *w)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = tp->mss_cache;

	w->cumul_ack = tp->snd_una - w->snd_una;
	if (!w->cumul_ack) {
		w->accounted += mss;
		w->cumul_ack = mss;
	}
	if (w->cumul_ack > mss) {
		if (w->accounted >= w->cumul_ack) {
			w->accounted -= w->cumul_ack;
			w->cumul_ack = mss;
		} else {
			w->cumul_ack -= w->accounted;
			w->accounted = 0;
		}
	}
	w->snd_una = tp->snd_una;
	return w->cumul_ack;
}

SEC("struct_ops/westwood_in_ack_event")
void BPF_PROG(westwood_in_ack_event, struct sock *sk, __u32 flags)
{
	struct westwood_priv *w = inet_csk_ca(sk);

	westwood_update_window(sk, w);
	if (flags & CA_ACK_SLOWPATH) {
		w->bk += westwood_acked_count(sk, w);
	} else {
		/* Fast path: an in-order cumulative ACK. */
		w->bk += tcp_sk(sk)->snd_una - w->snd_una;
		w->snd_una = tcp_sk(sk)->snd_una;
	}
	update_rtt_min(w);
}

/* BWE x RTTmin in packets, at least 2. */
static __always_inline __u32 westwood_bw_rttmin(struct sock *sk, struct westwood_priv *w)
{
	__u32 mss = tcp_sk(sk)->mss_cache;
	__u64 bdp = (__u64)w->bw_est * w->rtt_min / USEC_PER_MSEC;

	if (!mss)
		return 2;
	return ccb_max((__u32)(bdp / mss), 2U);
}

SEC("struct_ops/westwood_cwnd_event")
void BPF_PROG(westwood_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct westwood_priv *w = inet_csk_ca(sk);

	if (ev == CA_EVENT_COMPLETE_CWR) {
		/* End of recovery: cwnd = ssthresh = the pipe's size. */
		tp->snd_ssthresh = westwood_bw_rttmin(sk, w);
		tp->snd_cwnd = tp->snd_ssthresh;
	} else if (ev == CA_EVENT_LOSS) {
		/* Timeout: ssthresh from the estimate; re-learn RTTmin from the next ACK. */
		tp->snd_ssthresh = westwood_bw_rttmin(sk, w);
		w->reset_rtt_min = 1;
	}
}

SEC("struct_ops/westwood_ssthresh")
__u32 BPF_PROG(westwood_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/westwood_cong_avoid")
void BPF_PROG(westwood_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	westwood_guard(tcp_sk(sk));
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/westwood_undo_cwnd")
__u32 BPF_PROG(westwood_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_westwood = {
	.init = (void *)westwood_init,
	.ssthresh = (void *)westwood_ssthresh,
	.cong_avoid = (void *)westwood_cong_avoid,
	.undo_cwnd = (void *)westwood_undo_cwnd,
	.cwnd_event = (void *)westwood_cwnd_event,
	.in_ack_event = (void *)westwood_in_ack_event,
	.pkts_acked = (void *)westwood_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_westwood",
};
