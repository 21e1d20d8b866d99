// SPDX-License-Identifier: MIT
/*
 * ccb-pace.so: an LD_PRELOAD shim that turns on the kernel's TCP pacing for every connection a
 * lab origin accepts. WHY: real servers pace (fq qdisc, or SO_MAX_PACING_RATE) or not, and a
 * paced sender's bytes in flight look different at the bottleneck (no line-rate bursts). This
 * kernel has no fq qdisc, but setting SO_MAX_PACING_RATE on a socket switches it to the TCP
 * stack's internal pacing (sk_pacing_status = SK_PACING_NEEDED) at the rate the congestion
 * controller sets (Linux: 2 x cwnd / srtt in slow start, 1.2 x in congestion avoidance). The
 * maximum given is 2^40 bytes/s, far above any lab link, so it never caps that rate; it must not
 * be ~0 ("unlimited"), which the kernel takes as "no pacing asked for" (net/core/sock.c).
 *
 * Only accept() and accept4() are wrapped; everything else passes through untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <sys/socket.h>

#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif

static void pace(int fd)
{
	if (fd < 0)
		return;
	uint64_t ceiling = 1ULL << 40;
	/* Best effort: a socket that is not TCP simply refuses. */
	setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &ceiling, sizeof ceiling);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	static int (*real)(int, struct sockaddr *, socklen_t *, int);
	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
	int c = real(fd, addr, len, flags);
	pace(c);
	return c;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	static int (*real)(int, struct sockaddr *, socklen_t *);
	if (!real)
		real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
	int c = real(fd, addr, len);
	pace(c);
	return c;
}
