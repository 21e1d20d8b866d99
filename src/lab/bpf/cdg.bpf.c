// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_cdg: CAIA Delay-Gradient (CDG) as a BPF struct_ops congestion controller (an
 * open-set stranger: no class is trained on it).
 *
 * D. A. Hayes, G. Armitage, "Revisiting TCP congestion control using delay gradients",
 * IFIP Networking 2011. Once per RTT CDG takes the change of the RTT's minimum and
 * maximum against the previous RTT, smooths each over a window of a = 8 RTTs, and when
 * the gradient g is positive backs off (cwnd x beta, no loss needed) with probability
 *     P = 1 - exp(-g / G)
 * Growth is Reno's. A "shadow window" remembers the window lost to delay back-offs so a
 * loss does not cut twice, and back-offs that do not lower the delay are ignored after 5
 * in a row (competing with loss-based flows). Hybrid slow start (ACK train and delay).
 * Constants as Linux net/ipv4/tcp_cdg.c: window 8, beta 0.7071, backoff_factor 42
 * (G in the paper's units: factor = 1000 / (G window)), ineffective threshold 5, shadow
 * window on, loss tolerance off.
 * Difference: BPF cannot call tcp_enter_cwr, so a back-off sets ssthresh and cwnd at once
 * (Linux reduces over one RTT with PRR) and the next RTT is skipped, as Linux's CWR does.
 * State lives in socket storage (the 8-entry gradient window exceeds the private area).
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define CDG_WINDOW 8
#define CDG_BACKOFF_BETA 724U		/* 0.7071 x 1024 */
#define CDG_BACKOFF_FACTOR 42U
#define CDG_USE_INEFF 5U
#define CDG_HYSTART_ACK_TRAIN 1
#define CDG_HYSTART_DELAY 2
#define CDG_HYSTART_DETECT 3

enum cdg_state { CDG_UNKNOWN, CDG_NONFULL, CDG_FULL, CDG_BACKOFF };

struct cdg {
	__s32 rtt_min, rtt_max;		/* this RTT, us (0: no sample) */
	__s32 prev_min, prev_max;	/* previous RTT */
	__s32 grad_min[CDG_WINDOW];
	__s32 grad_max[CDG_WINDOW];
	__s32 gsum_min, gsum_max;
	__u32 rtt_seq;			/* an ACK beyond it ends the RTT */
	__u32 cwr_seq;			/* after a back-off: skip the RTT until this is acked */
	__u32 undo_cwnd;
	__u32 shadow_wnd;
	__u32 backoff_cnt;
	__u32 sample_cnt;
	__u32 delay_min;
	__u32 last_ack_us;
	__u32 round_start_us;
	__u8 gfilled;
	__u8 tail;
	__u8 state;
	__u8 delack;
	__u8 in_cwr;
};

CCB_SK_STATE_MAP(ccb_cdg_stg, struct cdg);

static __always_inline struct cdg *cdg_of(struct sock *sk)
{
	return bpf_sk_storage_get(&ccb_cdg_stg, sk, 0, 0);
}

SEC("struct_ops/cdg_init")
void BPF_PROG(cdg_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = bpf_sk_storage_get(&ccb_cdg_stg, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!ca)
		return;
	__builtin_memset(ca, 0, sizeof(*ca));
	ca->rtt_seq = tp->snd_nxt;
	ca->shadow_wnd = tp->snd_cwnd;
}

/* exp(-ux / 10^6) in 1/65536: e^-n from a table, e^-f by its Taylor series (f < 1). */
static const __u32 exp_neg_int[16] = { 65536, 24109, 8869, 3263, 1200, 441, 162, 60, 22, 8, 3, 1, 0, 0, 0, 0 };

static __always_inline __u32 nexp_q16(__u32 ux)
{
	__u32 n = ux / 1000000, f;
	__u64 f1, f2, f3, f4, f5, pos, neg;

	if (n >= 16)
		return 0;
	/* Keeps clang from dropping the mask below: the verifier needs it to bound the index. */
	barrier_var(n);
	n &= 15;
	f = ux % 1000000;
	f1 = (__u64)f * 65536 / 1000000;		/* Q16 */
	f2 = f1 * f1 >> 16;
	f3 = f2 * f1 >> 16;
	f4 = f3 * f1 >> 16;
	f5 = f4 * f1 >> 16;
	pos = 65536 + f2 / 2 + f4 / 24;
	neg = f1 + f3 / 6 + f5 / 120;
	return (__u32)((exp_neg_int[n] * (pos > neg ? pos - neg : 0)) >> 16);
}

/* Smoothed gradient over the window (a sum: the division by the window is dropped). */
static __always_inline __s32 cdg_grad(struct cdg *ca)
{
	__s32 gmin = ca->rtt_min - ca->prev_min;
	__s32 gmax = ca->rtt_max - ca->prev_max;
	__u32 t = ca->tail & (CDG_WINDOW - 1);
	__s32 grad;

	ca->gsum_min += gmin - ca->grad_min[t];
	ca->gsum_max += gmax - ca->grad_max[t];
	ca->grad_min[t] = gmin;
	ca->grad_max[t] = gmax;
	ca->tail = (t + 1) & (CDG_WINDOW - 1);
	gmin = ca->gsum_min;
	gmax = ca->gsum_max;
	grad = gmin > 0 ? gmin : gmax;

	/* Until the window is full, extrapolate (only positive gradients matter). */
	if (!ca->gfilled) {
		if (ca->tail == 0)
			ca->gfilled = 1;
		else if (grad > 0)
			grad = (__s32)((__u32)grad * CDG_WINDOW / ca->tail);
	}
	/* A back-off that lowered the delay was effectual. */
	if (gmin <= -32 || gmax <= -32)
		ca->backoff_cnt = 0;
	return grad;
}

static __always_inline bool cdg_backoff(struct tcp_sock *tp, struct cdg *ca, __u32 grad)
{
	__u32 x = grad * CDG_BACKOFF_FACTOR;

	if ((bpf_get_prandom_u32() >> 16) <= nexp_q16(x))
		return false;	/* with probability exp(-g/G): no back-off */
	ca->backoff_cnt++;
	if (ca->backoff_cnt > CDG_USE_INEFF)
		return false;	/* back-offs did not lower the delay: competing with loss-based flows */
	ca->shadow_wnd = ccb_max(ca->shadow_wnd, tp->snd_cwnd);
	ca->state = CDG_BACKOFF;
	ca->undo_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = ccb_max(2U, (tp->snd_cwnd * CDG_BACKOFF_BETA) >> 10);
	tp->snd_cwnd = tp->snd_ssthresh;
	ca->in_cwr = 1;
	ca->cwr_seq = tp->snd_nxt;
	return true;
}

static __always_inline void cdg_hystart(struct sock *sk, struct cdg *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 rtt_min = ca->rtt_min > 0 ? (__u32)ca->rtt_min : 0;

	if (rtt_min && (!ca->delay_min || rtt_min < ca->delay_min))
		ca->delay_min = rtt_min;
	if (!ca->delay_min)
		return;
	if (CDG_HYSTART_DETECT & CDG_HYSTART_ACK_TRAIN) {
		__u32 now = (__u32)now_us();

		if (ca->last_ack_us == 0 || !tcp_is_cwnd_limited(sk)) {
			ca->last_ack_us = now;
			ca->round_start_us = now;
		} else if (before(now, ca->last_ack_us + 3000)) {
			__u32 base_owd = ccb_max(ca->delay_min / 2U, 125U);

			ca->last_ack_us = now;
			if (after(now, ca->round_start_us + base_owd)) {
				tp->snd_ssthresh = tp->snd_cwnd;
				return;
			}
		}
	}
	if (CDG_HYSTART_DETECT & CDG_HYSTART_DELAY) {
		if (ca->sample_cnt < 8) {
			ca->sample_cnt++;
		} else if (rtt_min > ccb_max(ca->delay_min + ca->delay_min / 8U, 125U)) {
			tp->snd_ssthresh = tp->snd_cwnd;
		}
	}
}

static __always_inline void cdg_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, ccb_prior_cwnd(tp) >> 1);
}

