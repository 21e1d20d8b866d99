// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_nv: TCP-NV ("New Vegas") as a BPF struct_ops congestion controller (an open-set
 * stranger: no class is trained on it).
 *
 * L. Brakmo, "TCP-NV: An Update to TCP-Vegas", 2015 (netdev / Linux net/ipv4/tcp_nv.c).
 * Once per RTT NV predicts the window the current rate needs - the highest rate seen this
 * RTT (in flight / averaged RTT) times the minimum RTT - and allows pad = 10 packets on
 * top (max_win). Above max_win it is congested: cwnd drops by 30% of the excess (at least
 * 2; to max_win if the excess is <= 2) and growth stops; below max_win - 2 it grows like
 * Reno. Decisions need enough samples (60 to decrease, 20 to increase, 30 to leave slow
 * start) and 2 RTTs. The minimum RTT is re-learnt every 5 s (x 0.75-1.25, random). On
 * loss: cwnd x 0.8. Constants as Linux's (nv_pad 10, nv_pad_buffer 2, nv_cong_dec_mult
 * 30%, nv_ssthresh_factor 8/8, nv_rtt_factor 1/2, nv_loss_dec_factor 0.8,
 * nv_cwnd_growth_rate_neg 8, nv_cwnd_growth_rate_pos 0, nv_stop_rtt_cnt 10,
 * nv_rtt_min_cnt 2, nv_min_cwnd 2). No base RTT from a sock_ops program (Linux's
 * optional hint). Time in microseconds instead of jiffies.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define NV_PAD 10U
#define NV_PAD_BUFFER 2U
#define NV_RESET_PERIOD_US (5 * USEC_PER_SEC)
#define NV_MIN_CWND_LOSS 2U			/* never below this without loss */
#define NV_CONG_DEC_MULT (30 * 128 / 100)	/* 30% of the excess */
#define NV_SSTHRESH_FACTOR 8			/* ssthresh = 8/8 x max_win */
#define NV_RTT_FACTOR 128			/* avg = 1/2 old + 1/2 new */
#define NV_LOSS_DEC_FACTOR 819			/* cwnd x 0.8 on loss */
#define NV_GROWTH_RATE_NEG 8
#define NV_DEC_EVAL_MIN_CALLS 60
#define NV_INC_EVAL_MIN_CALLS 20
#define NV_SSTHRESH_EVAL_MIN_CALLS 30
#define NV_STOP_RTT_CNT 10
#define NV_RTT_MIN_CNT 2
#define NV_MIN_CWND 4U
#define NV_MIN_CWND_GROW 2U
#define NV_TSO_CWND_BOUND 80U
#define NV_INIT_RTT 0xffffffffU

struct nv_priv {
	__u64 min_rtt_reset_us;	/* when min_rtt_new replaces min_rtt */
	__u32 last_rtt;		/* averaged RTT */
	__u32 min_rtt;		/* used for the slope */
	__u32 min_rtt_new;	/* collected for the next period */
	__u32 rtt_max_rate;	/* highest rate this RTT, 100s of bit/s */
	__u32 rtt_start_seq;
	__u32 last_snd_una;
	__u32 no_cong_cnt;
	__s8 growth_factor;	/* < 0: slower than 1 packet/RTT (after losses) */
	__u8 allow_growth;
	__u8 reset;
	__u8 catchup;
	__u8 eval_call_cnt;
	__u8 min_cwnd;		/* no decision below this window */
	__u8 rtt_cnt;
};

_Static_assert(sizeof(struct nv_priv) <= ICSK_CA_PRIV_SIZE, "private area");

static __always_inline void nv_reset(struct nv_priv *ca, const struct tcp_sock *tp)
{
	ca->reset = 0;
	ca->no_cong_cnt = 0;
	ca->rtt_cnt = 0;
	ca->last_rtt = 0;
	ca->rtt_max_rate = 0;
	ca->rtt_start_seq = tp->snd_una;
	ca->eval_call_cnt = 0;
	ca->last_snd_una = tp->snd_una;
}

