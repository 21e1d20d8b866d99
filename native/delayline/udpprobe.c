/*
 * ccb-udpprobe: a precise UDP prober for measuring a delay line.
 *
 *   ccb-udpprobe send --dst IP --port P --rate PPS --count N [--size BYTES] [--rt-prio P]
 *   ccb-udpprobe recv --port P --count N [--idle-ms 1500] [--first-timeout-ms 5000] [--rt-prio P] [--log FILE]
 *   ccb-udpprobe echo --port P [--rt-prio P]
 *   ccb-udpprobe rtt  --dst IP --port P --rate PPS --count N [--wait-ms 2000] [--rt-prio P]
 *   ccb-udpprobe stalls --count N [--rt-prio P]
 *
 * stalls measures the host, not a network: on each CPU it may use, a thread pinned there wakes
 * N times, each at the next millisecond tick, and counts how late it woke (a stall that swallows ticks is one late wake-up, so a
 * stalling host takes longer than N ms). On an idle machine a real-time
 * thread wakes within tens of microseconds; a VM whose host deschedules it, or a kernel
 * without preemption busy elsewhere, shows wake-ups milliseconds late. Every timing
 * figure (delay line, probes, captures) carries such stalls.
 *
 * Every packet carries a sequence number and its CLOCK_MONOTONIC send time. That clock
 * is shared by all network namespaces of one machine, so a receiver in another namespace
 * gets the one-way delay by subtraction. The sender paces on an absolute schedule with
 * clock_nanosleep(TIMER_ABSTIME), so one late wake-up does not shift later packets.
 *
 * recv, send and rtt print one JSON line on stdout when done; recv and echo print
 * "ready" once bound. Delays are reported in microseconds. recv --log FILE also writes every
 * packet it received, in arrival order, as CSV lines "seq,arrival_ns,delay_ns" (arrival on
 * CLOCK_MONOTONIC): losses, loss runs, reordering and arrival clustering come from it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROBE_MAGIC 0x63636264u /* "ccbd" */
#define MAX_SIZE 1472

struct probe {
	uint32_t magic;
	uint32_t reserved;
	uint64_t seq;
	int64_t send_ns;
};

struct options {
	const char *dst;
	int port;
	double rate;
	uint64_t count;
	int size;
	int rt_prio;
	int idle_ms;
	int first_timeout_ms;
	int wait_ms;
	const char *log_path;
};

static volatile sig_atomic_t stop_requested;
static void on_stop(int sig) { (void)sig; stop_requested = 1; }

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };
	return ts;
}

static void die(const char *what)
{
	fprintf(stderr, "ccb-udpprobe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void tune_scheduling(int rt_prio)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (rt_prio <= 0) return;
	struct sched_param sp = { .sched_priority = rt_prio };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
		fprintf(stderr, "ccb-udpprobe: warning: SCHED_FIFO %d refused: %s\n", rt_prio, strerror(errno));
}

/* CPU this process used (user + system), to compare with the delay line's share. */
static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) die("socket");
	int big = 8 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
	return fd;
}

static void bind_port(int fd, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
}

static struct sockaddr_in dst_addr(const struct options *o)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	if (!o->dst || inet_pton(AF_INET, o->dst, &a.sin_addr) != 1) {
		fprintf(stderr, "ccb-udpprobe: --dst must be an IPv4 address\n");
		exit(2);
	}
	return a;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array, in microseconds. */
static double pct_us(const int64_t *sorted, size_t n, double q)
{
	if (n == 0) return -1;
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return sorted[i] / 1000.0;
}

static void print_delay_summary(const char *prefix, int64_t *delays, size_t n)
{
	qsort(delays, n, sizeof *delays, cmp_i64);
	double sum = 0;
	for (size_t i = 0; i < n; i++) sum += (double)delays[i];
	printf("%s\"minUs\":%.3f,\"p50Us\":%.3f,\"p90Us\":%.3f,\"p99Us\":%.3f,\"maxUs\":%.3f,\"meanUs\":%.3f", prefix,
	       pct_us(delays, n, 0), pct_us(delays, n, 0.5), pct_us(delays, n, 0.9), pct_us(delays, n, 0.99),
	       pct_us(delays, n, 1), n ? sum / (double)n / 1000.0 : -1);
}

