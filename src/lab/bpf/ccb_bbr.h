/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * BBRv2 and BBRv3 as BPF struct_ops congestion controllers (.cong_control with the
 * kernel's rate sample). One implementation, two parameter sets: bbr2.bpf.c and
 * bbr3.bpf.c set CCB_BBR_VERSION, the state map's and the ops' names, and include this
 * file (programs and ops table included).
 *
 * Sources: the IETF CCWG draft (draft-ietf-ccwg-bbr, "BBRv3") for the algorithm and its
 * state machine; the BBRv2 material (draft-cardwell-iccrg-bbr-congestion-control-02 and
 * the ICCRG presentations) for what v2 did differently; Linux google/bbr (v3 branch
 * tcp_bbr.c, v2alpha tcp_bbr2.c) as the reference for constants and for the details the
 * drafts leave open. docs/lab-cca.md lists every constant and where it comes from.
 *
 * The model (per ACK):
 *  - max_bw: windowed max of delivery-rate samples over the last 2 ProbeBW cycles;
 *    min_rtt: min RTT over 10 s; probe_rtt_min: min RTT over 5 s (schedules ProbeRTT);
 *  - short-term lower bounds bw_lo / inflight_lo, cut once per round with loss (or ECN)
 *    to max(latest, beta x bound), beta = 0.7, outside bandwidth probing;
 *  - long-term upper bound inflight_hi: set on leaving Startup for loss, cut to
 *    max(inflight when the loss happened, 0.7 x target) when a bandwidth probe sees
 *    > 2% loss (or > 50% CE marks), raised 1, 2, 4, ... packets per round in ProbeBW_UP;
 *  - states Startup -> Drain -> ProbeBW {DOWN, CRUISE, REFILL, UP} <-> ProbeRTT;
 *  - ProbeBW: DOWN (pacing < 1) until in flight <= BDP and <= inflight_hi - 15%
 *    headroom; CRUISE at 1.0 until a wall clock of 2-3 s or min(63, BDP) rounds
 *    (Reno coexistence) passes; REFILL one round at 1.0 with the lower bounds reset; UP
 *    at 1.25 until the queue builds (v2) or the bandwidth plateaus (v3), or loss;
 *  - ProbeRTT when the 5 s min RTT expires: cwnd = max(4, BDP/2) for max(200 ms, 1 round).
 *  - pacing rate = gain x bw x 0.99, pacing turned on (sk_pacing_status = NEEDED: this
 *    kernel's TCP paces internally, there is no fq qdisc).
 *
 * Differences forced by BPF on a mainline kernel (documented in docs/lab-cca.md):
 *  - mainline's rate sample has no tx_in_flight / lost per packet, and there is no
 *    skb_marked_lost hook: the loss rate of a probe is measured per packet-timed round
 *    (packets marked lost since the round began against the in-flight level at its
 *    start, the flight those losses came from), checked on every ACK;
 *  - there is no is_ece in the rate sample: CE feedback is rs->delivered_ce; ECN is used
 *    when negotiated and min_rtt <= 5 ms (Linux also needs a per-route "low" ECN flag
 *    this kernel lacks); the lab never marks, so ECN is inert there;
 *  - no TLP-recovery event, no fast-ack mode, no PLB, no fast path;
 *  - state lives in a BPF socket-storage map (it does not fit the 104-byte private area).
 */
#ifndef CCB_BBR_H
#define CCB_BBR_H

#include "ccb_tcp.h"

#if !defined(CCB_BBR_VERSION) || !defined(CCB_BBR_MAP) || !defined(CCB_BBR_OPS)
#error "define CCB_BBR_VERSION (2 or 3), CCB_BBR_MAP and CCB_BBR_OPS before including ccb_bbr.h"
#endif

/* Gains are fractions scaled by 256 (BBR_UNIT); bandwidth is packets per second << 16. */
#define BBR_SCALE 8
#define BBR_UNIT (1 << BBR_SCALE)
#define BW_SHIFT 16
#define BW_UNIT (1ULL << BW_SHIFT)
#define INF32 0xffffffffU
#define INF64 0xffffffffffffffffULL

#define SK_PACING_NEEDED_VAL 1
#define TCP_ECN_OK_FLAG 1

enum ccb_bbr_mode { MODE_STARTUP, MODE_DRAIN, MODE_PROBE_BW, MODE_PROBE_RTT };
enum ccb_bbr_phase { PHASE_UP, PHASE_DOWN, PHASE_CRUISE, PHASE_REFILL };
enum ccb_bbr_ack_phase { ACKS_INIT, ACKS_REFILLING, ACKS_PROBE_STARTING, ACKS_PROBE_FEEDBACK, ACKS_PROBE_STOPPING };

/* ---- constants common to v2 and v3 (Linux google/bbr, both branches) ---- */
#define BBR_MIN_RTT_WIN_US (10 * USEC_PER_SEC)	/* min_rtt filter */
#define BBR_PROBE_RTT_WIN_US (5 * USEC_PER_SEC)	/* probe_rtt_min filter: ProbeRTT every ~5 s */
#define BBR_PROBE_RTT_MODE_US (200 * USEC_PER_MSEC)	/* time at the ProbeRTT window */
#define BBR_PROBE_RTT_CWND_GAIN (BBR_UNIT / 2)	/* ProbeRTT window: half the BDP */
#define BBR_CWND_MIN_TARGET 4
#define BBR_PACING_MARGIN_PCT 1			/* pace 1% below the estimate */
#define BBR_DRAIN_GAIN (BBR_UNIT * 1000 / 2885)	/* 1/2.885 */
#define BBR_CWND_GAIN (BBR_UNIT * 2)
#define BBR_UP_GAIN (BBR_UNIT * 5 / 4)
#define BBR_FULL_BW_THRESH (BBR_UNIT * 5 / 4)	/* Startup: bw grew by 25%? */
#define BBR_FULL_BW_CNT 3			/* ... not for 3 rounds: pipe full */
#define BBR_BETA (BBR_UNIT * 30 / 100)		/* multiplicative cut by 30% (x 0.7) */
#define BBR_LOSS_THRESH (BBR_UNIT * 2 / 100)	/* 2% loss: inflight too high */
#define BBR_ECN_THRESH (BBR_UNIT / 2)		/* 50% CE: inflight too high */
#define BBR_ECN_FACTOR (BBR_UNIT / 3)
#define BBR_ECN_ALPHA_GAIN (BBR_UNIT / 16)
#define BBR_ECN_MAX_RTT_US 5000
#define BBR_FULL_ECN_CNT 2
#define BBR_HEADROOM (BBR_UNIT * 15 / 100)	/* leave 15% of inflight_hi unused */
#define BBR_PIF_GAIN (BBR_UNIT * 5 / 4)		/* v2 UP exit: in flight >= 1.25 BDP */
#define BBR_PROBE_MAX_ROUNDS 63			/* Reno coexistence bound */
#define BBR_PROBE_RAND_ROUNDS 2
#define BBR_PROBE_BASE_US (2 * USEC_PER_SEC)	/* wall clock between probes: 2-3 s */
#define BBR_PROBE_RAND_US (1 * USEC_PER_SEC)
#define BBR_EXTRA_ACKED_WIN_RTTS 5
#define BBR_EXTRA_ACKED_MAX_US (100 * USEC_PER_MSEC)

/* ---- what v2 and v3 set differently ---- */
#if CCB_BBR_VERSION == 3
#define BBR_STARTUP_PACING_GAIN (BBR_UNIT * 277 / 100 + 1)	/* 4 ln 2 = 2.77 */
#define BBR_STARTUP_CWND_GAIN (BBR_UNIT * 2)
#define BBR_DOWN_GAIN (BBR_UNIT * 91 / 100)			/* Linux v3 (draft: 0.90) */
#define BBR_UP_CWND_GAIN (BBR_CWND_GAIN + BBR_UNIT / 4)		/* 2.25 in ProbeBW_UP */
#define BBR_FULL_LOSS_CNT 6
#define BBR_ECN_REPROBE_GAIN (BBR_UNIT / 2)
#else
#define BBR_STARTUP_PACING_GAIN (BBR_UNIT * 2885 / 1000 + 1)	/* 2/ln 2 = 2.885 */
#define BBR_STARTUP_CWND_GAIN (BBR_UNIT * 2885 / 1000 + 1)
#define BBR_DOWN_GAIN (BBR_UNIT * 3 / 4)
#define BBR_UP_CWND_GAIN BBR_CWND_GAIN
#define BBR_FULL_LOSS_CNT 8
#define BBR_ECN_REPROBE_GAIN 0
#endif

struct ccb_bbr {
	/* model */
	__u64 max_bw[2];		/* windowed max over 2 ProbeBW cycles (pkts/s << 16) */
	__u64 bw_lo;			/* short-term lower bound (INF64: unset) */
	__u64 bw_latest;		/* max delivery rate in the latest round */
	__u64 full_bw;			/* bw at the last 25% growth (Startup, v3 UP) */
	__u32 inflight_hi;		/* long-term upper bound, packets (INF32: unset) */
	__u32 inflight_lo;		/* short-term lower bound (INF32: unset) */
	__u32 inflight_latest;		/* max delivered per sample in the latest round */
	__u32 min_rtt_us;
	__u32 probe_rtt_min_us;
	__u32 init_cwnd;
	__u64 min_rtt_stamp;		/* tcp_mstamp (us) of min_rtt */
	__u64 probe_rtt_min_stamp;
	__u64 probe_rtt_done_stamp;	/* 0: not yet at the ProbeRTT window */
	__u64 cycle_stamp;		/* start of the ProbeBW phase (wall clock) */
	__u32 next_round_delivered;
	__u32 rounds_since_probe;
	__u32 prior_cwnd;
	__u32 full_bw_cnt;
	__u32 probe_wait_us;
	__u32 bw_probe_up_rounds;
	__u32 bw_probe_up_cnt;
	__u32 bw_probe_up_acks;
	__u32 loss_events_in_round;
	__u32 startup_ecn_rounds;
	/* loss rate of the current round (mainline has no per-packet tx_in_flight/lost) */
	__u32 round_lost0;		/* tp->lost at the start of the round */
	__u32 round_inflight0;		/* packets in flight at the start of the round */
	/* ECN */
	__u32 ecn_alpha;
	__u32 alpha_last_delivered;
	__u32 alpha_last_delivered_ce;
	/* ACK aggregation */
	__u64 ack_epoch_stamp;
	__u32 ack_epoch_acked;
	__u32 extra_acked[2];
	__u32 extra_acked_win_rtts;
	__u32 extra_acked_win_idx;
	/* undo */
	__u64 undo_bw_lo;
	__u32 undo_inflight_lo;
	__u32 undo_inflight_hi;
	__u16 pacing_gain;
	__u16 cwnd_gain;
	__u8 mode;
	__u8 phase;
	__u8 ack_phase;
	__u8 prev_ca_state;
	__u8 round_start;
	__u8 full_bw_reached;
	__u8 full_bw_now;
	__u8 idle_restart;
	__u8 probe_rtt_round_done;
	__u8 bw_probe_samples;
	__u8 prev_probe_too_high;
	__u8 stopped_risky_probe;
	__u8 loss_in_round;
	__u8 ecn_in_round;
	__u8 loss_in_cycle;
	__u8 ecn_in_cycle;
	__u8 ecn_eligible;
	__u8 has_seen_rtt;
	__u8 packet_conservation;	/* v2: first round of recovery */
};

CCB_SK_STATE_MAP(CCB_BBR_MAP, struct ccb_bbr);

static __always_inline struct ccb_bbr *bbr_of(struct sock *sk)
{
	return bpf_sk_storage_get(&CCB_BBR_MAP, sk, 0, 0);
}

static __always_inline __u32 packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

static __always_inline __u32 kernel_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

static __always_inline __u64 max_bw(const struct ccb_bbr *b)
{
	return ccb_max(b->max_bw[0], b->max_bw[1]);
}

/* The bandwidth the controller acts on: the max filter bounded by the short-term bound. */
static __always_inline __u64 bbr_bw(const struct ccb_bbr *b)
{
	return ccb_min(max_bw(b), b->bw_lo);
}

/* bw (pkts/s << 16) x gain -> bytes/s, less the pacing margin. */
static __always_inline __u64 rate_bytes_per_sec(const struct sock *sk, __u64 bw, __u32 gain, __u32 margin_pct)
{
	__u64 mss = tcp_sk(sk)->mss_cache;
	__u64 rate = bw * mss;

	rate = (rate * gain) >> BBR_SCALE;
	rate = rate * (100 - margin_pct) / 100;
	rate >>= BW_SHIFT;
	return rate ? rate : 1;
}

static __always_inline __u64 pacing_rate_of(struct sock *sk, __u64 bw, __u32 gain)
{
	__u64 rate = rate_bytes_per_sec(sk, bw, gain, BBR_PACING_MARGIN_PCT);

	return ccb_min(rate, (__u64)sk->sk_max_pacing_rate);
}

/* Startup's first pacing rate: startup gain x cwnd / RTT (1 ms if no RTT yet). */
static __always_inline void init_pacing_rate(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rtt_us = USEC_PER_MSEC;
	__u64 bw;

	if (tp->srtt_us) {
		rtt_us = ccb_max(tp->srtt_us >> 3, 1U);
		b->has_seen_rtt = 1;
	}
	bw = ((__u64)tp->snd_cwnd * USEC_PER_SEC << BW_SHIFT) / rtt_us;
	sk->sk_pacing_rate = pacing_rate_of(sk, bw, BBR_STARTUP_PACING_GAIN);
}

static __always_inline void set_pacing_rate(struct sock *sk, struct ccb_bbr *b, __u64 bw, __u32 gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = pacing_rate_of(sk, bw, gain);

	if (!b->has_seen_rtt && tp->srtt_us)
		init_pacing_rate(sk, b);
	/* Until the pipe is full, never slow down (the estimate is still catching up). */
	if (b->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

/* ceil(bw x min_rtt x gain), packets. Before any RTT sample: the initial window. */
static __always_inline __u32 bdp(const struct ccb_bbr *b, __u64 bw, __u32 gain)
{
	__u64 w;

	if (b->min_rtt_us == INF32)
		return b->init_cwnd;
	w = bw * b->min_rtt_us / USEC_PER_SEC;		/* packets << 16 */
	w = (w * gain) >> BBR_SCALE;
	return (__u32)((w + BW_UNIT - 1) >> BW_SHIFT);
}

/* Segments per transmit burst the stack will use at this pacing rate (1 ms of data,
 * plus a min_rtt-based allowance that vanishes above a few ms), at least 2. */
static __always_inline __u32 tso_segs_goal(const struct sock *sk, const struct ccb_bbr *b)
{
	__u32 mss = tcp_sk(sk)->mss_cache;
	__u64 bytes = sk->sk_pacing_rate >> 10;
	__u32 r = b->min_rtt_us >> 9;

	if (r < 32)
		bytes += 65536U >> r;
	bytes = ccb_min(bytes, (__u64)65536);
	if (!mss)
		return 2;
	return ccb_max((__u32)(bytes / mss), 2U);
}

/* Room for full-size bursts in flight, never below 4 packets; v3 adds 2 in ProbeBW_UP so
 * the probe gets in flight above the BDP even when the BDP is tiny. */
static __always_inline __u32 quantization_budget(const struct sock *sk, const struct ccb_bbr *b, __u32 cwnd)
{
	cwnd = ccb_max(cwnd, 3 * tso_segs_goal(sk, b));
	cwnd = ccb_max(cwnd, (__u32)BBR_CWND_MIN_TARGET);
#if CCB_BBR_VERSION == 3
	if (b->mode == MODE_PROBE_BW && b->phase == PHASE_UP)
		cwnd += 2;
#endif
	return cwnd;
}

static __always_inline __u32 inflight_at(const struct sock *sk, const struct ccb_bbr *b, __u64 bw, __u32 gain)
{
	return quantization_budget(sk, b, bdp(b, bw, gain));
}

/* Packets still in the network when the next packet leaves (the pacing timer may hold it). */
static __always_inline __u32 in_net_at_edt(const struct sock *sk, const struct ccb_bbr *b, __u32 inflight_now)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u64 now_ns = tp->tcp_clock_cache;
	__u64 edt_ns = ccb_max(tp->tcp_wstamp_ns, now_ns);
	__u64 interval_us = (edt_ns - now_ns) / 1000;
	__u64 delivered = (bbr_bw(b) * interval_us / USEC_PER_SEC) >> BW_SHIFT;
	__u32 at_edt = inflight_now;

	if (b->pacing_gain > BBR_UNIT)
		at_edt += tso_segs_goal(sk, b);
	if (delivered >= at_edt)
		return 0;
	return at_edt - (__u32)delivered;
}

static __always_inline __u32 extra_acked(const struct ccb_bbr *b)
{
	return ccb_max(b->extra_acked[0], b->extra_acked[1]);
}

static __always_inline __u32 ack_aggregation_cwnd(const struct ccb_bbr *b)
{
	__u64 max_aggr = (bbr_bw(b) * BBR_EXTRA_ACKED_MAX_US / USEC_PER_SEC) >> BW_SHIFT;

	return (__u32)ccb_min((__u64)extra_acked(b), max_aggr);
}

static __always_inline __u32 probe_rtt_cwnd(const struct ccb_bbr *b)
{
	return ccb_max((__u32)BBR_CWND_MIN_TARGET, bdp(b, bbr_bw(b), BBR_PROBE_RTT_CWND_GAIN));
}

/* How much do we want in flight? The BDP, unless congestion already cut cwnd below it. */
static __always_inline __u32 target_inflight(const struct sock *sk, const struct ccb_bbr *b)
{
	return ccb_min(inflight_at(sk, b, bbr_bw(b), BBR_UNIT), tcp_sk(sk)->snd_cwnd);
}

static __always_inline __u32 inflight_with_headroom(const struct ccb_bbr *b)
{
	__u32 headroom;

	if (b->inflight_hi == INF32)
		return INF32;
	headroom = ccb_max((__u32)(((__u64)b->inflight_hi * BBR_HEADROOM) >> BBR_SCALE), 1U);
	if (b->inflight_hi <= headroom + BBR_CWND_MIN_TARGET)
		return BBR_CWND_MIN_TARGET;
	return b->inflight_hi - headroom;
}

static __always_inline bool is_probing_bw(const struct ccb_bbr *b)
{
	return b->mode == MODE_STARTUP ||
	       (b->mode == MODE_PROBE_BW && (b->phase == PHASE_REFILL || b->phase == PHASE_UP));
}

static __always_inline bool elapsed_in_phase(const struct tcp_sock *tp, const struct ccb_bbr *b, __u64 interval_us)
{
	return tp->tcp_mstamp > b->cycle_stamp + interval_us;
}

static __always_inline void save_cwnd(const struct tcp_sock *tp, struct ccb_bbr *b)
{
	if (b->prev_ca_state < TCP_CA_Recovery && b->mode != MODE_PROBE_RTT)
		b->prior_cwnd = tp->snd_cwnd;
	else
		b->prior_cwnd = ccb_max(b->prior_cwnd, tp->snd_cwnd);
}

static __always_inline void reset_full_bw(struct ccb_bbr *b)
{
	b->full_bw = 0;
	b->full_bw_cnt = 0;
	b->full_bw_now = 0;
}

static __always_inline void reset_lower_bounds(struct ccb_bbr *b)
{
	b->bw_lo = INF64;
	b->inflight_lo = INF32;
}

static __always_inline void reset_congestion_signals(struct ccb_bbr *b)
{
	b->loss_in_round = 0;
	b->ecn_in_round = 0;
	b->loss_in_cycle = 0;
	b->ecn_in_cycle = 0;
	b->bw_latest = 0;
	b->inflight_latest = 0;
}

/* Each ProbeBW cycle the max filter forgets the older of its two windows. */
static __always_inline void advance_max_bw_filter(struct ccb_bbr *b)
{
	if (!b->max_bw[1])
		return;
	b->max_bw[0] = b->max_bw[1];
	b->max_bw[1] = 0;
}

static __always_inline void pick_probe_wait(struct ccb_bbr *b)
{
	b->rounds_since_probe = bpf_get_prandom_u32() % BBR_PROBE_RAND_ROUNDS;
	b->probe_wait_us = BBR_PROBE_BASE_US + bpf_get_prandom_u32() % BBR_PROBE_RAND_US;
}

/* Each round of ProbeBW_UP doubles how fast inflight_hi grows (1, 2, 4, ... per round). */
static __always_inline void raise_inflight_hi_slope(const struct tcp_sock *tp, struct ccb_bbr *b)
{
	__u32 growth = 1U << (b->bw_probe_up_rounds & 31);

	b->bw_probe_up_rounds = ccb_min(b->bw_probe_up_rounds + 1, 30U);
	b->bw_probe_up_cnt = ccb_max(tp->snd_cwnd / growth, 1U);
}

static __always_inline void start_refill(const struct tcp_sock *tp, struct ccb_bbr *b, __u32 up_rounds)
{
	reset_lower_bounds(b);
	b->bw_probe_up_rounds = up_rounds;
	b->bw_probe_up_acks = 0;
	b->stopped_risky_probe = 0;
	b->ack_phase = ACKS_REFILLING;
	b->next_round_delivered = tp->delivered;
	b->phase = PHASE_REFILL;
}

static __always_inline void start_up(const struct tcp_sock *tp, struct ccb_bbr *b, __u64 sample_bw)
{
	b->ack_phase = ACKS_PROBE_STARTING;
	b->next_round_delivered = tp->delivered;
	b->cycle_stamp = tp->tcp_mstamp;
	reset_full_bw(b);
	b->full_bw = sample_bw;
	b->phase = PHASE_UP;
	raise_inflight_hi_slope(tp, b);
}

static __always_inline void start_down(const struct tcp_sock *tp, struct ccb_bbr *b)
{
	reset_congestion_signals(b);
	b->bw_probe_up_cnt = INF32;
	pick_probe_wait(b);
	b->cycle_stamp = tp->tcp_mstamp;
	b->ack_phase = ACKS_PROBE_STOPPING;
	b->next_round_delivered = tp->delivered;
	b->phase = PHASE_DOWN;
}

static __always_inline void start_cruise(struct ccb_bbr *b)
{
	if (b->inflight_lo != INF32)
		b->inflight_lo = ccb_min(b->inflight_lo, b->inflight_hi);
	b->phase = PHASE_CRUISE;
}

/* Loss over the current round against the flight it came from, or CE marks, too high? */
static __always_inline bool inflight_too_high(const struct tcp_sock *tp, const struct ccb_bbr *b,
					      const struct rate_sample *rs)
{
	__u32 lost = tp->lost - b->round_lost0;
	__u32 tx_in_flight = ccb_max(b->round_inflight0, 1U);

	if (lost > 0 && lost > (((__u64)tx_in_flight * BBR_LOSS_THRESH) >> BBR_SCALE))
		return true;
	if (b->ecn_eligible && rs->delivered_ce > 0 && rs->delivered > 0 &&
	    (__u32)rs->delivered_ce > (((__u64)(__u32)rs->delivered * BBR_ECN_THRESH) >> BBR_SCALE))
		return true;
	return false;
}

/* A bandwidth probe overfilled the path: bound inflight_hi and stop probing (once per probe). */
static __always_inline void handle_inflight_too_high(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);

	b->prev_probe_too_high = 1;
	b->bw_probe_samples = 0;
	if (!rs->is_app_limited)
		b->inflight_hi = ccb_max(b->round_inflight0,
					 (__u32)(((__u64)target_inflight(sk, b) * (BBR_UNIT - BBR_BETA)) >> BBR_SCALE));
	if (b->mode == MODE_PROBE_BW && b->phase == PHASE_UP)
		start_down(tp, b);
}

/* In ProbeBW_UP without too much loss: push inflight_hi up, faster each round. */
static __always_inline void probe_inflight_hi_upward(const struct tcp_sock *tp, struct ccb_bbr *b,
						     const struct rate_sample *rs)
{
	__u32 delta;

	if (!BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited) || tp->snd_cwnd < b->inflight_hi)
		return;	/* not using all of inflight_hi: no evidence more fits */
	b->bw_probe_up_acks += rs->acked_sacked;
	if (b->bw_probe_up_cnt && b->bw_probe_up_acks >= b->bw_probe_up_cnt) {
		delta = b->bw_probe_up_acks / b->bw_probe_up_cnt;
		b->bw_probe_up_acks -= delta * b->bw_probe_up_cnt;
		b->inflight_hi += delta;
	}
	if (b->round_start)
		raise_inflight_hi_slope(tp, b);
}

/* Upper bounds from the feedback of a bandwidth probe. Returns true if it chose a phase. */
static __always_inline bool adapt_upper_bounds(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (b->ack_phase == ACKS_PROBE_STARTING && b->round_start)
		b->ack_phase = ACKS_PROBE_FEEDBACK;
	if (b->ack_phase == ACKS_PROBE_STOPPING && b->round_start) {
		/* The probe's samples are all in: forget the previous cycle's bandwidth. */
		b->bw_probe_samples = 0;
		b->ack_phase = ACKS_INIT;
		if (b->mode == MODE_PROBE_BW && !rs->is_app_limited)
			advance_max_bw_filter(b);
		/* Reached inflight_hi without high loss: hold it a round, then probe beyond it. */
		if (b->mode == MODE_PROBE_BW && b->stopped_risky_probe && !b->prev_probe_too_high) {
			start_refill(tp, b, 0);
			return true;
		}
	}
	if (inflight_too_high(tp, b, rs)) {
		if (b->bw_probe_samples)
			handle_inflight_too_high(sk, b, rs);
	} else {
		if (b->inflight_hi == INF32)
			return false;
		/* A higher level proved safe (in any phase): raise the bound to it. */
		if (b->round_inflight0 > b->inflight_hi)
			b->inflight_hi = b->round_inflight0;
		if (b->mode == MODE_PROBE_BW && b->phase == PHASE_UP)
			probe_inflight_hi_upward(tp, b, rs);
	}
	return false;
}

static __always_inline bool reno_coexistence_probe_time(const struct sock *sk, const struct ccb_bbr *b)
{
	__u32 rounds = ccb_min((__u32)BBR_PROBE_MAX_ROUNDS, target_inflight(sk, b));

	return b->rounds_since_probe >= rounds;
}

static __always_inline __u32 ilog2_u32(__u32 v)
{
	__u32 r = 0;

	if (v >= 1U << 16) { v >>= 16; r += 16; }
	if (v >= 1U << 8) { v >>= 8; r += 8; }
	if (v >= 1U << 4) { v >>= 4; r += 4; }
	if (v >= 1U << 2) { v >>= 2; r += 2; }
	if (v >= 1U << 1) r += 1;
	return r;
}

static __always_inline bool check_time_to_probe_bw(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);

	/* v3: ECN marks but no loss this cycle, and the marks stopped: re-probe quickly. */
	if (BBR_ECN_REPROBE_GAIN && b->ecn_eligible && b->ecn_in_cycle && !b->loss_in_cycle &&
	    ca_state(sk) == TCP_CA_Open) {
		__u32 n = ilog2_u32((__u32)(((__u64)b->inflight_hi * BBR_ECN_REPROBE_GAIN) >> BBR_SCALE));

		start_refill(tp, b, n);
		return true;
	}
	if (elapsed_in_phase(tp, b, b->probe_wait_us) || reno_coexistence_probe_time(sk, b)) {
		start_refill(tp, b, 0);
		return true;
	}
	return false;
}