SEC("struct_ops/cdg_cong_avoid")
void BPF_PROG(cdg_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = cdg_of(sk);
	__u32 prior, incr;

	cdg_guard(tp);
	if (!ca) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (ca->in_cwr) {
		/* The reduction's RTT (Linux's CWR state): no growth, no gradient. */
		if (!after(ack, ca->cwr_seq))
			return;
		ca->in_cwr = 0;
		ca->state = CDG_UNKNOWN;
		ca->rtt_seq = tp->snd_nxt;
		ca->prev_min = ca->rtt_min;
		ca->prev_max = ca->rtt_max;
		ca->rtt_min = ca->rtt_max = 0;
	}
	if (tcp_in_slow_start(tp))
		cdg_hystart(sk, ca);

	if (after(ack, ca->rtt_seq) && (ca->rtt_min || ca->rtt_max)) {
		__s32 grad = 0;

		if (ca->prev_min || ca->prev_max)
			grad = cdg_grad(ca);
		ca->rtt_seq = tp->snd_nxt;
		ca->prev_min = ca->rtt_min;
		ca->prev_max = ca->rtt_max;
		ca->rtt_min = ca->rtt_max = 0;
		ca->last_ack_us = 0;
		ca->sample_cnt = 0;
		if (grad > 0 && cdg_backoff(tp, ca, (__u32)grad))
			return;
	}
	if (!tcp_is_cwnd_limited(sk)) {
		ca->shadow_wnd = ccb_min(ca->shadow_wnd, tp->snd_cwnd);
		return;
	}
	prior = tp->snd_cwnd;
	tcp_reno_cong_avoid(sk, ack, acked);
	incr = tp->snd_cwnd > prior ? tp->snd_cwnd - prior : 0;
	ca->shadow_wnd = ccb_max(ca->shadow_wnd, ca->shadow_wnd + incr);
}