/* Sends count probes at rate pps on an absolute schedule; `between` (rtt mode) runs before each wait. */
static void paced_send(int fd, const struct options *o, const struct sockaddr_in *to,
		       int (*between)(int fd, int64_t until_ns, void *ctx), void *ctx)
{
	char buf[MAX_SIZE] = { 0 };
	struct probe *p = (struct probe *)buf;
	p->magic = PROBE_MAGIC;
	int64_t interval = (int64_t)(1e9 / o->rate);
	int64_t start = mono_ns() + 1000000;
	uint64_t errors = 0, late = 0;
	for (uint64_t i = 0; i < o->count && !stop_requested; i++) {
		int64_t at = start + (int64_t)i * interval;
		if (between) {
			if (between(fd, at, ctx) != 0) break;
		}
		struct timespec ts = ns_to_timespec(at);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop_requested) {}
		p->seq = i;
		p->send_ns = mono_ns();
		if (p->send_ns - at > 100000) late++;
		if (sendto(fd, buf, (size_t)o->size, 0, (const struct sockaddr *)to, sizeof *to) < 0) errors++;
	}
	double secs = (mono_ns() - start) / 1e9;
	fprintf(stderr, "ccb-udpprobe: sent %" PRIu64 " probes in %.3f s (%" PRIu64 " send errors, %" PRIu64 " >100us late)\n",
		o->count, secs, errors, late);
	if (!between)
		printf("{\"sent\":%" PRIu64 ",\"sendErrors\":%" PRIu64 ",\"lateSendsOver100us\":%" PRIu64
		       ",\"seconds\":%.3f,\"cpuSeconds\":%.3f}\n",
		       o->count - errors, errors, late, secs, cpu_seconds());
}

static int cmd_send(const struct options *o)
{
	struct sockaddr_in to = dst_addr(o);
	int fd = udp_socket();
	paced_send(fd, o, &to, NULL, NULL);
	return 0;
}

static int cmd_recv(const struct options *o)
{
	int fd = udp_socket();
	bind_port(fd, o->port);
	int64_t *delays = calloc(o->count ? o->count : 1, sizeof *delays);
	uint8_t *seen = calloc(o->count ? o->count : 1, 1);
	/* Only with --log: which packet arrived when, in arrival order. */
	uint64_t *log_seq = o->log_path ? calloc(o->count ? o->count : 1, sizeof *log_seq) : NULL;
	int64_t *log_at = o->log_path ? calloc(o->count ? o->count : 1, sizeof *log_at) : NULL;
	if (!delays || !seen || (o->log_path && (!log_seq || !log_at))) die("calloc");
	printf("ready\n");
	fflush(stdout);
	uint64_t received = 0, duplicates = 0, reordered = 0, foreign = 0, highest = 0;
	int got_any = 0;
	char buf[2048];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	while (received < o->count && !stop_requested) {
		int n = poll(&pfd, 1, got_any ? o->idle_ms : o->first_timeout_ms);
		if (n < 0) {
			if (errno == EINTR) continue;
			die("poll");
		}
		if (n == 0) break; /* idle: the rest was lost */
		for (;;) {
			ssize_t len = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
			if (len < 0) break;
			int64_t now = mono_ns();
			const struct probe *p = (const struct probe *)buf;
			if ((size_t)len < sizeof *p || p->magic != PROBE_MAGIC || p->seq >= o->count) {
				foreign++;
				continue;
			}
			if (seen[p->seq]) {
				duplicates++;
				continue;
			}
			seen[p->seq] = 1;
			/* A packet numbered below one already received arrived out of order. */
			if (got_any && p->seq < highest) reordered++;
			if (!got_any || p->seq > highest) highest = p->seq;
			got_any = 1;
			if (log_seq) {
				log_seq[received] = p->seq;
				log_at[received] = now;
			}
			delays[received++] = now - p->send_ns;
		}
	}
	if (o->log_path) {
		FILE *f = fopen(o->log_path, "w");
		if (!f) die("fopen --log");
		for (uint64_t i = 0; i < received; i++)
			fprintf(f, "%" PRIu64 ",%" PRId64 ",%" PRId64 "\n", log_seq[i], log_at[i], delays[i]);
		if (fclose(f) != 0) die("write --log");
	}
	printf("{\"expected\":%" PRIu64 ",\"received\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"duplicates\":%" PRIu64
	       ",\"foreign\":%" PRIu64,
	       o->count, received, reordered, duplicates, foreign);
	print_delay_summary(",", delays, received);
	printf(",\"cpuSeconds\":%.3f}\n", cpu_seconds());
	fflush(stdout);
	return 0;
}

