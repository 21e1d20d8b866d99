/*
 * ccb-delayline: a delay line for kernels without sch_netem, with the path impairments a
 * conditions grid needs (loss, jitter, reordering, aggregated release).
 *
 * Packets sent to an NFQUEUE (iptables -j NFQUEUE --queue-num N) wait in the kernel
 * until a verdict arrives. We read only each packet's metadata (id, receive stamp),
 * remember when it arrived, and accept it at arrival + D. Arrival is the kernel's receive
 * stamp unless --no-kernel-timestamps (see arrival_ns for why, and when not to use it).
 *
 * Two ways of holding packets:
 * - FIFO (the default, and whenever no option can reorder): every packet leaves in arrival
 *   order (constant delay; jitter that never lets a packet leave before the one ahead; loss;
 *   aggregation, which rounds release times up and so keeps their order). A ring is enough,
 *   and consecutive due packets share one batch verdict (it accepts every id up to the one
 *   given, so it is only right when release order is id order).
 * - Release-time heap (--reorder-percent, --jitter-reorders): release order differs from
 *   arrival order, so packets wait in a min-heap (release_heap.c) and each gets its own
 *   verdict.
 * Random decisions (impair.c) come from --seed: the same seed gives the same decisions for the
 * same packet sequence. A packet the loss model picks gets NF_DROP as soon as it is read.
 *
 * Fail closed: the queue is never configured with FAIL_OPEN, and iptables rules must
 * not use --queue-bypass, so if this program dies the kernel drops the traffic
 * instead of passing it unshaped (which would silently falsify a measurement). Every
 * packet this program does not accept (loss model, a full ring or heap) is dropped by an
 * explicit NF_DROP verdict.
 *
 * stdout protocol (read by src/shaper/delayline.ts):
 *   "ready"           once the queue is bound and configured
 *   {"lateWindowsUs":...,"packets":...}   one JSON stats line on SIGUSR1, and a final one on SIGTERM/SIGINT;
 *                                         SIGUSR2 prints one and then forgets the late windows logged so far
 * Exit codes: 0 stopped by signal, 2 bad arguments, 3 not root, 4 queue setup failed,
 *             5 runtime netlink failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "impair.h"
#include "release_heap.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define EXIT_BAD_ARGS 2
#define EXIT_NOT_ROOT 3
#define EXIT_QUEUE_SETUP 4
#define EXIT_RUNTIME 5

#define RT_PRIORITY 50
/* Without kernel arrival stamps: wake from ppoll this long before a release, then
 * finish with an absolute clock_nanosleep (ppoll's timeout is relative, the sleep exact). */
#define SLEEP_GUARD_NS 50000LL
/* With kernel arrival stamps: within this much of a release (at most a quarter of the
 * delay), sleep through arrivals and read them afterwards. Bounds how late a packet is read. */
#define READ_BATCH_NS 500000LL
#define LATE_THRESHOLD_NS 1000000LL
/* Kernel stamps older than this at read time are not trusted (see arrival_ns). */
#define MAX_STAMP_LAG_NS 20000000LL
/* How many late-release windows the stats keep (see struct late_window). */
#define LATE_LOG_MAX 4096

struct held_packet {
	uint32_t id;
	int64_t release_ns;
};

/* FIFO of packets waiting for their release time. The kernel never holds more than
 * queue-maxlen packets awaiting a verdict, so a ring of that size cannot overflow in
 * practice; if it ever did we drop (fail closed) and count it. */
struct ring {
	struct held_packet *slots;
	size_t capacity, head, count;
};

/* A stretch of due times whose packets left more than LATE_THRESHOLD_NS late: packets due in
 * [due_real_ns, released_real_ns] left no earlier than their due time and no later than
 * released_real_ns (overlapping windows are merged). This program's timing is
 * exact on an idle machine, so such windows are the host's (a VM descheduled, a kernel without
 * preemption busy elsewhere): the shaper check uses them to tell host stalls from the link. */
struct late_window {
	int64_t due_real_ns, released_real_ns;
};