SEC("struct_ops/nv_init")
void BPF_PROG(nv_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv_priv *ca = inet_csk_ca(sk);

	nv_reset(ca, tp);
	ca->allow_growth = 1;
	ca->min_rtt_reset_us = now_us() + 2 * USEC_PER_SEC;
	ca->min_rtt = NV_INIT_RTT;
	ca->min_rtt_new = NV_INIT_RTT;
	ca->min_cwnd = NV_MIN_CWND;
	ca->catchup = 0;
	ca->growth_factor = 0;
}

static __always_inline void nv_guard(struct tcp_sock *tp)
{
	if (ccb_glitched(tp))
		ccb_repair(tp, (ccb_prior_cwnd(tp) * NV_LOSS_DEC_FACTOR) >> 10);
}

SEC("struct_ops/nv_cong_avoid")
void BPF_PROG(nv_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv_priv *ca = inet_csk_ca(sk);
	__u32 cnt;

	nv_guard(tp);
	if (!tcp_is_cwnd_limited(sk) || !ca->allow_growth)
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	if (ca->growth_factor < 0)
		cnt = tp->snd_cwnd << ((-ca->growth_factor) & 15);
	else
		cnt = ccb_max(4U, tp->snd_cwnd >> (ca->growth_factor & 15));
	tcp_cong_avoid_ai(tp, cnt, acked);
}

SEC("struct_ops/nv_ssthresh")
__u32 BPF_PROG(nv_ssthresh, struct sock *sk)
{
	return ccb_max((tcp_sk(sk)->snd_cwnd * NV_LOSS_DEC_FACTOR) >> 10, 2U);
}

SEC("struct_ops/nv_set_state")
void BPF_PROG(nv_set_state, struct sock *sk, __u8 new_state)
{
	struct nv_priv *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Open && ca->reset) {
		nv_reset(ca, tcp_sk(sk));
	} else if (new_state == TCP_CA_Loss || new_state == TCP_CA_CWR || new_state == TCP_CA_Recovery) {
		ca->reset = 1;
		ca->allow_growth = 0;
		if (new_state == TCP_CA_Loss) {
			/* After a timeout grow slower than Reno, recovering the rate over 8 RTTs. */
			if (ca->growth_factor > 0)
				ca->growth_factor = 0;
			if (ca->growth_factor > -8)
				ca->growth_factor--;
		}
	}
}

/* Once per RTT: compare cwnd with the window the current rate needs, plus pad. */
static __always_inline void nv_decide(struct tcp_sock *tp, struct nv_priv *ca, __u32 bytes_acked)
{
	__u32 cwnd_by_slope, max_win;

	ca->rtt_start_seq = tp->snd_nxt;
	if (ca->rtt_cnt < 0xff)
		ca->rtt_cnt++;
	/* Called once this RTT: the window is too small to measure (TSO, coalescing). */
	if (ca->eval_call_cnt == 1 && bytes_acked >= (ca->min_cwnd - 1) * tp->mss_cache &&
	    ca->min_cwnd < NV_TSO_CWND_BOUND + 1) {
		ca->min_cwnd = ccb_min(ca->min_cwnd + NV_MIN_CWND_GROW, NV_TSO_CWND_BOUND + 1);
		ca->rtt_start_seq = tp->snd_nxt + ca->min_cwnd * tp->mss_cache;
		ca->eval_call_cnt = 0;
		ca->allow_growth = 1;
		return;
	}
	/* cwnd_by_slope = max rate / (80000 x mss / min_rtt) */
	cwnd_by_slope = (__u32)(((__u64)ca->rtt_max_rate * ca->min_rtt) / ((__u64)80000 * ccb_max(tp->mss_cache, 1U)));
	max_win = cwnd_by_slope + NV_PAD;

	if (tp->snd_cwnd > max_win) {
		if (ca->rtt_cnt < NV_RTT_MIN_CNT)
			return;
		if (tp->snd_ssthresh == TCP_INFINITE_SSTHRESH) {
			if (ca->eval_call_cnt < NV_SSTHRESH_EVAL_MIN_CALLS)
				return;
		} else if (ca->eval_call_cnt < NV_DEC_EVAL_MIN_CALLS) {
			if (ca->allow_growth && ca->rtt_cnt > NV_STOP_RTT_CNT)
				ca->allow_growth = 0;
			return;
		}
		/* Congested: shrink by 30% of the excess, stop growing. */
		ca->allow_growth = 0;
		tp->snd_ssthresh = (NV_SSTHRESH_FACTOR * max_win) >> 3;
		if (tp->snd_cwnd - max_win > 2)
			tp->snd_cwnd -= ccb_max(2U, ((tp->snd_cwnd - max_win) * NV_CONG_DEC_MULT) >> 7);
		else
			tp->snd_cwnd = max_win;
		if (ca->growth_factor > 0)
			ca->growth_factor = 0;
		ca->no_cong_cnt = 0;
	} else if (tp->snd_cwnd + NV_PAD_BUFFER <= max_win) {
		if (ca->eval_call_cnt < NV_INC_EVAL_MIN_CALLS)
			return;
		ca->allow_growth = 1;
		ca->no_cong_cnt++;
		if (ca->growth_factor < 0 && ca->no_cong_cnt > NV_GROWTH_RATE_NEG) {
			ca->growth_factor++;
			ca->no_cong_cnt = 0;
		}
	} else {
		return;	/* in between: leave it */
	}
	ca->eval_call_cnt = 0;
	ca->rtt_cnt = 0;
	ca->rtt_max_rate = 0;
	if (tp->snd_cwnd < NV_MIN_CWND_LOSS)
		tp->snd_cwnd = NV_MIN_CWND_LOSS;
}