static __always_inline bool time_to_cruise(const struct sock *sk, const struct ccb_bbr *b, __u32 inflight, __u64 bw)
{
	if (inflight > inflight_with_headroom(b))
		return false;	/* always leave headroom below inflight_hi */
	return inflight <= inflight_at(sk, b, bw, BBR_UNIT);
}

/* The ProbeBW state machine: DOWN -> CRUISE -> REFILL -> UP -> DOWN ... */
static __noinline void update_cycle_phase(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs,
					  __u64 sample_bw)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 inflight;
	__u64 bw;

	if (!b->full_bw_reached)
		return;
	if (adapt_upper_bounds(sk, b, rs))
		return;
	if (b->mode != MODE_PROBE_BW)
		return;
	inflight = in_net_at_edt(sk, b, rs->prior_in_flight);
	bw = max_bw(b);

	switch (b->phase) {
	case PHASE_CRUISE:
		check_time_to_probe_bw(sk, b);
		break;
	case PHASE_REFILL:
		/* After a round at the estimated bw, the samples reflect the refilled pipe. */
		if (b->round_start) {
			b->bw_probe_samples = 1;
			start_up(tp, b, sample_bw);
		}
		break;
	case PHASE_UP: {
		bool done = false;

		if (b->prev_probe_too_high && inflight >= b->inflight_hi) {
			/* Back at the level that lost last time: stop before it loses again. */
			b->stopped_risky_probe = 1;
			done = true;
		} else {
#if CCB_BBR_VERSION == 3
			if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited) && tp->snd_cwnd >= b->inflight_hi) {
				/* inflight_hi, not the path, limits growth: keep probing. */
				reset_full_bw(b);
				b->full_bw = sample_bw;
			} else if (b->full_bw_now) {
				done = true;	/* bandwidth stopped growing: pipe full */
			}
#else
			/* v2: a queue of 1/4 BDP has built after at least one min_rtt. */
			if (elapsed_in_phase(tp, b, b->min_rtt_us) &&
			    inflight >= inflight_at(sk, b, bw, BBR_PIF_GAIN))
				done = true;
#endif
		}
		if (done) {
			b->prev_probe_too_high = 0;
			start_down(tp, b);
		}
		break;
	}
	case PHASE_DOWN:
		if (check_time_to_probe_bw(sk, b))
			break;
		if (time_to_cruise(sk, b, inflight, bw))
			start_cruise(b);
		break;
	}
}