struct stats {
	uint64_t packets;
	uint64_t kernel_stamped; /* packets whose arrival time came from the kernel */
	uint64_t read_lag_over_1ms;
	int64_t max_read_lag_ns;
	uint64_t max_held;
	uint64_t late_over_1ms;
	int64_t max_late_ns;
	uint64_t enobufs;
	uint64_t ring_overflows; /* packets dropped because the ring (or heap) was full */
	uint64_t verdict_errors;
	uint64_t dropped_loss;   /* packets the loss model dropped */
	struct late_window late_log[LATE_LOG_MAX];
	size_t late_logged;
	uint64_t late_log_dropped;
};

struct delayline {
	struct nfq_handle *h;
	struct nfq_q_handle *qh;
	int fd;
	unsigned queue_num;
	struct delay_model delay; /* delay, jitter, reorder extra, aggregation (impair.h) */
	struct loss_model loss;
	int reorders;             /* release order may differ from arrival order: heap mode */
	int64_t now_read_ns;         /* when the message being handled was read */
	int64_t real_minus_mono_ns;  /* CLOCK_REALTIME - CLOCK_MONOTONIC at that read */
	int last_packet_stamped;     /* the newest packet's arrival came from the kernel */
	int64_t read_batch_ns;       /* see READ_BATCH_NS */
	int use_kernel_stamps;
	struct ring ring;         /* FIFO mode */
	struct release_heap heap; /* heap mode */
	struct stats stats;
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t stats_requested;
static volatile sig_atomic_t forget_requested;
/* Self-pipe: a signal arriving just before ppoll still wakes it up. */
static int wake_pipe[2] = { -1, -1 };

static void wake_main_loop(void)
{
	int saved = errno;
	ssize_t ignored = write(wake_pipe[1], "x", 1);
	(void)ignored;
	errno = saved;
}
static void on_stop(int sig) { (void)sig; stop_requested = 1; wake_main_loop(); }
static void on_stats(int sig) { (void)sig; stats_requested = 1; wake_main_loop(); }
static void on_forget(int sig) { (void)sig; forget_requested = 1; wake_main_loop(); }

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from a realtime read bracketed by two monotonic ones
 * (retried when a stall fell between them, which is when it matters). */
static int64_t real_minus_mono(void)
{
	int64_t best = 0, best_gap = INT64_MAX;
	for (int i = 0; i < 4; i++) {
		struct timespec real;
		int64_t before = mono_ns();
		clock_gettime(CLOCK_REALTIME, &real);
		int64_t after = mono_ns();
		int64_t gap = after - before;
		if (gap < best_gap) {
			best_gap = gap;
			best = (int64_t)real.tv_sec * 1000000000LL + real.tv_nsec - (before + gap / 2);
		}
		if (gap < 10000) break;
	}
	return best;
}

static struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };
	return ts;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccb-delayline --queue-num N --delay-us D [--queue-maxlen 10000] [--rcvbuf-bytes 8388608]\n"
		"                     [--no-kernel-timestamps] [--seed S]\n"
		"                     [--jitter-us J [--jitter-reorders]]\n"
		"                     [--loss-percent P [--loss-burst-len L]]\n"
		"                     [--reorder-percent R --reorder-extra-us X] [--aggregate-us A]\n"
		"Holds every packet of NFQUEUE N for D microseconds, then accepts it.\n"
		"  --jitter-us J         each packet gets uniform 0..J us more, never leaving before the one ahead\n"
		"  --jitter-reorders     ...independently per packet: packets may overtake each other\n"
		"  --loss-percent P      drop P%% of packets (0..100), independently (Bernoulli)\n"
		"  --loss-burst-len L    ...in bursts of mean length L >= 1 (Gilbert-Elliott; P <= 100*L/(L+1))\n"
		"  --reorder-percent R   R%% of packets (0..100) get X us more delay, so later ones overtake them\n"
		"  --reorder-extra-us X\n"
		"  --aggregate-us A      release times rounded up to a multiple of A us: packets leave in batches\n"
		"  --seed S              seeds every random decision (default 1)\n"
		"Delay counts from the kernel's receive stamp unless --no-kernel-timestamps (then: from our read).\n"
		"Prints 'ready' when bound; SIGUSR1 prints JSON stats; SIGUSR2 prints them and forgets the\n"
		"late windows logged so far; SIGTERM/SIGINT prints them and exits.\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end != '\0' || s[0] == '-' || v > max) return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= min && v <= max)) return -1;
	*out = v;
	return 0;
}

