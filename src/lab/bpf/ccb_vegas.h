/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Vegas-style RTT bookkeeping, shared by ccb_vegas and ccb_yeah (the kernel exports
 * tcp_vegas_* for this, BPF has no such kfuncs, so it lives here).
 *
 * Source: Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
 * Internet", IEEE JSAC 13(8), 1995; Linux net/ipv4/tcp_vegas.c for the details:
 *  - baseRTT = minimum RTT ever seen (propagation delay estimate);
 *  - minRTT  = minimum RTT seen in the current RTT (filters delayed ACKs);
 *  - restart the per-RTT measurement after idle, RTO and recovery, because samples
 *    taken across those events describe a stale window.
 */
#ifndef CCB_VEGAS_H
#define CCB_VEGAS_H

#include "ccb_tcp.h"

struct ccb_vegas_state {
	__u32 beg_snd_una;	/* left edge of the current RTT's window */
	__u32 beg_snd_nxt;	/* right edge: an ACK beyond it ends the RTT */
	__u32 beg_snd_cwnd;	/* cwnd at the start of the RTT */
	__u8 doing_vegas_now;	/* take samples this RTT? */
	__u8 pad8;
	__u16 cntRTT;		/* samples in the current RTT */
	__u32 minRTT;		/* us, min over the current RTT */
	__u32 baseRTT;		/* us, min over the connection */
};

static __always_inline void ccb_vegas_enable(struct sock *sk, struct ccb_vegas_state *v)
{
	v->doing_vegas_now = 1;
	v->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	v->cntRTT = 0;
	v->minRTT = 0x7fffffff;
}

static __always_inline void ccb_vegas_init(struct sock *sk, struct ccb_vegas_state *v)
{
	v->baseRTT = 0x7fffffff;
	ccb_vegas_enable(sk, v);
}

static __always_inline void ccb_vegas_sample(struct ccb_vegas_state *v, const struct ack_sample *sample)
{
	__s32 rtt_us = sample->rtt_us;
	__u32 vrtt;

	if (rtt_us < 0)
		return;
	vrtt = (__u32)rtt_us + 1;	/* never a zero RTT */
	if (vrtt < v->baseRTT)
		v->baseRTT = vrtt;
	if (vrtt < v->minRTT)
		v->minRTT = vrtt;
	v->cntRTT++;
}

static __always_inline void ccb_vegas_set_state(struct sock *sk, struct ccb_vegas_state *v, __u8 new_state)
{
	if (new_state == TCP_CA_Open)
		ccb_vegas_enable(sk, v);
	else
		v->doing_vegas_now = 0;
}

static __always_inline void ccb_vegas_cwnd_event(struct sock *sk, struct ccb_vegas_state *v, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_TX_START)
		ccb_vegas_init(sk, v);
}

#endif /* CCB_VEGAS_H */
