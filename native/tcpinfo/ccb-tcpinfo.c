// SPDX-License-Identifier: MIT
/*
 * ccb-tcpinfo: server-side ground truth for the lab. Every INTERVAL ms it asks the kernel
 * (NETLINK_SOCK_DIAG, inet_diag) for every TCP connection of the current network namespace
 * whose local port is PORT and prints one JSON line per connection:
 *   {"t":<unix s>,"local":"ip:port","remote":"ip:port","cc":"cubic","state":1,"mss":1448,
 *    "cwnd":10,"ssthresh":..,"unacked":..,"sacked":..,"lost":..,"retrans":..,
 *    "inflight_pkts":..,"inflight_bytes":..,"bytes_sent":..,"bytes_acked":..,"bytes_retrans":..,
 *    "rtt_us":..,"rttvar_us":..,"min_rtt_us":..,"delivery_rate":..,"pacing_rate":..}
 * inflight_bytes = bytes_sent - bytes_retrans - bytes_acked = snd_nxt - snd_una: the same
 * quantity a capture-based estimate measures (highest sequence sent minus highest ACK).
 * One dump per interval costs one syscall round trip, but the kernel walks the namespace's whole
 * TCP hash table for it: the host's (262,144 buckets here) unless the namespace has its own, which
 * the lab gives every origin (1,024 buckets: src/net/netns.ts). With the shared table the default
 * lab's 60 samplers dumping every 10 ms kept two cores busy in the kernel while nothing was sent.
 * An idle origin therefore only reads its namespace's TCP counters (/proc/self/net/snmp:
 * CurrEstab, PassiveOpens) each interval and dumps again once a connection is there; it dumps
 * every interval while any connection of PORT is, so no sample of a transfer is lost (data flows
 * only after the handshake, which the counters show by the next interval).
 * Run inside the origin's namespace (ip netns exec). Stops on SIGINT/SIGTERM.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static int request(int fd, int family, uint16_t port)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg;
	memset(&msg, 0, sizeof(msg));
	msg.nlh.nlmsg_len = sizeof(msg);
	msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	msg.req.sdiag_family = family;
	msg.req.sdiag_protocol = IPPROTO_TCP;
	/* Every state but LISTEN, TIME_WAIT and CLOSE: connections that can carry data. */
	msg.req.idiag_states = ~((1u << 10) | (1u << 6) | (1u << 7));
	msg.req.idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1));
	(void)port; /* filtering by port is done on the replies: simpler than a bytecode filter */
	struct sockaddr_nl nladdr = { .nl_family = AF_NETLINK };
	return sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nladdr, sizeof(nladdr)) < 0 ? -1 : 0;
}

static void fmt_addr(int family, const uint32_t *a, uint16_t port, char *out, size_t n)
{
	char ip[INET6_ADDRSTRLEN];
	inet_ntop(family, a, ip, sizeof(ip));
	snprintf(out, n, family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, ntohs(port));
}

/* Prints one connection of PORT; returns 1 if it was one (with or without tcp_info). */
static int print_conn(double t, struct inet_diag_msg *d, int len, uint16_t port)
{
	if (port && ntohs(d->id.idiag_sport) != port)
		return 0;
	struct tcp_info info;
	int have_info = 0;
	char cc[32] = "";
	memset(&info, 0, sizeof(info));
	for (struct rtattr *a = (struct rtattr *)(d + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == INET_DIAG_INFO) {
			size_t n = RTA_PAYLOAD(a) < sizeof(info) ? RTA_PAYLOAD(a) : sizeof(info);
			memcpy(&info, RTA_DATA(a), n);
			have_info = 1;
		} else if (a->rta_type == INET_DIAG_CONG) {
			snprintf(cc, sizeof(cc), "%s", (const char *)RTA_DATA(a));
		}
	}
	if (!have_info)
		return 1;
	char local[64], remote[64];
	fmt_addr(d->idiag_family, d->id.idiag_src, d->id.idiag_sport, local, sizeof(local));
	fmt_addr(d->idiag_family, d->id.idiag_dst, d->id.idiag_dport, remote, sizeof(remote));
	long long inflight_pkts = (long long)info.tcpi_unacked - info.tcpi_sacked - info.tcpi_lost + info.tcpi_retrans;
	long long inflight_bytes = (long long)info.tcpi_bytes_sent - (long long)info.tcpi_bytes_retrans - (long long)info.tcpi_bytes_acked;
	printf("{\"t\":%.6f,\"local\":\"%s\",\"remote\":\"%s\",\"cc\":\"%s\",\"state\":%u,\"ca_state\":%u,\"mss\":%u,"
	       "\"cwnd\":%u,\"ssthresh\":%u,\"unacked\":%u,\"sacked\":%u,\"lost\":%u,\"retrans\":%u,"
	       "\"inflight_pkts\":%lld,\"inflight_bytes\":%lld,\"bytes_sent\":%llu,\"bytes_acked\":%llu,\"bytes_retrans\":%llu,"
	       "\"total_retrans\":%u,\"rtt_us\":%u,\"rttvar_us\":%u,\"min_rtt_us\":%u,\"delivery_rate\":%llu,\"pacing_rate\":%llu}\n",
	       t, local, remote, cc, d->idiag_state, info.tcpi_ca_state, info.tcpi_snd_mss,
	       info.tcpi_snd_cwnd, info.tcpi_snd_ssthresh, info.tcpi_unacked, info.tcpi_sacked, info.tcpi_lost, info.tcpi_retrans,
	       inflight_pkts, inflight_bytes, (unsigned long long)info.tcpi_bytes_sent, (unsigned long long)info.tcpi_bytes_acked,
	       (unsigned long long)info.tcpi_bytes_retrans, info.tcpi_total_retrans, info.tcpi_rtt, info.tcpi_rttvar, info.tcpi_min_rtt,
	       (unsigned long long)info.tcpi_delivery_rate, (unsigned long long)info.tcpi_pacing_rate);
	return 1;
}

