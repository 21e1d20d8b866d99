/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared helpers for the lab's BPF congestion controllers (struct_ops
 * tcp_congestion_ops). Each controller is written from its published description;
 * constants follow Linux's net/ipv4/tcp_<name>.c so the lab's ground truth behaves
 * like the kernel module a real server would load.
 *
 * BPF constraints that shape this code:
 *  - only these fields of the socket are writable: snd_cwnd, snd_cwnd_cnt,
 *    snd_cwnd_stamp, snd_ssthresh, the 104-byte private area (icsk_ca_priv), ...;
 *  - kfuncs available: tcp_slow_start, tcp_cong_avoid_ai, tcp_reno_cong_avoid,
 *    tcp_reno_ssthresh, tcp_reno_undo_cwnd (no tcp_vegas_* helpers);
 *  - clang 14 emits no signed BPF division: every division here is unsigned.
 */
#ifndef CCB_TCP_H
#define CCB_TCP_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* A namespace may select the algorithm with sysctl only with this flag; without it the
 * sysctl is refused and (measured) leaks a reference to the struct_ops object. */
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define ICSK_CA_PRIV_SIZE 104
#define USEC_PER_SEC 1000000ULL
#define USEC_PER_MSEC 1000ULL

#define CCB_LICENSE char _license[] SEC("license") = "Dual MIT/GPL"

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define ccb_min(a, b) ((a) < (b) ? (a) : (b))
#define ccb_max(a, b) ((a) > (b) ? (a) : (b))

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static __always_inline __u8 ca_state(const struct sock *sk)
{
	return BPF_CORE_READ_BITFIELD(inet_csk(sk), icsk_ca_state);
}

/* Sequence-space comparisons (RFC 1982 style), as include/net/tcp.h. */
static __always_inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1) before(seq1, seq2)

static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* RFC 2861: grow cwnd only while it is what limits the sender (include/net/tcp.h). */
static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	/* In slow start, let cwnd grow to twice what was in flight. */
	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

static __always_inline bool tcp_in_cwnd_reduction(const struct sock *sk)
{
	return ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery)) & (1 << ca_state(sk));
}

/* ssthresh that does not forget a recent window (include/net/tcp.h). */
static __always_inline __u32 tcp_current_ssthresh(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tcp_in_cwnd_reduction(sk))
		return tp->snd_ssthresh;
	return ccb_max(tp->snd_ssthresh, (tp->snd_cwnd >> 1) + (tp->snd_cwnd >> 2));
}

/* Monotonic time in microseconds: the clock TCP itself uses (tcp_clock_us). */
static __always_inline __u64 now_us(void)
{
	return bpf_ktime_get_ns() / 1000;
}

static __always_inline void clamp_cwnd(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < 2)
		tp->snd_cwnd = 2;
	else if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

/*
 * Kernel glitch guard. Measured on the development kernel (6.18, struct_ops): under
 * heavy loss, about once per few hundred recoveries, the kernel enters recovery without
 * running the BPF ssthresh and set_state programs (no recursion miss is counted) and
 * stores stack garbage as ssthresh (0x81104110, the low half of a return-thunk
 * address); PRR then turns it into a cwnd of ~10^9. Neither value is reachable by any
 * controller here, so every per-ACK hook checks for them and puts back what the
 * controller would have chosen from the window before the reduction (prior_cwnd).
 * One ACK of damage remains possible (docs/lab-cca.md, "Kernel glitch").
 */
#define CCB_GLITCH_CWND (1U << 24)	/* 16 M packets: never a real window */

static __always_inline bool ccb_glitched(const struct tcp_sock *tp)
{
	return tp->snd_ssthresh > TCP_INFINITE_SSTHRESH || tp->snd_cwnd >= CCB_GLITCH_CWND;
}

/* The window a reduction started from, usable as input to the controller's ssthresh. */
static __always_inline __u32 ccb_prior_cwnd(const struct tcp_sock *tp)
{
	__u32 c = tp->prior_cwnd;

	return c >= 2 && c < CCB_GLITCH_CWND ? c : 10;
}

static __always_inline void ccb_repair(struct tcp_sock *tp, __u32 ssthresh)
{
	ssthresh = ccb_max(ccb_min(ssthresh, (__u32)TCP_INFINITE_SSTHRESH), 2U);
	if (tp->snd_ssthresh > TCP_INFINITE_SSTHRESH)
		tp->snd_ssthresh = ssthresh;
	if (tp->snd_cwnd >= CCB_GLITCH_CWND)
		tp->snd_cwnd = ccb_max(ccb_min(tp->snd_ssthresh, ccb_prior_cwnd(tp)), 2U);
}

/* Per-socket state larger than the 104-byte private area lives in a socket-storage map
 * (allowed for struct_ops congestion controllers; freed with the socket). */
#define CCB_SK_STATE_MAP(map, value_type)			\
	struct {						\
		__uint(type, BPF_MAP_TYPE_SK_STORAGE);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);		\
		__type(key, int);				\
		__type(value, value_type);			\
	} map SEC(".maps")

#endif /* CCB_TCP_H */
