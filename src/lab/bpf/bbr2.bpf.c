// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ccb_bbr2: BBRv2 (BBRv2 IETF/ICCRG material; Linux google/bbr v2alpha constants) as a BPF
 * struct_ops congestion controller. The algorithm, its programs and its ops table are in
 * ccb_bbr.h, shared by BBRv2 and BBRv3; docs/lab-cca.md lists what differs.
 */
#define CCB_BBR_VERSION 2
#define CCB_BBR_MAP ccb_bbr2_stg
#define CCB_BBR_OPS ccb_bbr2
#include "ccb_bbr.h"

CCB_LICENSE;
