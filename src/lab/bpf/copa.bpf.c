// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_copa: Copa, default mode, as a BPF struct_ops congestion controller
 * (.cong_control: it sets cwnd and the pacing rate on every ACK).
 *
 * V. Arun, H. Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the
 * Internet", NSDI 2018, section 2:
 *  - queueing delay dq = RTTstanding - RTTmin, with RTTstanding the smallest RTT over the
 *    last srtt/2 (robust to ACK compression) and RTTmin the smallest over 10 s;
 *  - target rate lambda_t = 1 / (delta x dq) packets/s, delta = 0.5;
 *  - current rate lambda = cwnd / RTTstanding; on each ACK, if lambda <= lambda_t then
 *    cwnd += v / (delta x cwnd), else cwnd -= v / (delta x cwnd);
 *  - velocity v = 1, doubled every RTT once cwnd has moved in the same direction for 3
 *    RTTs (direction: cwnd now against cwnd one RTT ago), back to 1 when it turns;
 *    as in the authors' mvfst implementation, a turn is also taken at once, on the ACK
 *    whose decision runs against a velocity above 1: judged only once per RTT, a
 *    velocity doubled on the way up drove the window down for a whole RTT (125 -> 2
 *    packets at a 66-packet BDP), and with delayed ACKs inflating the RTT of a 2-packet
 *    window the flow fell into 10-RTT cycles that left the link idle;
 *  - start: cwnd doubles every RTT until lambda > lambda_t;
 *  - pacing at 2 x cwnd / RTTstanding.
 * The equilibrium queue is ~1/delta = 2 packets; the window swings around it and the
 * queue empties about every 5 RTTs, the oscillation Nebby uses to spot Copa.
 * Competitive mode (delta adapted AIMD-style against buffer-filling flows) is not
 * implemented. Loss: no reduction in default mode (as the authors' mvfst implementation:
 * the delay signal drives the window); a timeout restarts from the kernel's window.
 */
#include "ccb_tcp.h"

CCB_LICENSE;

#define COPA_DELTA_INV 2U			/* 1/delta */
#define COPA_MIN_RTT_WIN_US (10 * USEC_PER_SEC)
#define COPA_SAME_DIR_RTTS 3
#define COPA_MAX_VELOCITY (1U << 16)
#define COPA_MIN_CWND 2U
#define SK_PACING_NEEDED_VAL 1
#define FP 8					/* cwnd in 1/256 packets */

enum copa_dir { DIR_NONE, DIR_UP, DIR_DOWN };

struct copa_priv {
	__u64 min_bucket_start;		/* RTTmin: two 5 s buckets */
	__u64 st_bucket_start;		/* RTTstanding: two srtt/4 buckets */
	__u32 min_cur, min_prev;
	__u32 st_cur, st_prev;
	__u32 cwnd_fp;			/* cwnd << FP */
	__u32 velocity;
	__u32 next_round_delivered;
	__u32 cwnd_at_round;		/* cwnd (packets) when the round began */
	__u8 dir;
	__u8 same_dir_rtts;
	__u8 slow_start;
};

_Static_assert(sizeof(struct copa_priv) <= ICSK_CA_PRIV_SIZE, "private area");

SEC("struct_ops/copa_init")
void BPF_PROG(copa_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa_priv *c = inet_csk_ca(sk);

	c->min_bucket_start = tp->tcp_mstamp;
	c->st_bucket_start = tp->tcp_mstamp;
	c->min_cur = c->min_prev = 0xffffffff;
	c->st_cur = c->st_prev = 0xffffffff;
	c->cwnd_fp = tp->snd_cwnd << FP;
	c->velocity = 1;
	c->next_round_delivered = tp->delivered;
	c->cwnd_at_round = tp->snd_cwnd;
	c->dir = DIR_NONE;
	c->same_dir_rtts = 0;
	c->slow_start = 1;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	sk->sk_pacing_status = SK_PACING_NEEDED_VAL;
}

/* Two-bucket windowed minimum: covers between one and two bucket lengths. */
static __always_inline void bucket_min(__u64 now, __u64 *start, __u32 *cur, __u32 *prev, __u64 len, __u32 rtt)
{
	if (now - *start >= len) {
		/* A gap of more than two buckets forgets both. */
		*prev = now - *start >= 2 * len ? 0xffffffff : *cur;
		*cur = 0xffffffff;
		*start = now;
	}
	if (rtt < *cur)
		*cur = rtt;
}

/* Once per RTT: the direction cwnd moved, and the velocity. */
static __always_inline void copa_round(struct copa_priv *c, __u32 cwnd)
{
	__u8 dir = cwnd > c->cwnd_at_round ? DIR_UP : cwnd < c->cwnd_at_round ? DIR_DOWN : DIR_NONE;

	if (dir != DIR_NONE && dir == c->dir) {
		if (c->same_dir_rtts < 255)
			c->same_dir_rtts++;
		if (c->same_dir_rtts >= COPA_SAME_DIR_RTTS)
			c->velocity = ccb_min(c->velocity * 2, COPA_MAX_VELOCITY);
	} else {
		c->velocity = 1;
		c->same_dir_rtts = dir == DIR_NONE ? 0 : 1;
	}
	c->dir = dir;
	c->cwnd_at_round = cwnd;
}