/* Lower bounds: once per round with loss/ECN, outside probing, cut by beta (never below
 * what the latest round delivered). */
static __always_inline void adapt_lower_bounds(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 ecn_inflight_lo = INF32;

	if (is_probing_bw(b))
		return;
	if (b->ecn_in_round) {
		if (b->inflight_lo == INF32)
			b->inflight_lo = tp->snd_cwnd;
		ecn_inflight_lo = (__u32)(((__u64)b->inflight_lo *
					   (BBR_UNIT - ((b->ecn_alpha * BBR_ECN_FACTOR) >> BBR_SCALE))) >> BBR_SCALE);
	}
	if (b->loss_in_round) {
		if (b->bw_lo == INF64)
			b->bw_lo = max_bw(b);
		if (b->inflight_lo == INF32)
			b->inflight_lo = tp->snd_cwnd;
		b->bw_lo = ccb_max(b->bw_latest, (b->bw_lo * (BBR_UNIT - BBR_BETA)) >> BBR_SCALE);
		b->inflight_lo = ccb_max(b->inflight_latest,
					 (__u32)(((__u64)b->inflight_lo * (BBR_UNIT - BBR_BETA)) >> BBR_SCALE));
	}
	b->inflight_lo = ccb_min(b->inflight_lo, ecn_inflight_lo);
	b->bw_lo = ccb_max(b->bw_lo, 1ULL);
}