SEC("struct_ops/nv_pkts_acked")
void BPF_PROG(nv_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv_priv *ca = inet_csk_ca(sk);
	__u64 now = now_us();
	__u32 avg_rtt, rate, bytes_acked;
	__u8 state = ca_state(sk);

	nv_guard(tp);
	if (sample->rtt_us < 0)
		return;
	if (state != TCP_CA_Open && state != TCP_CA_Disorder)
		return;
	if (ca->catchup && tp->snd_cwnd >= NV_MIN_CWND_LOSS) {
		ca->catchup = 0;
		ca->allow_growth = 0;
	}
	bytes_acked = tp->snd_una - ca->last_snd_una;
	ca->last_snd_una = tp->snd_una;
	if (sample->in_flight == 0)
		return;

	if (ca->last_rtt > 0) {
		avg_rtt = (__u32)((((__u64)sample->rtt_us) * NV_RTT_FACTOR +
				   ((__u64)ca->last_rtt) * (256 - NV_RTT_FACTOR)) >> 8);
	} else {
		avg_rtt = (__u32)sample->rtt_us;
		ca->min_rtt = avg_rtt << 1;
	}
	ca->last_rtt = avg_rtt;
	if (!avg_rtt)
		return;

	/* Rate in 100s of bit/s: in flight (bytes) x 8 / RTT. */
	rate = (__u32)(((__u64)sample->in_flight * 8000000) / ((__u64)avg_rtt * 100));
	if (ca->rtt_max_rate < rate)
		ca->rtt_max_rate = rate;
	if (ca->eval_call_cnt < 255)
		ca->eval_call_cnt++;
	if (avg_rtt < ca->min_rtt)
		ca->min_rtt = avg_rtt;
	if (avg_rtt < ca->min_rtt_new)
		ca->min_rtt_new = avg_rtt;

	/* Re-learn the minimum every 5 s (x [0.75, 1.25)). */
	if (now >= ca->min_rtt_reset_us) {
		ca->min_rtt = ca->min_rtt_new;
		ca->min_rtt_new = NV_INIT_RTT;
		ca->min_rtt_reset_us = now + ((NV_RESET_PERIOD_US * (384 + (bpf_get_prandom_u32() & 0xff))) >> 9);
		ca->min_cwnd = ccb_max(ca->min_cwnd / 2, NV_MIN_CWND);
	}
	if (before(ca->rtt_start_seq, tp->snd_una))
		nv_decide(tp, ca, bytes_acked);
}

SEC("struct_ops/nv_undo_cwnd")
__u32 BPF_PROG(nv_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_nv = {
	.init = (void *)nv_init,
	.ssthresh = (void *)nv_ssthresh,
	.undo_cwnd = (void *)nv_undo_cwnd,
	.cong_avoid = (void *)nv_cong_avoid,
	.pkts_acked = (void *)nv_pkts_acked,
	.set_state = (void *)nv_set_state,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_nv",
};