static size_t held_count(const struct delayline *dl)
{
	return dl->reorders ? dl->heap.count : dl->ring.count;
}

/* The kernel's own counters for our queue (per network namespace): packets dropped
 * because the queue was full, and because a message could not reach us. */
static void read_kernel_queue_drops(unsigned queue_num, long long *queue_dropped, long long *user_dropped)
{
	*queue_dropped = -1;
	*user_dropped = -1;
	FILE *f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
	if (!f) return;
	unsigned qn, copy_mode;
	unsigned long portid, total, copy_range, qdrop, udrop, idseq;
	while (fscanf(f, "%u %lu %lu %u %lu %lu %lu %lu %*d", &qn, &portid, &total, &copy_mode,
		      &copy_range, &qdrop, &udrop, &idseq) == 8) {
		if (qn == queue_num) {
			*queue_dropped = (long long)qdrop;
			*user_dropped = (long long)udrop;
			break;
		}
	}
	fclose(f);
}

static void print_stats(const struct delayline *dl)
{
	long long qdrop, udrop;
	read_kernel_queue_drops(dl->queue_num, &qdrop, &udrop);
	printf("{\"lateWindowsUs\":[");
	for (size_t i = 0; i < dl->stats.late_logged; i++)
		printf("%s[%" PRId64 ",%" PRId64 "]", i ? "," : "", dl->stats.late_log[i].due_real_ns / 1000,
		       dl->stats.late_log[i].released_real_ns / 1000);
	printf("],\"lateWindowsDropped\":%" PRIu64 ",", dl->stats.late_log_dropped);
	printf("\"packets\":%" PRIu64 ",\"maxHeld\":%" PRIu64 ",\"lateReleasesOver1ms\":%" PRIu64
	       ",\"enobufs\":%" PRIu64 ",\"held\":%zu,\"maxLateUs\":%.1f,\"kernelStamped\":%" PRIu64
	       ",\"readLagOver1ms\":%" PRIu64 ",\"maxReadLagUs\":%.1f,\"ringOverflows\":%" PRIu64
	       ",\"verdictErrors\":%" PRIu64 ",\"kernelQueueDropped\":%lld,\"kernelUserDropped\":%lld"
	       ",\"droppedLoss\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"overtaken\":%" PRIu64 "}\n",
	       dl->stats.packets, dl->stats.max_held, dl->stats.late_over_1ms, dl->stats.enobufs,
	       held_count(dl), dl->stats.max_late_ns / 1000.0, dl->stats.kernel_stamped,
	       dl->stats.read_lag_over_1ms, dl->stats.max_read_lag_ns / 1000.0, dl->stats.ring_overflows,
	       dl->stats.verdict_errors, qdrop, udrop, dl->stats.dropped_loss, dl->heap.reordered, dl->heap.overtaken);
	fflush(stdout);
}

/* Remembers (in CLOCK_REALTIME, the clock of packet captures) that packets due from
 * `first_due` on left at `released` (both CLOCK_MONOTONIC). A window that overlaps the
 * previous one extends it. */
static void log_late_window(struct delayline *dl, int64_t first_due, int64_t released)
{
	int64_t offset = real_minus_mono();
	int64_t due_real = first_due + offset, released_real = released + offset;
	if (dl->stats.late_logged > 0) {
		struct late_window *last = &dl->stats.late_log[dl->stats.late_logged - 1];
		if (due_real <= last->released_real_ns && released_real >= last->due_real_ns) {
			if (due_real < last->due_real_ns) last->due_real_ns = due_real;
			if (released_real > last->released_real_ns) last->released_real_ns = released_real;
			return;
		}
	}
	if (dl->stats.late_logged == LATE_LOG_MAX) {
		dl->stats.late_log_dropped++;
		return;
	}
	struct late_window *w = &dl->stats.late_log[dl->stats.late_logged++];
	w->due_real_ns = due_real;
	w->released_real_ns = released_real;
}