/*
 * The per-ACK decision turned against a velocity above 1: start the new direction now, with no
 * round of it behind it yet (copa_round counts the round that just turned as the first).
 */
static __always_inline void copa_turn(struct copa_priv *c, const struct tcp_sock *tp, __u8 dir, __u32 cwnd)
{
	if (c->dir == dir || c->velocity <= 1)
		return;
	c->dir = dir;
	c->velocity = 1;
	c->same_dir_rtts = 0;
	c->cwnd_at_round = cwnd;
	c->next_round_delivered = tp->delivered;
}

SEC("struct_ops/copa_cong_control")
void BPF_PROG(copa_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa_priv *c = inet_csk_ca(sk);
	__u64 now = tp->tcp_mstamp;
	__u32 srtt = tp->srtt_us >> 3;
	__u32 acked = rs->acked_sacked > 0 ? (__u32)rs->acked_sacked : 0;
	__u32 min_rtt, standing, cwnd, dq;
	__u64 delta_fp, rate;

	/* The kernel set the window itself (timeout): start again from it. */
	if ((c->cwnd_fp >> FP) != tp->snd_cwnd) {
		c->cwnd_fp = tp->snd_cwnd << FP;
		if (ca_state(sk) == TCP_CA_Loss) {
			c->slow_start = 1;
			c->velocity = 1;
		}
	}
	if (rs->rtt_us > 0) {
		__u32 rtt = (__u32)rs->rtt_us;

		bucket_min(now, &c->min_bucket_start, &c->min_cur, &c->min_prev, COPA_MIN_RTT_WIN_US / 2, rtt);
		bucket_min(now, &c->st_bucket_start, &c->st_cur, &c->st_prev, ccb_max(srtt / 4, 1U), rtt);
	}
	min_rtt = ccb_min(c->min_cur, c->min_prev);
	standing = ccb_min(c->st_cur, c->st_prev);
	if (min_rtt == 0xffffffff || standing == 0xffffffff || !acked)
		return;
	standing = ccb_max(standing, min_rtt);
	dq = standing - min_rtt;
	cwnd = c->cwnd_fp >> FP;

	if (rs->interval_us > 0 && !before(rs->prior_delivered, c->next_round_delivered)) {
		c->next_round_delivered = tp->delivered;
		copa_round(c, cwnd);
	}

	/* lambda <= lambda_t  <=>  cwnd / standing <= 1 / (delta dq)  <=>  cwnd dq <= standing / delta */
	if ((__u64)cwnd * dq <= (__u64)standing * COPA_DELTA_INV) {
		if (c->slow_start)
			c->cwnd_fp += acked << FP;	/* doubles per RTT */
		else {
			copa_turn(c, tp, DIR_UP, cwnd);
			/* += v / (delta cwnd) per packet acked */
			delta_fp = ((__u64)c->velocity * COPA_DELTA_INV * acked << (2 * FP)) / ccb_max(c->cwnd_fp, 1U);
			c->cwnd_fp += (__u32)ccb_min(delta_fp, (__u64)c->cwnd_fp);
		}
	} else {
		c->slow_start = 0;
		copa_turn(c, tp, DIR_DOWN, cwnd);
		delta_fp = ((__u64)c->velocity * COPA_DELTA_INV * acked << (2 * FP)) / ccb_max(c->cwnd_fp, 1U);
		if (c->cwnd_fp > delta_fp + (COPA_MIN_CWND << FP))
			c->cwnd_fp -= (__u32)delta_fp;
		else
			c->cwnd_fp = COPA_MIN_CWND << FP;
	}
	c->cwnd_fp = ccb_max(c->cwnd_fp, COPA_MIN_CWND << FP);
	c->cwnd_fp = ccb_min(c->cwnd_fp, ccb_min(tp->snd_cwnd_clamp, 1U << 22) << FP);
	tp->snd_cwnd = c->cwnd_fp >> FP;

	/* Pace at twice cwnd / RTTstanding: smooths bursts, the window stays the limit. */
	rate = (__u64)2 * c->cwnd_fp * tp->mss_cache / standing * USEC_PER_SEC >> FP;
	sk->sk_pacing_rate = ccb_min(rate, (__u64)sk->sk_max_pacing_rate);
}

SEC("struct_ops/copa_ssthresh")
__u32 BPF_PROG(copa_ssthresh, struct sock *sk)
{
	return tcp_sk(sk)->snd_ssthresh;	/* no loss response in default mode */
}

SEC("struct_ops/copa_undo_cwnd")
__u32 BPF_PROG(copa_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_copa = {
	.init = (void *)copa_init,
	.cong_control = (void *)copa_cong_control,
	.ssthresh = (void *)copa_ssthresh,
	.undo_cwnd = (void *)copa_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_copa",
};