static __always_inline void update_congestion_signals(struct sock *sk, struct ccb_bbr *b,
						      const struct rate_sample *rs, __u64 sample_bw)
{
	if (rs->interval_us <= 0 || !rs->acked_sacked)
		return;
	if (!rs->is_app_limited || sample_bw >= max_bw(b))
		b->max_bw[1] = ccb_max(b->max_bw[1], sample_bw);
	if (rs->losses > 0)
		b->loss_in_round = 1;
	if (!b->round_start)
		return;
	adapt_lower_bounds(sk, b);
	b->loss_in_round = 0;
	b->ecn_in_round = 0;
}

/* Excess data acked beyond bw x time (ACK aggregation), max over 5-10 rounds. */
static __always_inline void update_ack_aggregation(const struct tcp_sock *tp, struct ccb_bbr *b,
						   const struct rate_sample *rs)
{
	__u32 win = BBR_EXTRA_ACKED_WIN_RTTS;
	__u64 epoch_us, expected;
	__u32 extra, idx;

	if (rs->acked_sacked <= 0 || rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (b->round_start) {
		b->extra_acked_win_rtts = ccb_min(b->extra_acked_win_rtts + 1, 31U);
		if (!b->full_bw_reached)
			win = 1;
		if (b->extra_acked_win_rtts >= win) {
			b->extra_acked_win_rtts = 0;
			b->extra_acked_win_idx = b->extra_acked_win_idx ? 0 : 1;
			if (b->extra_acked_win_idx)
				b->extra_acked[1] = 0;
			else
				b->extra_acked[0] = 0;
		}
	}
	epoch_us = tp->delivered_mstamp > b->ack_epoch_stamp ? tp->delivered_mstamp - b->ack_epoch_stamp : 0;
	expected = (bbr_bw(b) * epoch_us / USEC_PER_SEC) >> BW_SHIFT;
	if (b->ack_epoch_acked <= expected || b->ack_epoch_acked + rs->acked_sacked >= (1U << 20)) {
		b->ack_epoch_acked = 0;
		b->ack_epoch_stamp = tp->delivered_mstamp;
		expected = 0;
	}
	b->ack_epoch_acked = ccb_min(b->ack_epoch_acked + rs->acked_sacked, 0xFFFFFU);
	extra = b->ack_epoch_acked - (__u32)expected;
	extra = ccb_min(extra, tp->snd_cwnd);
	idx = b->extra_acked_win_idx;
	if (idx) {
		if (extra > b->extra_acked[1])
			b->extra_acked[1] = extra;
	} else {
		if (extra > b->extra_acked[0])
			b->extra_acked[0] = extra;
	}
}

static __always_inline void handle_queue_too_high_in_startup(const struct sock *sk, struct ccb_bbr *b)
{
	b->full_bw_reached = 1;
	b->inflight_hi = ccb_max(inflight_at(sk, b, max_bw(b), BBR_UNIT), b->inflight_latest);
}

/* Startup ends on high loss: >= full_loss_cnt loss events in a round of recovery with a
 * loss rate above 2%. */
static __always_inline void check_loss_too_high_in_startup(struct sock *sk, struct ccb_bbr *b,
							   const struct rate_sample *rs)
{
	if (b->full_bw_reached)
		return;
	if (rs->losses > 0 && b->loss_events_in_round < 15)
		b->loss_events_in_round++;
	if (b->round_start && ca_state(sk) == TCP_CA_Recovery &&
	    b->loss_events_in_round >= BBR_FULL_LOSS_CNT && inflight_too_high(tcp_sk(sk), b, rs)) {
		handle_queue_too_high_in_startup(sk, b);
		return;
	}
	if (b->round_start)
		b->loss_events_in_round = 0;
}

/* Pipe full when bandwidth stops growing by 25% for 3 rounds. */
static __always_inline void check_full_bw_reached(struct ccb_bbr *b, const struct rate_sample *rs, __u64 sample_bw)
{
#if CCB_BBR_VERSION == 3
	if (b->full_bw_now || rs->is_app_limited)
		return;
	if (sample_bw >= ((b->full_bw * BBR_FULL_BW_THRESH) >> BBR_SCALE)) {
		reset_full_bw(b);
		b->full_bw = sample_bw;
		return;
	}
	if (!b->round_start)
		return;
	b->full_bw_cnt++;
	b->full_bw_now = b->full_bw_cnt >= BBR_FULL_BW_CNT;
	if (b->full_bw_now)
		b->full_bw_reached = 1;
#else
	/* v2 checks once per round, on the max filter (as BBRv1). */
	__u64 bw = max_bw(b);

	if (b->full_bw_reached || !b->round_start || rs->is_app_limited)
		return;
	if (bw >= ((b->full_bw * BBR_FULL_BW_THRESH) >> BBR_SCALE)) {
		b->full_bw = bw;
		b->full_bw_cnt = 0;
		return;
	}
	b->full_bw_cnt++;
	if (b->full_bw_cnt >= BBR_FULL_BW_CNT)
		b->full_bw_reached = 1;
#endif
}

static __always_inline void check_drain(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (b->mode == MODE_STARTUP && b->full_bw_reached) {
		b->mode = MODE_DRAIN;
		/* ssthresh is unused by BBR; Linux v2/v3 export the BDP here when Startup ends. */
		tp->snd_ssthresh = inflight_at(sk, b, max_bw(b), BBR_UNIT);
		reset_congestion_signals(b);
	}
	if (b->mode == MODE_DRAIN &&
	    in_net_at_edt(sk, b, packets_in_flight(tp)) <= inflight_at(sk, b, max_bw(b), BBR_UNIT)) {
		b->mode = MODE_PROBE_BW;
		start_down(tp, b);
	}
}

static __always_inline void exit_probe_rtt(struct tcp_sock *tp, struct ccb_bbr *b)
{
	reset_lower_bounds(b);
	if (b->full_bw_reached) {
		b->mode = MODE_PROBE_BW;
		/* Schedule the next probe at a friendly time; in flight is below the BDP: cruise. */
		start_down(tp, b);
		start_cruise(b);
	} else {
		b->mode = MODE_STARTUP;
	}
}

static __always_inline void check_probe_rtt_done(struct tcp_sock *tp, struct ccb_bbr *b)
{
	if (!(b->probe_rtt_done_stamp && tp->tcp_mstamp > b->probe_rtt_done_stamp))
		return;
	b->probe_rtt_min_stamp = tp->tcp_mstamp;	/* next ProbeRTT ~5 s from now */
	tp->snd_cwnd = ccb_max(tp->snd_cwnd, b->prior_cwnd);
	exit_probe_rtt(tp, b);
}

/* Min RTT filters and ProbeRTT: every 5 s without a lower RTT, cut cwnd to half the BDP
 * for max(200 ms, one round). */
static __noinline void update_min_rtt(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;
	bool probe_rtt_expired = now > b->probe_rtt_min_stamp + BBR_PROBE_RTT_WIN_US;
	__u32 inflight;

	if (rs->rtt_us >= 0 &&
	    ((__u64)rs->rtt_us < b->probe_rtt_min_us || (probe_rtt_expired && !rs->is_ack_delayed))) {
		b->probe_rtt_min_us = (__u32)rs->rtt_us;
		b->probe_rtt_min_stamp = now;
	}
	if (b->probe_rtt_min_us <= b->min_rtt_us || now > b->min_rtt_stamp + BBR_MIN_RTT_WIN_US) {
		b->min_rtt_us = b->probe_rtt_min_us;
		b->min_rtt_stamp = b->probe_rtt_min_stamp;
	}
	if (probe_rtt_expired && !b->idle_restart && b->mode != MODE_PROBE_RTT) {
		b->mode = MODE_PROBE_RTT;
		save_cwnd(tp, b);
		b->probe_rtt_done_stamp = 0;
		b->ack_phase = ACKS_PROBE_STOPPING;
		b->next_round_delivered = tp->delivered;
	}
	if (b->mode == MODE_PROBE_RTT) {
		inflight = packets_in_flight(tp);
		/* Low-rate samples from this mode must not count as bandwidth samples. */
		tp->app_limited = (tp->delivered + inflight) ? (tp->delivered + inflight) : 1;
		if (!b->probe_rtt_done_stamp && inflight <= probe_rtt_cwnd(b)) {
			b->probe_rtt_done_stamp = now + BBR_PROBE_RTT_MODE_US;
			b->probe_rtt_round_done = 0;
			b->next_round_delivered = tp->delivered;
		} else if (b->probe_rtt_done_stamp) {
			if (b->round_start)
				b->probe_rtt_round_done = 1;
			if (b->probe_rtt_round_done)
				check_probe_rtt_done(tp, b);
		}
	}
	if (rs->delivered > 0)
		b->idle_restart = 0;
}

static __always_inline void update_gains(struct ccb_bbr *b)
{
	switch (b->mode) {
	case MODE_STARTUP:
		b->pacing_gain = BBR_STARTUP_PACING_GAIN;
		b->cwnd_gain = BBR_STARTUP_CWND_GAIN;
		break;
	case MODE_DRAIN:
		b->pacing_gain = BBR_DRAIN_GAIN;
		b->cwnd_gain = BBR_STARTUP_CWND_GAIN;
		break;
	case MODE_PROBE_BW:
		b->cwnd_gain = BBR_CWND_GAIN;
		if (b->phase == PHASE_UP) {
			b->pacing_gain = BBR_UP_GAIN;
			b->cwnd_gain = BBR_UP_CWND_GAIN;
		} else if (b->phase == PHASE_DOWN) {
			b->pacing_gain = BBR_DOWN_GAIN;
		} else {
			b->pacing_gain = BBR_UNIT;
		}
		break;
	default:	/* ProbeRTT */
		b->pacing_gain = BBR_UNIT;
		b->cwnd_gain = BBR_UNIT;
		break;
	}
}

/* ECN: EWMA of the CE fraction once per round (only when ECN is usable). */
static __always_inline void update_ecn_alpha(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 delivered, delivered_ce;
	__u64 ce_ratio;

	if (!b->ecn_eligible && (tp->ecn_flags & TCP_ECN_OK_FLAG) && b->min_rtt_us <= BBR_ECN_MAX_RTT_US)
		b->ecn_eligible = 1;
	if (!b->ecn_eligible)
		return;
	delivered = tp->delivered - b->alpha_last_delivered;
	delivered_ce = tp->delivered_ce - b->alpha_last_delivered_ce;
	if (delivered == 0 || delivered_ce > delivered)
		return;
	ce_ratio = ((__u64)delivered_ce << BBR_SCALE) / delivered;
	b->ecn_alpha = (__u32)ccb_min((((BBR_UNIT - BBR_ECN_ALPHA_GAIN) * (__u64)b->ecn_alpha) >> BBR_SCALE) +
				      ((BBR_ECN_ALPHA_GAIN * ce_ratio) >> BBR_SCALE), (__u64)BBR_UNIT);
	b->alpha_last_delivered = tp->delivered;
	b->alpha_last_delivered_ce = tp->delivered_ce;
	/* Startup ends after 2 rounds with more than half the data CE-marked. */
	if (!b->full_bw_reached) {
		if (ce_ratio >= BBR_ECN_THRESH)
			b->startup_ecn_rounds++;
		else
			b->startup_ecn_rounds = 0;
		if (b->startup_ecn_rounds >= BBR_FULL_ECN_CNT)
			handle_queue_too_high_in_startup(sk, b);
	}
}

#if CCB_BBR_VERSION == 2
/* v2 keeps BBRv1's loss recovery: on entering recovery cwnd = in flight + acked, then one
 * packet sent per packet delivered for a round (packet conservation); leaving recovery
 * restores the window saved before it. Returns true while conserving (cwnd is set). */
static __always_inline bool recover_or_restore(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs,
					       __u32 acked, __u32 *cwnd)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u8 state = ca_state(sk);
	__u32 w = *cwnd;

	if (rs->losses > 0)
		w = w > (__u32)rs->losses ? w - (__u32)rs->losses : 1;
	if (state == TCP_CA_Recovery && b->prev_ca_state != TCP_CA_Recovery) {
		b->packet_conservation = 1;
		b->next_round_delivered = tp->delivered;	/* the round of conservation starts now */
		w = packets_in_flight(tp) + acked;
	} else if (b->prev_ca_state >= TCP_CA_Recovery && state < TCP_CA_Recovery) {
		w = ccb_max(w, b->prior_cwnd);
		b->packet_conservation = 0;
	}
	*cwnd = w;
	if (b->packet_conservation) {
		*cwnd = ccb_max(w, packets_in_flight(tp) + acked);
		return true;
	}
	return false;
}
#endif