/* When the packet reached this namespace. The kernel stamps it (CLOCK_REALTIME, us) as a
 * device of this namespace receives it, when timestamping is enabled system-wide (which
 * enable_kernel_timestamps() does). Using that instead of our read time keeps a late
 * wake-up of this process out of the delay. Caveat: a queue between that device and the
 * NFQUEUE hook (an ingress qdisc redirected to IFB) would be counted as part of the delay;
 * such setups pass --no-kernel-timestamps. A stamp that does not fit (clock stepped, or
 * older than MAX_STAMP_LAG_NS) falls back to the read time; when it was too old because we
 * read it after a stall, *stalled_stamp gets the stamp (else -1) so the caller can log the
 * late release that follows. */
static int64_t arrival_ns(struct delayline *dl, struct nfq_data *nfa, int64_t *stalled_stamp)
{
	*stalled_stamp = -1;
	struct timeval tv;
	if (nfq_get_timestamp(nfa, &tv) == 0) {
		int64_t mono = (int64_t)tv.tv_sec * 1000000000LL + (int64_t)tv.tv_usec * 1000 - dl->real_minus_mono_ns;
		int64_t lag = dl->now_read_ns - mono;
		if (dl->use_kernel_stamps && lag >= -2000 && lag <= MAX_STAMP_LAG_NS) {
			dl->stats.kernel_stamped++;
			dl->last_packet_stamped = 1;
			if (lag > LATE_THRESHOLD_NS) dl->stats.read_lag_over_1ms++;
			if (lag > dl->stats.max_read_lag_ns) dl->stats.max_read_lag_ns = lag;
			return mono < dl->now_read_ns ? mono : dl->now_read_ns;
		}
		/* Read after a stall longer than MAX_STAMP_LAG_NS: timed from the read, so it (and,
		 * FIFO, everything due behind it until then) leaves late without release_due seeing it. */
		if (dl->use_kernel_stamps && lag > MAX_STAMP_LAG_NS && lag < 1000000000LL) /* not a clock step */
			*stalled_stamp = mono;
	}
	dl->last_packet_stamped = 0;
	return dl->now_read_ns;
}

static void drop_packet(struct delayline *dl, uint32_t id)
{
	if (nfq_set_verdict(dl->qh, id, NF_DROP, 0, NULL) < 0) dl->stats.verdict_errors++;
}

/* Called by nfq_handle_packet for every queued packet: drop it now (loss model) or remember
 * it with its release time. */
static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
	(void)qh;
	(void)msg;
	struct delayline *dl = data;
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	if (!ph) return 0;
	uint32_t id = ntohl(ph->packet_id);
	dl->stats.packets++;
	if (loss_model_drops(&dl->loss)) {
		dl->stats.dropped_loss++;
		drop_packet(dl, id);
		return 0;
	}
	if (held_count(dl) == (dl->reorders ? dl->heap.capacity : dl->ring.capacity)) {
		dl->stats.ring_overflows++;
		drop_packet(dl, id);
		return 0;
	}
	int64_t stalled_stamp;
	int64_t arrival = arrival_ns(dl, nfa, &stalled_stamp);
	struct release_draw draw = delay_model_draw(&dl->delay);
	int64_t release = delay_model_release(&dl->delay, arrival, &draw);
	if (stalled_stamp >= 0) log_late_window(dl, delay_model_due(&dl->delay, stalled_stamp, &draw), release);
	if (dl->reorders) {
		if (release_heap_push(&dl->heap, id, release) != 0) { /* out of memory for its bookkeeping */
			dl->stats.ring_overflows++;
			drop_packet(dl, id);
			return 0;
		}
	} else {
		struct ring *r = &dl->ring;
		struct held_packet *slot = &r->slots[(r->head + r->count) % r->capacity];
		slot->id = id;
		slot->release_ns = release;
		r->count++;
	}
	if (held_count(dl) > dl->stats.max_held) dl->stats.max_held = held_count(dl);
	return 0;
}

/* Reads every message waiting on the netlink socket without blocking. */
static int drain_socket(struct delayline *dl, char *buf, size_t buflen)
{
	/* Bounded, so a burst of arrivals cannot postpone releases that fall due meanwhile. */
	for (int i = 0; i < 256; i++) {
		ssize_t n = recv(dl->fd, buf, buflen, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
			if (errno == EINTR) continue;
			/* Should not happen with NETLINK_NO_ENOBUFS; the kernel then already
			 * dropped the packets it could not tell us about. */
			if (errno == ENOBUFS) { dl->stats.enobufs++; continue; }
			fprintf(stderr, "ccb-delayline: recv on netlink socket failed: %s\n", strerror(errno));
			return -1;
		}
		dl->real_minus_mono_ns = real_minus_mono();
		dl->now_read_ns = mono_ns();
		nfq_handle_packet(dl->h, buf, (int)n);
	}
	return 0;
}

