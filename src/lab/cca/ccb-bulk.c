// SPDX-License-Identifier: MIT
/*
 * ccb-bulk: a bulk TCP sender that samples its own socket's tcp_info, and the matching
 * receiver. Used to validate the lab's congestion controllers from the server side:
 * BPF controllers have no get_info, so `ss` shows only the name; tcp_info (cwnd,
 * ssthresh, unacked, srtt, bytes_acked, ca_state) is the ground truth.
 *
 *   ccb-bulk send --port P [--bind ADDR] [--cc NAME] [--seconds S] [--sample-ms M] [--sndbuf B]
 *       Listens, accepts one connection, writes for S seconds (default 10) and samples
 *       TCP_INFO every M ms (default 10) with poll() timeouts. Prints "# listening" when
 *       ready, then at the end "# cc NAME" (getsockopt TCP_CONGESTION of the accepted
 *       socket, read at accept and again at the end), one line per sample:
 *         t_us cwnd ssthresh unacked srtt_us min_rtt_us total_retrans bytes_acked
 *         ca_state mss delivery_rate_Bps lost pacing_rate_Bps
 *       (pacing_rate: sk_pacing_rate as the controller set it; ~0 = unlimited)
 *       and "# sent BYTES". --sndbuf caps the send buffer (SO_SNDBUF): a slow controller
 *       then has little queued data left to drain after the S seconds.
 *   ccb-bulk recv --connect ADDR --port P
 *       Reads until EOF and prints "# received BYTES SECONDS".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct sample {
	uint64_t t_us, bytes_acked, delivery_rate, pacing_rate;
	uint32_t cwnd, ssthresh, unacked, srtt, min_rtt, total_retrans, ca_state, mss, lost;
};

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void die(const char *what)
{
	fprintf(stderr, "ccb-bulk: %s: %s\n", what, strerror(errno));
	exit(2);
}

static const char *arg(int argc, char **argv, const char *name, const char *def)
{
	for (int i = 2; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return def;
}

static void cc_name(int fd, char *buf, size_t len)
{
	socklen_t l = (socklen_t)len - 1;
	memset(buf, 0, len);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &l) < 0)
		snprintf(buf, len, "?");
}

static int do_send(int argc, char **argv)
{
	int port = atoi(arg(argc, argv, "--port", "5201"));
	const char *bind_addr = arg(argc, argv, "--bind", "0.0.0.0");
	const char *cc = arg(argc, argv, "--cc", NULL);
	int sndbuf = atoi(arg(argc, argv, "--sndbuf", "0"));
	double seconds = atof(arg(argc, argv, "--seconds", "10"));
	uint64_t sample_us = (uint64_t)(atof(arg(argc, argv, "--sample-ms", "10")) * 1000);
	size_t max_samples = (size_t)(seconds * 1e6 / (double)sample_us) + 16;
	struct sample *samples = calloc(max_samples, sizeof(*samples));
	size_t n = 0;
	static char buf[65536];
	char name_start[32], name_end[32];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, lfd, fd;
	uint64_t sent = 0;

	if (!samples)
		die("calloc");
	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
		die("bad --bind");
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Set on the listener so the accepted socket starts with it (inherited). */
	if (cc && setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)) < 0)
		die("setsockopt TCP_CONGESTION");
	if (sndbuf > 0 && setsockopt(lfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		die("setsockopt SO_SNDBUF");
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(lfd, 1) < 0)
		die("listen");
	printf("# listening %s:%d\n", bind_addr, port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	cc_name(fd, name_start, sizeof(name_start));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(buf, 'x', sizeof(buf));

	uint64_t t0 = mono_us(), end = t0 + (uint64_t)(seconds * 1e6), next = t0;
	for (;;) {
		uint64_t now = mono_us();
		if (now >= next && n < max_samples) {
			struct tcp_info ti;
			socklen_t l = sizeof(ti);
			memset(&ti, 0, sizeof(ti));
			if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) == 0) {
				struct sample *s = &samples[n++];
				s->t_us = now - t0;
				s->cwnd = ti.tcpi_snd_cwnd;
				s->ssthresh = ti.tcpi_snd_ssthresh;
				s->unacked = ti.tcpi_unacked;
				s->srtt = ti.tcpi_rtt;
				s->min_rtt = ti.tcpi_min_rtt;
				s->total_retrans = ti.tcpi_total_retrans;
				s->bytes_acked = ti.tcpi_bytes_acked;
				s->ca_state = ti.tcpi_ca_state;
				s->mss = ti.tcpi_snd_mss;
				s->delivery_rate = ti.tcpi_delivery_rate;
				s->lost = ti.tcpi_lost;
				s->pacing_rate = ti.tcpi_pacing_rate;
			}
			while (next <= now)
				next += sample_us;
		}
		if (now >= end)
			break;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		uint64_t wait = next > now ? next - now : 0;
		int r = poll(&p, 1, (int)((wait + 999) / 1000));
		if (r < 0 && errno != EINTR)
			die("poll");
		if (r > 0 && (p.revents & POLLOUT)) {
			ssize_t w = send(fd, buf, sizeof(buf), MSG_NOSIGNAL);
			if (w > 0)
				sent += (uint64_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				die("send");
		} else if (r > 0 && (p.revents & (POLLERR | POLLHUP))) {
			break;
		}
	}
	cc_name(fd, name_end, sizeof(name_end));
	printf("# cc %s %s\n", name_start, name_end);
	for (size_t i = 0; i < n; i++) {
		struct sample *s = &samples[i];
		printf("%llu %u %u %u %u %u %u %llu %u %u %llu %u %llu\n", (unsigned long long)s->t_us, s->cwnd,
		       s->ssthresh, s->unacked, s->srtt, s->min_rtt, s->total_retrans,
		       (unsigned long long)s->bytes_acked, s->ca_state, s->mss,
		       (unsigned long long)s->delivery_rate, s->lost, (unsigned long long)s->pacing_rate);
	}
	printf("# sent %llu\n", (unsigned long long)sent);
	fflush(stdout);
	/* Let the data already queued drain before closing, so the receiver sees EOF. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	shutdown(fd, SHUT_WR);
	close(fd);
	free(samples);
	return 0;
}

static int do_recv(int argc, char **argv)
{
	int port = atoi(arg(argc, argv, "--port", "5201"));
	const char *addr = arg(argc, argv, "--connect", "127.0.0.1");
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	static char buf[1 << 17];
	uint64_t got = 0, t0;
	int fd;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		die("bad --connect");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	t0 = mono_us();
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r > 0)
			got += (uint64_t)r;
		else if (r == 0)
			break;
		else if (errno != EINTR)
			die("read");
	}
	printf("# received %llu %.3f\n", (unsigned long long)got, (double)(mono_us() - t0) / 1e6);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "send") == 0)
		return do_send(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "recv") == 0)
		return do_recv(argc, argv);
	fprintf(stderr, "usage: ccb-bulk send --port P [--bind A] [--cc NAME] [--seconds S] [--sample-ms M] [--sndbuf B]\n"
			"       ccb-bulk recv --connect A --port P\n");
	return 2;
}