/* cwnd: grow toward cwnd_gain x BDP (+ ACK aggregation), snap down once the pipe is full;
 * then bound by the model: inflight_hi while probing, inflight_hi less headroom while
 * cruising or in ProbeRTT, inflight_lo always, half the BDP in ProbeRTT. */
static __noinline void set_cwnd(struct sock *sk, struct ccb_bbr *b, const struct rate_sample *rs, __u64 bw)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 acked = rs->acked_sacked > 0 ? (__u32)rs->acked_sacked : 0;
	__u32 cwnd = tp->snd_cwnd;
	__u32 target, cap;

#if CCB_BBR_VERSION == 2
	if (acked && recover_or_restore(sk, b, rs, acked, &cwnd))
		goto bound;
#endif
	if (acked) {
		target = bdp(b, bw, b->cwnd_gain) + ack_aggregation_cwnd(b);
		target = quantization_budget(sk, b, target);
		if (b->full_bw_reached)
			cwnd = ccb_min(cwnd + acked, target);
		else if (cwnd < target || cwnd < 2 * b->init_cwnd)
			cwnd = cwnd + acked;
		cwnd = ccb_max(cwnd, (__u32)BBR_CWND_MIN_TARGET);
	}
#if CCB_BBR_VERSION == 2
bound:
#endif
	cwnd = ccb_min(cwnd, tp->snd_cwnd_clamp);
	if (b->mode == MODE_PROBE_RTT)
		cwnd = ccb_min(cwnd, probe_rtt_cwnd(b));

	cap = INF32;
	if (b->mode == MODE_PROBE_BW && b->phase != PHASE_CRUISE)
		cap = b->inflight_hi;
	else if (b->mode == MODE_PROBE_RTT || (b->mode == MODE_PROBE_BW && b->phase == PHASE_CRUISE))
		cap = inflight_with_headroom(b);
	cap = ccb_min(cap, b->inflight_lo);
	cap = ccb_max(cap, (__u32)BBR_CWND_MIN_TARGET);
	tp->snd_cwnd = ccb_min(cap, cwnd);
}