static int cmd_echo(const struct options *o)
{
	int fd = udp_socket();
	bind_port(fd, o->port);
	printf("ready\n");
	fflush(stdout);
	char buf[2048];
	uint64_t echoed = 0;
	while (!stop_requested) {
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		ssize_t len = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		if (len < 0) {
			if (errno == EINTR) continue;
			die("recvfrom");
		}
		if (sendto(fd, buf, (size_t)len, 0, (struct sockaddr *)&from, fl) >= 0) echoed++;
	}
	printf("{\"echoed\":%" PRIu64 "}\n", echoed);
	return 0;
}

struct rtt_ctx {
	int64_t *rtts;
	uint8_t *seen;
	uint64_t count, received;
};

static void read_replies(int fd, struct rtt_ctx *c)
{
	char buf[2048];
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (len < 0) return;
		int64_t now = mono_ns();
		const struct probe *p = (const struct probe *)buf;
		if ((size_t)len < sizeof *p || p->magic != PROBE_MAGIC || p->seq >= c->count || c->seen[p->seq]) continue;
		c->seen[p->seq] = 1;
		c->rtts[c->received++] = now - p->send_ns;
	}
}

/* Between sends, read replies until shortly before the next send time. */
static int rtt_between(int fd, int64_t until_ns, void *ctx)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	for (;;) {
		int64_t left = until_ns - 100000 - mono_ns();
		if (left <= 0 || stop_requested) return 0;
		struct timespec t = ns_to_timespec(left);
		if (ppoll(&pfd, 1, &t, NULL) > 0) read_replies(fd, ctx);
	}
}

static int cmd_rtt(const struct options *o)
{
	struct sockaddr_in to = dst_addr(o);
	int fd = udp_socket();
	struct rtt_ctx c = { .count = o->count };
	c.rtts = calloc(o->count ? o->count : 1, sizeof *c.rtts);
	c.seen = calloc(o->count ? o->count : 1, 1);
	if (!c.rtts || !c.seen) die("calloc");
	paced_send(fd, o, &to, rtt_between, &c);
	rtt_between(fd, mono_ns() + (int64_t)o->wait_ms * 1000000, &c);
	read_replies(fd, &c);
	printf("{\"sent\":%" PRIu64 ",\"received\":%" PRIu64, o->count, c.received);
	print_delay_summary(",", c.rtts, c.received);
	printf("}\n");
	fflush(stdout);
	return 0;
}

struct stall_sampler {
	int cpu;
	uint64_t count, wakeups, over1, over3;
	int64_t max_late, late_sum;
};

/* One CPU's sampler: wakes at each next millisecond, pinned to its CPU. */
static void *sample_cpu(void *arg)
{
	struct stall_sampler *s = arg;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(s->cpu, &one);
	int err = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
	if (err) fprintf(stderr, "ccb-udpprobe: warning: cannot pin the sampler to CPU %d: %s\n", s->cpu, strerror(err));
	int64_t next = mono_ns();
	for (s->wakeups = 0; s->wakeups < s->count && !stop_requested; s->wakeups++) {
		next += 1000000;
		struct timespec at = ns_to_timespec(next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR && !stop_requested) {}
		if (stop_requested) break; /* a cut-short sleep is not a wake-up */
		int64_t late = mono_ns() - next;
		if (late > 1000000) { s->over1++; s->late_sum += late; }
		if (late > 3000000) s->over3++;
		if (late > s->max_late) s->max_late = late;
		/* One stall is one late wake-up: skip the deadlines it swallowed. */
		if (late >= 1000000) next += (late / 1000000) * 1000000;
	}
	return NULL;
}

/*
 * One sampler per CPU this process may run on: a guest's vCPUs can be descheduled one at a
 * time, and a single sampler would wake on whichever CPU was running while the delay line
 * sat on the stalled one. Figures are summed over CPUs (the worst is the worst of any).
 */