/* FIFO mode: accepts every held packet whose release time has come, oldest first. Consecutive
 * due packets share one batch verdict (valid because ids increase in FIFO order). */
static void release_due_fifo(struct delayline *dl)
{
	struct ring *r = &dl->ring;
	int64_t now = mono_ns();
	size_t due = 0;
	uint32_t last_id = 0;
	int64_t first_late_due = -1;
	while (r->count > 0) {
		struct held_packet *p = &r->slots[r->head];
		if (p->release_ns > now) break;
		int64_t late = now - p->release_ns;
		if (late > LATE_THRESHOLD_NS) {
			dl->stats.late_over_1ms++;
			if (first_late_due < 0) first_late_due = p->release_ns;
		}
		if (late > dl->stats.max_late_ns) dl->stats.max_late_ns = late;
		last_id = p->id;
		due++;
		r->head = (r->head + 1) % r->capacity;
		r->count--;
	}
	if (due == 0) return;
	int rc = due == 1 ? nfq_set_verdict(dl->qh, last_id, NF_ACCEPT, 0, NULL)
			  : nfq_set_verdict_batch(dl->qh, last_id, NF_ACCEPT);
	if (rc < 0) dl->stats.verdict_errors++;
	if (first_late_due >= 0) log_late_window(dl, first_late_due, now);
}

/* Heap mode: accepts every held packet whose release time has come, earliest release first,
 * each with its own verdict (a batch verdict would also accept lower ids still held). Sending
 * the verdicts due together in one netlink message buffer made no measurable difference at
 * 10,000 packets/s, with or without aggregation (the kernel's forwarding inside each verdict
 * call dominates), so each goes out on its own. */
static void release_due_heap(struct delayline *dl)
{
	struct release_heap *h = &dl->heap;
	int64_t now = mono_ns();
	int64_t first_late_due = -1;
	while (h->count > 0 && release_heap_next(h) <= now) {
		struct heap_entry p = release_heap_pop(h);
		int64_t late = now - p.release_ns;
		if (late > LATE_THRESHOLD_NS) {
			dl->stats.late_over_1ms++;
			if (first_late_due < 0) first_late_due = p.release_ns;
		}
		if (late > dl->stats.max_late_ns) dl->stats.max_late_ns = late;
		if (nfq_set_verdict(dl->qh, p.id, NF_ACCEPT, 0, NULL) < 0) dl->stats.verdict_errors++;
	}
	if (first_late_due >= 0) log_late_window(dl, first_late_due, now);
}

static void release_due(struct delayline *dl)
{
	if (dl->reorders) release_due_heap(dl);
	else release_due_fifo(dl);
}

static void become_realtime(void)
{
	struct sched_param sp = { .sched_priority = RT_PRIORITY };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
		fprintf(stderr, "ccb-delayline: warning: SCHED_FIFO priority %d refused (%s): delays will jitter under CPU load\n",
			RT_PRIORITY, strerror(errno));
	/* Default slack (50 us) would let the kernel coalesce our wake-ups. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
		fprintf(stderr, "ccb-delayline: warning: PR_SET_TIMERSLACK refused (%s)\n", strerror(errno));
	/* A page fault while holding packets would delay all of them. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		fprintf(stderr, "ccb-delayline: warning: mlockall refused (%s)\n", strerror(errno));
}

/* Any socket asking for receive timestamps makes the kernel stamp every packet as it
 * enters a device (as tcpdump does); nfnetlink_queue then passes the stamp to us. */
static int enable_kernel_timestamps(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0) {
		fprintf(stderr, "ccb-delayline: warning: cannot enable kernel packet timestamps (%s): "
				"arrival is taken when we read the packet\n", strerror(errno));
		if (fd >= 0) close(fd);
		return -1;
	}
	return fd; /* kept open: closing it would switch timestamps off again */
}