/* RTT min/max of this RTT, with Hayes' filter against delayed ACKs. */
SEC("struct_ops/cdg_pkts_acked")
void BPF_PROG(cdg_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = cdg_of(sk);
	__s32 rtt = sample->rtt_us;

	cdg_guard(tp);
	if (!ca || rtt <= 0)
		return;
	if (tp->sacked_out == 0) {
		if (sample->pkts_acked == 1 && ca->delack) {
			/* A delayed ACK only counts if it is provably lower. */
			if (ca->rtt_min && rtt < ca->rtt_min)
				ca->rtt_min = rtt;
			ca->delack--;
			return;
		} else if (sample->pkts_acked > 1 && ca->delack < 5) {
			ca->delack++;
		}
	}
	if (!ca->rtt_min || rtt < ca->rtt_min)
		ca->rtt_min = rtt;
	if (rtt > ca->rtt_max)
		ca->rtt_max = rtt;
}

SEC("struct_ops/cdg_ssthresh")
__u32 BPF_PROG(cdg_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = cdg_of(sk);

	if (!ca)
		return ccb_max(tp->snd_cwnd >> 1, 2U);
	ca->undo_cwnd = tp->snd_cwnd;
	ca->in_cwr = 0;
	if (ca->state == CDG_BACKOFF)
		return ccb_max(2U, (tp->snd_cwnd * CDG_BACKOFF_BETA) >> 10);
	/* Loss: half the window, or what the shadow window says Reno would have. */
	ca->shadow_wnd = ccb_min(ca->shadow_wnd >> 1, tp->snd_cwnd);
	return ccb_max(ccb_max(2U, ca->shadow_wnd), tp->snd_cwnd >> 1);
}

SEC("struct_ops/cdg_undo_cwnd")
__u32 BPF_PROG(cdg_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = cdg_of(sk);
	__u32 cwnd = tp->snd_cwnd;

	barrier_var(cwnd);
	if (!ca)
		return cwnd;
	return ccb_max(cwnd, ca->undo_cwnd);
}

SEC("struct_ops/cdg_cwnd_event")
void BPF_PROG(cdg_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = cdg_of(sk);

	if (!ca)
		return;
	if (ev == CA_EVENT_CWND_RESTART) {
		__builtin_memset(ca, 0, sizeof(*ca));
		ca->rtt_seq = tp->snd_nxt;
		ca->shadow_wnd = tp->snd_cwnd;
	} else if (ev == CA_EVENT_COMPLETE_CWR) {
		ca->state = CDG_UNKNOWN;
		ca->rtt_seq = tp->snd_nxt;
		ca->prev_min = ca->rtt_min;
		ca->prev_max = ca->rtt_max;
		ca->rtt_min = ca->rtt_max = 0;
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_cdg = {
	.init = (void *)cdg_init,
	.ssthresh = (void *)cdg_ssthresh,
	.undo_cwnd = (void *)cdg_undo_cwnd,
	.cong_avoid = (void *)cdg_cong_avoid,
	.pkts_acked = (void *)cdg_pkts_acked,
	.cwnd_event = (void *)cdg_cwnd_event,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_cdg",
};
