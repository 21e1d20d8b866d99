// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_fast: FAST TCP as a BPF struct_ops congestion controller - the lab's AkamaiCC-like
 * sender (Akamai's "FastTCP" descends from FAST; Nebby saw a constant in-flight level).
 *
 * D. X. Wei, C. Jin, S. H. Low, S. Hegde, "FAST TCP: Motivation, Architecture,
 * Algorithms, Performance", IEEE/ACM ToN 14(6), 2006. A delay-based window controller
 * that, once per update period (here: once per RTT, as Vegas; the paper leaves the
 * period to the implementation), sets
 *     w <- min{ 2w, (1 - gamma) w + gamma (baseRTT / avgRTT x w + alpha) }
 * whose fixed point keeps alpha of its own packets queued at the bottleneck:
 * w (1 - baseRTT/RTT) = alpha, i.e. in flight = BDP + alpha, whatever the BDP.
 *  - baseRTT: minimum RTT seen; avgRTT: EWMA of RTT samples with weight
 *    min(3/w, 1/4) per sample (the paper's estimator);
 *  - alpha(w, qdelay) = w while the queueing delay is ~0 (the paper's start-up rule: the
 *    window grows by half each update until a queue is seen), alpha otherwise;
 *  - gamma = 1/2 (the paper's value);
 *  - loss: halves like Reno (the paper keeps Reno's loss recovery).
 * alpha = 20 packets: the paper used 200 on Gbit/s paths; 20 keeps the target queue inside
 * the lab's buffers (the Nebby profiles hold 33-63 small packets), docs/lab-cca.md.
 * No pacing (FAST is a window protocol).
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define FAST_ALPHA 20U		/* own packets kept queued */
#define FAST_GAMMA_SHIFT 1	/* gamma = 1/2 */
#define FAST_ZERO_QDELAY_DIV 64	/* queueing delay < baseRTT/64 counts as none */

struct fast_priv {
	__u32 beg_snd_nxt;	/* an ACK beyond it ends the update period (one RTT) */
	__u32 base_rtt;		/* us, min RTT */
	__u32 avg_rtt;		/* us, EWMA */
	__u32 samples;		/* RTT samples this period */
	__u8 queue_seen;	/* left the start-up rule once */
};

_Static_assert(sizeof(struct fast_priv) <= ICSK_CA_PRIV_SIZE, "private area");

SEC("struct_ops/fast_init")
void BPF_PROG(fast_init, struct sock *sk)
{
	struct fast_priv *f = inet_csk_ca(sk);

	f->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	f->base_rtt = 0x7fffffff;
	f->avg_rtt = 0;
	f->samples = 0;
	f->queue_seen = 0;
}

static __always_inline void fast_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

/* avgRTT += (RTT - avgRTT) x min(3/w, 1/4) (unsigned arithmetic both ways). */
SEC("struct_ops/fast_pkts_acked")
void BPF_PROG(fast_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct fast_priv *f = inet_csk_ca(sk);
	__u32 rtt, w, num, den;

	fast_guard(tp);
	if (sample->rtt_us <= 0)
		return;
	rtt = (__u32)sample->rtt_us;
	if (rtt < f->base_rtt)
		f->base_rtt = rtt;
	f->samples++;
	if (!f->avg_rtt) {
		f->avg_rtt = rtt;
		return;
	}
	w = ccb_max(tp->snd_cwnd, 1U);
	/* weight num/den = min(3/w, 1/4) */
	if (w < 12) {
		num = 1;
		den = 4;
	} else {
		num = 3;
		den = w;
	}
	if (rtt > f->avg_rtt)
		f->avg_rtt += (__u32)((__u64)(rtt - f->avg_rtt) * num / den);
	else
		f->avg_rtt -= (__u32)((__u64)(f->avg_rtt - rtt) * num / den);
}

SEC("struct_ops/fast_cong_avoid")
void BPF_PROG(fast_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct fast_priv *f = inet_csk_ca(sk);
	__u32 w = tp->snd_cwnd, alpha, target;
	__u64 scaled;

	fast_guard(tp);
	if (!after(ack, f->beg_snd_nxt))
		return;
	f->beg_snd_nxt = tp->snd_nxt;
	/* No sample this period (delayed ACKs only, or idle): wait for one. */
	if (!f->samples || !f->avg_rtt || f->base_rtt == 0x7fffffff) {
		f->samples = 0;
		return;
	}
	f->samples = 0;

	alpha = FAST_ALPHA;
	if (f->avg_rtt - ccb_min(f->avg_rtt, f->base_rtt) < f->base_rtt / FAST_ZERO_QDELAY_DIV && !f->queue_seen)
		alpha = w;	/* no queue yet: grow by half a window per period */
	else
		f->queue_seen = 1;

	/* (1 - gamma) w + gamma (baseRTT/avgRTT x w + alpha) */
	scaled = (__u64)w * f->base_rtt / f->avg_rtt;
	target = (w >> FAST_GAMMA_SHIFT) + (__u32)((scaled + alpha) >> FAST_GAMMA_SHIFT);
	target = ccb_min(target, 2 * w);
	/* An application-limited sender has no evidence that a larger window fits. */
	if (target > w && !tcp_is_cwnd_limited(sk))
		return;
	tp->snd_cwnd = target;
	clamp_cwnd(tp);
	if (f->queue_seen)
		tp->snd_ssthresh = ccb_min(tp->snd_ssthresh, tp->snd_cwnd);	/* out of slow start */
}

SEC("struct_ops/fast_ssthresh")
__u32 BPF_PROG(fast_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/fast_undo_cwnd")
__u32 BPF_PROG(fast_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

/* After idle or a timeout the RTT average is stale: restart it from the next sample. */
SEC("struct_ops/fast_cwnd_event")
void BPF_PROG(fast_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct fast_priv *f = inet_csk_ca(sk);

	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_LOSS) {
		f->avg_rtt = 0;
		f->samples = 0;
		f->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_fast = {
	.init = (void *)fast_init,
	.ssthresh = (void *)fast_ssthresh,
	.undo_cwnd = (void *)fast_undo_cwnd,
	.cong_avoid = (void *)fast_cong_avoid,
	.pkts_acked = (void *)fast_pkts_acked,
	.cwnd_event = (void *)fast_cwnd_event,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_fast",
};