static __always_inline void bbr_reset(struct sock *sk, struct ccb_bbr *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 min_rtt = kernel_min_rtt(tp);

	__builtin_memset(b, 0, sizeof(*b));
	b->init_cwnd = ccb_min(tp->snd_cwnd, 127U);
	b->prior_cwnd = tp->prior_cwnd;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	b->next_round_delivered = tp->delivered;
	b->prev_ca_state = TCP_CA_Open;
	b->probe_rtt_min_us = min_rtt ? min_rtt : INF32;
	b->min_rtt_us = b->probe_rtt_min_us;
	b->probe_rtt_min_stamp = tp->tcp_mstamp;
	b->min_rtt_stamp = tp->tcp_mstamp;
	b->mode = MODE_STARTUP;
	b->ack_epoch_stamp = tp->tcp_mstamp;
	b->bw_lo = INF64;
	b->inflight_lo = INF32;
	b->inflight_hi = INF32;
	b->bw_probe_up_cnt = INF32;
	b->ack_phase = ACKS_INIT;
	b->ecn_alpha = BBR_UNIT;
	b->round_lost0 = tp->lost;
	b->round_inflight0 = packets_in_flight(tp);
	init_pacing_rate(sk, b);
	update_gains(b);
	/* TCP paces by itself only when asked (no fq qdisc on these machines). */
	sk->sk_pacing_status = SK_PACING_NEEDED_VAL;
}

