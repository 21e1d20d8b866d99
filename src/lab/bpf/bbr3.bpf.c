// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_bbr3: BBRv3 (draft-ietf-ccwg-bbr; Linux google/bbr v3 constants) as a BPF
 * struct_ops congestion controller. The algorithm is in ccb_bbr.h, shared with BBRv2.
 */
#define CCB_BBR_VERSION 3
#define CCB_BBR_MAP ccb_bbr3_stg
#include "ccb_bbr.h"

CCB_LICENSE;

SEC("struct_ops/bbr3_init")
void BPF_PROG(bbr3_init, struct sock *sk)
{
	bbr_init_impl(sk);
}

SEC("struct_ops/bbr3_cong_control")
void BPF_PROG(bbr3_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	bbr_main_impl(sk, rs);
}

SEC("struct_ops/bbr3_ssthresh")
__u32 BPF_PROG(bbr3_ssthresh, struct sock *sk)
{
	return bbr_ssthresh_impl(sk);
}

SEC("struct_ops/bbr3_undo_cwnd")
__u32 BPF_PROG(bbr3_undo_cwnd, struct sock *sk)
{
	return bbr_undo_cwnd_impl(sk);
}

SEC("struct_ops/bbr3_set_state")
void BPF_PROG(bbr3_set_state, struct sock *sk, __u8 new_state)
{
	bbr_set_state_impl(sk, new_state);
}

SEC("struct_ops/bbr3_cwnd_event")
void BPF_PROG(bbr3_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	bbr_cwnd_event_impl(sk, ev);
}

/* Room for 3 x cwnd in the send buffer: BBR may grow cwnd even during recovery. */
SEC("struct_ops/bbr3_sndbuf_expand")
__u32 BPF_PROG(bbr3_sndbuf_expand, struct sock *sk)
{
	return 3;
}

SEC(".struct_ops")
struct tcp_congestion_ops ccb_bbr3 = {
	.init = (void *)bbr3_init,
	.cong_control = (void *)bbr3_cong_control,
	.ssthresh = (void *)bbr3_ssthresh,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.set_state = (void *)bbr3_set_state,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.sndbuf_expand = (void *)bbr3_sndbuf_expand,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ccb_bbr3",
};