static int setup_queue(struct delayline *dl, uint32_t maxlen, int rcvbuf)
{
	dl->h = nfq_open();
	if (!dl->h) {
		fprintf(stderr, "ccb-delayline: cannot open a netfilter queue netlink socket: %s\n", strerror(errno));
		return -1;
	}
	dl->qh = nfq_create_queue(dl->h, (uint16_t)dl->queue_num, on_packet, dl);
	if (!dl->qh) {
		fprintf(stderr,
			"ccb-delayline: cannot bind NFQUEUE %u: %s (another process probably owns this queue "
			"in this network namespace; use another --queue-num or stop that process)\n",
			dl->queue_num, strerror(errno));
		return -1;
	}
	/* Metadata only: we need the packet id, never the payload. */
	if (nfq_set_mode(dl->qh, NFQNL_COPY_META, 0) < 0) {
		fprintf(stderr, "ccb-delayline: cannot set copy mode META: %s\n", strerror(errno));
		return -1;
	}
	/* The default maxlen (1024) silently drops packets beyond rate x delay. */
	if (nfq_set_queue_maxlen(dl->qh, maxlen) < 0) {
		fprintf(stderr, "ccb-delayline: cannot set queue max length %u: %s\n", maxlen, strerror(errno));
		return -1;
	}
	/* Explicitly clear FAIL_OPEN: a full queue must drop, never bypass the delay. */
	if (nfq_set_queue_flags(dl->qh, NFQA_CFG_F_FAIL_OPEN, 0) < 0)
		fprintf(stderr, "ccb-delayline: warning: cannot clear FAIL_OPEN flag: %s\n", strerror(errno));

	dl->fd = nfq_fd(dl->h);
	if (setsockopt(dl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0 &&
	    setsockopt(dl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0)
		fprintf(stderr, "ccb-delayline: warning: cannot set receive buffer to %d bytes: %s\n", rcvbuf,
			strerror(errno));
	int one = 1;
	if (setsockopt(dl->fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one) != 0)
		fprintf(stderr, "ccb-delayline: warning: NETLINK_NO_ENOBUFS refused: %s\n", strerror(errno));
	return 0;
}

/* Sleeps until the next held packet is due, reading arrivals meanwhile when needed. In heap
 * mode a packet read during that sleep cannot be due before it either: it arrived within
 * read_batch_ns (<= D/4) of that release and waits at least D. */
static int wait_for_work(struct delayline *dl, char *buf, size_t buflen)
{
	struct pollfd pfds[2] = { { .fd = dl->fd, .events = POLLIN }, { .fd = wake_pipe[0], .events = POLLIN } };
	struct timespec timeout, *timeout_p = NULL;
	int64_t next_release = 0;
	size_t held = held_count(dl);
	if (held > 0) {
		next_release = dl->reorders ? release_heap_next(&dl->heap) : dl->ring.slots[dl->ring.head].release_ns;
		int64_t wait = next_release - mono_ns();
		/* Release is near and arrivals carry kernel stamps: sleep exactly and read the
		 * backlog afterwards (reading late no longer shifts their release). This makes
		 * one wake-up per release at high packet rates instead of one per event. */
		if (dl->last_packet_stamped && wait <= dl->read_batch_ns) {
			struct timespec at = ns_to_timespec(next_release);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL); /* EINTR: a signal, handled by the caller */
			release_due(dl); /* before reading: the reads must not delay the release */
			return drain_socket(dl, buf, buflen);
		}
		wait -= dl->last_packet_stamped ? dl->read_batch_ns : SLEEP_GUARD_NS;
		timeout = ns_to_timespec(wait > 0 ? wait : 0);
		timeout_p = &timeout;
	}
	int n = ppoll(pfds, 2, timeout_p, NULL);
	if (n < 0) {
		if (errno == EINTR) return 0;
		fprintf(stderr, "ccb-delayline: ppoll failed: %s\n", strerror(errno));
		return -1;
	}
	if (pfds[1].revents & POLLIN) {
		char sink[64];
		while (read(wake_pipe[0], sink, sizeof sink) > 0) {}
	}
	if (pfds[0].revents & POLLNVAL) {
		fprintf(stderr, "ccb-delayline: netlink socket closed unexpectedly\n");
		return -1;
	}
	/* POLLERR here means a pending ENOBUFS: recv reports and clears it. */
	if (pfds[0].revents) return drain_socket(dl, buf, buflen);
	if (n == 0 && !dl->last_packet_stamped && held > 0) {
		/* Woke just before the head's release: finish with an exact absolute sleep. */
		struct timespec at = ns_to_timespec(next_release);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	}
	return 0;
}

static int run_loop(struct delayline *dl)
{
	static char buf[256 * 1024] __attribute__((aligned));
	while (!stop_requested) {
		if (stats_requested) {
			stats_requested = 0;
			print_stats(dl);
		}
		if (forget_requested) {
			/* A delay line kept across measurements (a probe path reused by a crawl): each
			 * measurement starts with an empty log, so LATE_LOG_MAX bounds one, not all. */
			forget_requested = 0;
			print_stats(dl);
			dl->stats.late_logged = 0;
			dl->stats.late_log_dropped = 0;
		}
		release_due(dl);
		if (wait_for_work(dl, buf, sizeof buf) < 0) return -1;
	}
	return 0;
}

/* Long options without a one-letter form. */
enum {
	OPT_LOSS_PERCENT = 256,
	OPT_LOSS_BURST_LEN,
	OPT_REORDER_PERCENT,
	OPT_REORDER_EXTRA_US,
	OPT_JITTER_REORDERS,
	OPT_AGGREGATE_US,
};

int main(int argc, char **argv)
{
	uint64_t queue_num = UINT64_MAX, delay_us = UINT64_MAX, maxlen = 10000, rcvbuf = 8u << 20, seed = 1;
	uint64_t jitter_us = 0, reorder_extra_us = 0, aggregate_us = 0;
	double loss_percent = 0, loss_burst_len = 0, reorder_percent = 0;
	int kernel_stamps = 1, jitter_reorders = 0;
	int have_jitter = 0, have_loss = 0, have_reorder_percent = 0, have_reorder_extra = 0;
	static const struct option options[] = {
		{ "queue-num", required_argument, NULL, 'q' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "queue-maxlen", required_argument, NULL, 'm' },
		{ "rcvbuf-bytes", required_argument, NULL, 'r' },
		{ "no-kernel-timestamps", no_argument, NULL, 'n' },
		{ "jitter-us", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "loss-percent", required_argument, NULL, OPT_LOSS_PERCENT },
		{ "loss-burst-len", required_argument, NULL, OPT_LOSS_BURST_LEN },
		{ "reorder-percent", required_argument, NULL, OPT_REORDER_PERCENT },
		{ "reorder-extra-us", required_argument, NULL, OPT_REORDER_EXTRA_US },
		{ "jitter-reorders", no_argument, NULL, OPT_JITTER_REORDERS },
		{ "aggregate-us", required_argument, NULL, OPT_AGGREGATE_US },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "q:d:m:r:nj:s:h", options, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'q': bad = parse_u64(optarg, 65535, &queue_num); break;
		case 'd': bad = parse_u64(optarg, 3600ULL * 1000000ULL, &delay_us); break;
		case 'm': bad = parse_u64(optarg, 10000000, &maxlen) || maxlen == 0; break;
		case 'r': bad = parse_u64(optarg, INT_MAX / 2, &rcvbuf) || rcvbuf < 65536; break;
		case 'n': kernel_stamps = 0; break;
		case 'j': bad = parse_u64(optarg, 60ULL * 1000000ULL, &jitter_us); have_jitter = 1; break;
		case 's': bad = parse_u64(optarg, UINT64_MAX - 1, &seed); break;
		case OPT_LOSS_PERCENT: bad = parse_double(optarg, 0, 100, &loss_percent); have_loss = 1; break;
		case OPT_LOSS_BURST_LEN: bad = parse_double(optarg, 1, 1e9, &loss_burst_len); break;
		case OPT_REORDER_PERCENT: bad = parse_double(optarg, 0, 100, &reorder_percent); have_reorder_percent = 1; break;
		case OPT_REORDER_EXTRA_US: bad = parse_u64(optarg, 60ULL * 1000000ULL, &reorder_extra_us); have_reorder_extra = 1; break;
		case OPT_JITTER_REORDERS: jitter_reorders = 1; break;
		case OPT_AGGREGATE_US: bad = parse_u64(optarg, 60ULL * 1000000ULL, &aggregate_us); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_BAD_ARGS;
		}
		if (bad) {
			const char *name = "?";
			for (const struct option *o = options; o->name; o++)
				if (o->val == opt) name = o->name;
			fprintf(stderr, "ccb-delayline: invalid value for --%s: '%s' (see --help for the allowed range)\n", name, optarg);
			return EXIT_BAD_ARGS;
		}
	}
	if (optind != argc || queue_num == UINT64_MAX || delay_us == UINT64_MAX) {
		fprintf(stderr, "ccb-delayline: --queue-num and --delay-us are required\n");
		usage(stderr);
		return EXIT_BAD_ARGS;
	}
	const char *conflict = loss_burst_len > 0 && !have_loss ? "--loss-burst-len needs --loss-percent"
			       : have_reorder_percent != have_reorder_extra ? "--reorder-percent and --reorder-extra-us go together"
			       : jitter_reorders && !have_jitter ? "--jitter-reorders needs --jitter-us"
			       : NULL;
	if (conflict) {
		fprintf(stderr, "ccb-delayline: %s\n", conflict);
		return EXIT_BAD_ARGS;
	}

	static struct delayline dl; /* static: the late log is large */
	char why[200];
	if (loss_model_init(&dl.loss, loss_percent, loss_burst_len, seed, why, sizeof why) != 0) {
		fprintf(stderr, "ccb-delayline: %s\n", why);
		return EXIT_BAD_ARGS;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ccb-delayline: must run as root (binding an NFQUEUE needs CAP_NET_ADMIN, "
				"real-time priority needs CAP_SYS_NICE)\n");
		return EXIT_NOT_ROOT;
	}

	dl.queue_num = (unsigned)queue_num;
	dl.delay = (struct delay_model){
		.delay_ns = (int64_t)delay_us * 1000,
		.jitter_ns = (int64_t)jitter_us * 1000,
		.jitter_reorders = jitter_reorders,
		.reorder_prob = reorder_percent / 100.0,
		.reorder_extra_ns = (int64_t)reorder_extra_us * 1000,
		.aggregate_ns = (int64_t)aggregate_us * 1000,
	};
	delay_model_init(&dl.delay, seed);
	dl.reorders = delay_model_reorders(&dl.delay);
	dl.read_batch_ns = dl.delay.delay_ns / 4 < READ_BATCH_NS ? dl.delay.delay_ns / 4 : READ_BATCH_NS;
	dl.use_kernel_stamps = kernel_stamps;
	/* The kernel holds at most maxlen packets for us; the margin is for the ones in flight. */
	size_t capacity = (size_t)maxlen + 64;
	int no_memory;
	if (dl.reorders) {
		no_memory = release_heap_init(&dl.heap, capacity) != 0;
	} else {
		dl.ring.capacity = capacity;
		dl.ring.slots = calloc(capacity, sizeof *dl.ring.slots);
		no_memory = !dl.ring.slots;
	}
	if (no_memory) {
		fprintf(stderr, "ccb-delayline: out of memory for %zu held packets\n", capacity);
		return EXIT_QUEUE_SETUP;
	}

	if (pipe2(wake_pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
		fprintf(stderr, "ccb-delayline: pipe2 failed: %s\n", strerror(errno));
		return EXIT_QUEUE_SETUP;
	}
	/* No SA_RESTART: a signal interrupts clock_nanosleep/ppoll and the loop sees the flag. */
	struct sigaction sa = { 0 };
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_stats;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_forget;
	sigaction(SIGUSR2, &sa, NULL);

	become_realtime();
	int ts_fd = kernel_stamps ? enable_kernel_timestamps() : -1;
	if (setup_queue(&dl, (uint32_t)maxlen, (int)rcvbuf) != 0) {
		if (dl.qh) nfq_destroy_queue(dl.qh);
		if (dl.h) nfq_close(dl.h);
		return EXIT_QUEUE_SETUP;
	}
	printf("ready\n");
	fflush(stdout);

	int rc = run_loop(&dl);
	/* Unbinding makes the kernel drop what we still hold: fail closed, never bypass. */
	print_stats(&dl);
	nfq_destroy_queue(dl.qh);
	nfq_close(dl.h);
	free(dl.ring.slots);
	release_heap_free(&dl.heap);
	if (ts_fd >= 0) close(ts_fd);
	return rc == 0 ? 0 : EXIT_RUNTIME;
}