static __always_inline void bbr_init_impl(struct sock *sk)
{
	struct ccb_bbr *b = bpf_sk_storage_get(&CCB_BBR_MAP, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (b)
		bbr_reset(sk, b);
}

static __always_inline void bbr_main_impl(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccb_bbr *b = bbr_of(sk);
	__u64 sample_bw = 0;
	__u64 bw;

	if (!b)
		return;	/* no state (allocation failed): the kernel's cwnd stands */

	/* Packet-timed rounds: a round ends when a packet sent after its start is acked. */
	b->round_start = 0;
	if (rs->interval_us > 0 && !before(rs->prior_delivered, b->next_round_delivered)) {
		b->next_round_delivered = tp->delivered;
		b->round_start = 1;
		b->rounds_since_probe = ccb_min(b->rounds_since_probe + 1, 255U);
		b->packet_conservation = 0;
		update_ecn_alpha(sk, b);
	}
	if (b->ecn_eligible && rs->delivered_ce > 0)
		b->ecn_in_round = 1;
	if (rs->interval_us > 0 && rs->delivered >= 0)
		sample_bw = (((__u64)(__u32)rs->delivered * USEC_PER_SEC << BW_SHIFT) + (__u64)rs->interval_us - 1) /
			    (__u64)rs->interval_us;

	/* Latest round's delivery signals. */
	if (rs->interval_us > 0 && rs->acked_sacked) {
		b->bw_latest = ccb_max(b->bw_latest, sample_bw);
		b->inflight_latest = ccb_max(b->inflight_latest, (__u32)rs->delivered);
	}

	update_congestion_signals(sk, b, rs, sample_bw);
	update_ack_aggregation(tp, b, rs);
	check_loss_too_high_in_startup(sk, b, rs);
	check_full_bw_reached(b, rs, sample_bw);
	check_drain(sk, b);
	update_cycle_phase(sk, b, rs, sample_bw);
	update_min_rtt(sk, b, rs);

	update_gains(b);
	bw = bbr_bw(b);
	set_pacing_rate(sk, b, bw, b->pacing_gain);
	set_cwnd(sk, b, rs, bw);

	/* Advance the per-round signals. */
	if (b->round_start) {
		b->bw_latest = sample_bw;
		b->inflight_latest = rs->delivered > 0 ? (__u32)rs->delivered : 0;
		b->round_lost0 = tp->lost;
		b->round_inflight0 = rs->prior_in_flight;
	}
	b->prev_ca_state = ca_state(sk);
	if (rs->losses > 0)
		b->loss_in_cycle = 1;
	if (rs->delivered_ce > 0)
		b->ecn_in_cycle = 1;
}

/* Entering recovery: remember the window and the loss-adapted state for undo. */
static __always_inline __u32 bbr_ssthresh_impl(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccb_bbr *b = bbr_of(sk);

	if (b) {
		save_cwnd(tp, b);
		b->undo_bw_lo = b->bw_lo;
		b->undo_inflight_lo = b->inflight_lo;
		b->undo_inflight_hi = b->inflight_hi;
	}
	return tp->snd_ssthresh;
}

/* A spurious recovery: put the model back as it was. */
static __always_inline __u32 bbr_undo_cwnd_impl(struct sock *sk)
{
	struct ccb_bbr *b = bbr_of(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	/* Keeps clang from merging the two loads below into one (the verifier refuses an
	 * instruction that reads through two kinds of pointer). */
	barrier_var(cwnd);
	if (!b)
		return cwnd;
	reset_full_bw(b);
	b->loss_in_round = 0;
	b->bw_lo = ccb_max(b->bw_lo, b->undo_bw_lo);
	b->inflight_lo = ccb_max(b->inflight_lo, b->undo_inflight_lo);
	b->inflight_hi = ccb_max(b->inflight_hi, b->undo_inflight_hi);
	return b->prior_cwnd;
}

static __always_inline void bbr_set_state_impl(struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccb_bbr *b = bbr_of(sk);

	if (!b)
		return;
	if (new_state == TCP_CA_Loss) {
		b->prev_ca_state = TCP_CA_Loss;
		reset_full_bw(b);
		if (!is_probing_bw(b) && b->inflight_lo == INF32)
			b->inflight_lo = ccb_max(tp->snd_cwnd, b->prior_cwnd);
	} else if (b->prev_ca_state == TCP_CA_Loss && new_state != TCP_CA_Loss) {
		tp->snd_cwnd = ccb_max(tp->snd_cwnd, b->prior_cwnd);
	}
}

static __always_inline void bbr_cwnd_event_impl(struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccb_bbr *b;

	if (ev != CA_EVENT_TX_START || !tp->app_limited)
		return;
	b = bbr_of(sk);
	if (!b)
		return;
	/* Restarting from idle while app-limited: pace at the estimate, no faster. */
	b->idle_restart = 1;
	b->ack_epoch_stamp = tp->tcp_mstamp;
	b->ack_epoch_acked = 0;
	if (b->mode == MODE_PROBE_BW)
		set_pacing_rate(sk, b, bbr_bw(b), BBR_UNIT);
	else if (b->mode == MODE_PROBE_RTT)
		check_probe_rtt_done(tp, b);
}

/* The struct_ops programs and the ops table; each .bpf.c names it (CCB_BBR_OPS, the kernel
 * name, which bpftool and ccbrowse also use to unregister it). */
#define CCB_STR2(x) #x
#define CCB_STR(x) CCB_STR2(x)

SEC("struct_ops/bbr_init")
void BPF_PROG(bbr_init, struct sock *sk)
{
	bbr_init_impl(sk);
}

SEC("struct_ops/bbr_cong_control")
void BPF_PROG(bbr_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	bbr_main_impl(sk, rs);
}

SEC("struct_ops/bbr_ssthresh")
__u32 BPF_PROG(bbr_ssthresh, struct sock *sk)
{
	return bbr_ssthresh_impl(sk);
}

SEC("struct_ops/bbr_undo_cwnd")
__u32 BPF_PROG(bbr_undo_cwnd, struct sock *sk)
{
	return bbr_undo_cwnd_impl(sk);
}

SEC("struct_ops/bbr_set_state")
void BPF_PROG(bbr_set_state, struct sock *sk, __u8 new_state)
{
	bbr_set_state_impl(sk, new_state);
}

SEC("struct_ops/bbr_cwnd_event")
void BPF_PROG(bbr_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	bbr_cwnd_event_impl(sk, ev);
}

/* Room for 3 x cwnd in the send buffer: BBR may grow cwnd even during recovery. */
SEC("struct_ops/bbr_sndbuf_expand")
__u32 BPF_PROG(bbr_sndbuf_expand, struct sock *sk)
{
	return 3;
}

SEC(".struct_ops")
struct tcp_congestion_ops CCB_BBR_OPS = {
	.init = (void *)bbr_init,
	.cong_control = (void *)bbr_cong_control,
	.ssthresh = (void *)bbr_ssthresh,
	.undo_cwnd = (void *)bbr_undo_cwnd,
	.set_state = (void *)bbr_set_state,
	.cwnd_event = (void *)bbr_cwnd_event,
	.sndbuf_expand = (void *)bbr_sndbuf_expand,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = CCB_STR(CCB_BBR_OPS),
};

#endif /* CCB_BBR_H */