static int cmd_stalls(const struct options *o)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) die("sched_getaffinity");
	int ncpu = CPU_COUNT(&allowed);
	struct stall_sampler *s = calloc((size_t)ncpu, sizeof *s);
	pthread_t *threads = calloc((size_t)ncpu, sizeof *threads);
	if (!s || !threads) die("calloc");
	for (int cpu = 0, i = 0; i < ncpu; cpu++) {
		if (!CPU_ISSET(cpu, &allowed)) continue;
		s[i] = (struct stall_sampler){ .cpu = cpu, .count = o->count };
		int err = pthread_create(&threads[i], NULL, sample_cpu, &s[i]);
		if (err) { errno = err; die("pthread_create"); }
		i++;
	}
	uint64_t wakeups = 0, over1 = 0, over3 = 0;
	int64_t max_late = 0, late_sum = 0;
	for (int i = 0; i < ncpu; i++) {
		pthread_join(threads[i], NULL);
		wakeups += s[i].wakeups;
		over1 += s[i].over1;
		over3 += s[i].over3;
		late_sum += s[i].late_sum;
		if (s[i].max_late > max_late) max_late = s[i].max_late;
	}
	printf("{\"cpus\":%d,\"wakeups\":%" PRIu64 ",\"lateOver1ms\":%" PRIu64 ",\"lateOver3ms\":%" PRIu64
	       ",\"maxLateUs\":%.1f,\"lateOver1msTotalMs\":%.1f}\n",
	       ncpu, wakeups, over1, over3, max_late / 1000.0, late_sum / 1e6);
	fflush(stdout);
	free(s);
	free(threads);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ccb-udpprobe send|recv|echo|rtt|stalls [options] (see the source header)\n");
		return 2;
	}
	const char *mode = argv[1];
	struct options o = { .port = -1, .rate = 1000, .count = 1000, .size = 100, .rt_prio = 0,
			     .idle_ms = 1500, .first_timeout_ms = 5000, .wait_ms = 2000 };
	static const struct option opts[] = {
		{ "dst", required_argument, NULL, 'd' },      { "port", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },     { "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },     { "rt-prio", required_argument, NULL, 'P' },
		{ "idle-ms", required_argument, NULL, 'i' },  { "first-timeout-ms", required_argument, NULL, 'f' },
		{ "wait-ms", required_argument, NULL, 'w' },  { "log", required_argument, NULL, 'l' },
		{ 0 },
	};
	int opt;
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': o.dst = optarg; break;
		case 'p': o.port = atoi(optarg); break;
		case 'r': o.rate = atof(optarg); break;
		case 'c': o.count = strtoull(optarg, NULL, 10); break;
		case 's': o.size = atoi(optarg); break;
		case 'P': o.rt_prio = atoi(optarg); break;
		case 'i': o.idle_ms = atoi(optarg); break;
		case 'f': o.first_timeout_ms = atoi(optarg); break;
		case 'w': o.wait_ms = atoi(optarg); break;
		case 'l': o.log_path = optarg; break;
		default: return 2;
		}
	}
	if (!strcmp(mode, "stalls")) {
		if (o.count == 0 || o.count > 3600000ULL) {
			fprintf(stderr, "ccb-udpprobe: stalls needs --count 1..3600000 (wake-ups, one per ms)\n");
			return 2;
		}
		struct sigaction sa = { 0 };
		sa.sa_handler = on_stop;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		tune_scheduling(o.rt_prio);
		return cmd_stalls(&o);
	}
	if (o.port <= 0 || o.port > 65535 || o.rate <= 0 || o.count == 0 || o.count > 100000000ULL) {
		fprintf(stderr, "ccb-udpprobe: need --port 1..65535, --rate > 0 and --count 1..1e8\n");
		return 2;
	}
	if (o.size < (int)sizeof(struct probe)) o.size = (int)sizeof(struct probe);
	if (o.size > MAX_SIZE) o.size = MAX_SIZE;

	struct sigaction sa = { 0 };
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	tune_scheduling(o.rt_prio);

	if (!strcmp(mode, "send")) return cmd_send(&o);
	if (!strcmp(mode, "recv")) return cmd_recv(&o);
	if (!strcmp(mode, "echo")) return cmd_echo(&o);
	if (!strcmp(mode, "rtt")) return cmd_rtt(&o);
	fprintf(stderr, "ccb-udpprobe: unknown mode '%s' (send|recv|echo|rtt|stalls)\n", mode);
	return 2;
}