static double realtime_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

/* Dumps FAMILY's connections of PORT; returns how many there were, or -1. */
static int dump(int fd, int family, uint16_t port)
{
	int seen = 0;
	static char buf[1 << 16];
	if (request(fd, family, port) < 0)
		return -1;
	/*
	 * Stamp after the request: the kernel fills the first dump buffer inside sendmsg, so the
	 * snapshot is already taken. A stamp read before it was measured up to ~30 ms early on a
	 * loaded host (the sampler descheduled between the clock read and the request).
	 */
	double t = realtime_now();
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR && !stop)
				continue;
			return -1;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return seen;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			struct inet_diag_msg *d = NLMSG_DATA(h);
			seen += print_conn(t, d, h->nlmsg_len - NLMSG_LENGTH(sizeof(*d)), port);
		}
	}
}

/*
 * This namespace's TCP counters: established connections now and passive opens so far.
 * Returns 0, or -1 when they cannot be read (the caller then dumps every interval, as before).
 */
static int tcp_counters(int fd, long *curr_estab, long *passive_opens)
{
	static char buf[8192];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* Two "Tcp:" lines: the field names, then the values. */
	char *names = strstr(buf, "\nTcp:");
	char *values = names ? strstr(names + 1, "\nTcp:") : NULL;
	if (!values)
		return -1;
	names += 5;
	values += 5;
	int found = 0;
	for (;;) {
		while (*names == ' ') names++;
		while (*values == ' ') values++;
		if (*names == '\n' || !*names || *values == '\n' || !*values)
			break;
		size_t len = strcspn(names, " \n");
		long v = strtol(values, &values, 10);
		if (len == 9 && !strncmp(names, "CurrEstab", 9)) { *curr_estab = v; found++; }
		if (len == 12 && !strncmp(names, "PassiveOpens", 12)) { *passive_opens = v; found++; }
		names += len;
	}
	return found == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint16_t port = 0;
	long interval_ms = 10;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = (uint16_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--interval-ms") && i + 1 < argc)
			interval_ms = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: ccb-tcpinfo [--port PORT] [--interval-ms 10]\n");
			return 2;
		}
	}
	if (interval_ms < 1)
		interval_ms = 1;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		perror("ccb-tcpinfo: netlink socket");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	fprintf(stderr, "ready\n");
	int snmp = open("/proc/self/net/snmp", O_RDONLY | O_CLOEXEC);
	long last_passive = -1;
	int busy = 0; /* a connection of PORT was there at the last dump */
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		/* Counters read before the dump: a connection accepted after this read is still new
		 * at the next tick, whatever state it is in by then. Unreadable counters: dump. */
		long estab = 0, passive = 0;
		int counted = snmp >= 0 && tcp_counters(snmp, &estab, &passive) == 0;
		if (!counted || estab > 0 || passive != last_passive)
			busy = 1;
		if (counted)
			last_passive = passive;
		if (busy) {
			int v4 = dump(fd, AF_INET, port), v6 = v4 < 0 ? -1 : dump(fd, AF_INET6, port);
			if (v4 < 0 || v6 < 0) {
				if (stop)
					break;
				perror("ccb-tcpinfo: dump");
			} else {
				busy = v4 + v6 > 0;
			}
		}
		fflush(stdout);
		next.tv_nsec += interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	fflush(stdout);
	return 0;
}
