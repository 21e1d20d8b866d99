/*
 * ccb-delayline-selftest: checks the delay line's pure parts (impair.c, release_heap.c)
 * without a queue or root: release order and reordering counters against a brute-force
 * model, the loss models' long-run rate and burst length, and release-time arithmetic.
 * Run by tests/unit/shaper/delayline-native.test.ts; prints one line per failure, exit 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impair.h"
#include "release_heap.h"

static int failures;

#define CHECK(cond, ...)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			failures++;                                      \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);      \
			printf(__VA_ARGS__);                             \
			printf("\n");                                    \
		}                                                        \
	} while (0)

/* Used as the delay line uses it (push on arrival, pop what is due), pops come out by
 * (release, arrival) and the counters match a brute-force count. */
static void heap_matches_brute_force(void)
{
	enum { N = 20000, CAP = 500 };
	struct release_heap h;
	CHECK(release_heap_init(&h, CAP) == 0, "init");
	static unsigned char held[N];
	static int64_t release_of[N];
	struct rng r = rng_stream(42, 7);
	uint32_t pushed = 0;
	int64_t last_release = INT64_MIN;
	uint32_t last_id = 0;
	uint64_t reordered = 0, overtaken = 0;
	int64_t newest_released = -1;
	for (int64_t now = 0; pushed < N || h.count > 0; now++) {
		if (pushed < N && h.count < CAP && rng_next(&r) % 2) {
			release_of[pushed] = now + (int64_t)(rng_next(&r) % 300); /* many ties and overtakes */
			CHECK(release_heap_push(&h, pushed, release_of[pushed]) == 0, "push %u", pushed);
			held[pushed++] = 1;
		}
		while (h.count > 0 && release_heap_next(&h) <= now) {
			struct heap_entry e = release_heap_pop(&h);
			CHECK(e.release_ns == release_of[e.id], "entry %u kept its release", e.id);
			CHECK(e.release_ns > last_release || (e.release_ns == last_release && e.id > last_id),
			      "pop order: %u at %lld after %u at %lld", e.id, (long long)e.release_ns, last_id,
			      (long long)last_release);
			last_release = e.release_ns;
			last_id = e.id;
			held[e.id] = 0;
			for (uint32_t k = 0; k < e.id; k++)
				if (held[k]) { reordered++; break; }
			if (newest_released > (int64_t)e.id) overtaken++;
			else newest_released = e.id;
		}
	}
	CHECK(h.reordered == reordered && h.overtaken == overtaken, "counters %llu/%llu, brute force %llu/%llu",
	      (unsigned long long)h.reordered, (unsigned long long)h.overtaken, (unsigned long long)reordered,
	      (unsigned long long)overtaken);
	CHECK(reordered > 1000 && overtaken > 1000, "the workload reorders (%llu/%llu)", (unsigned long long)reordered,
	      (unsigned long long)overtaken);
	release_heap_free(&h);
}

/* One packet held while 300,000 pass: the arrival bits grow and the counts stay right. */
static void heap_grows_its_arrival_bits(void)
{
	struct release_heap h;
	CHECK(release_heap_init(&h, 100) == 0, "init");
	uint64_t bits = h.bits;
	release_heap_push(&h, 0, INT64_MAX);
	for (uint32_t i = 1; i <= 300000; i++) {
		release_heap_push(&h, i, i);
		CHECK(release_heap_pop(&h).id == i, "packet %u leaves at once", i);
	}
	CHECK(h.bits > bits && h.bits >= 300001, "bits grew from %llu to %llu", (unsigned long long)bits,
	      (unsigned long long)h.bits);
	CHECK(release_heap_pop(&h).id == 0, "the held packet leaves last");
	CHECK(h.reordered == 300000 && h.overtaken == 1, "reordered %llu overtaken %llu",
	      (unsigned long long)h.reordered, (unsigned long long)h.overtaken);
	CHECK(h.oldest_held == h.next_seq, "nothing held");
	release_heap_free(&h);
}

/* Long-run loss rate and mean run of consecutive losses over 2,000,000 packets. */
static void loss_rate_and_bursts(double percent, double burst_len, double want_run)
{
	struct loss_model m;
	char err[200];
	CHECK(loss_model_init(&m, percent, burst_len, 9, err, sizeof err) == 0, "init %g/%g: %s", percent, burst_len, err);
	const int n = 2000000;
	long lost = 0, runs = 0;
	int prev = 0;
	for (int i = 0; i < n; i++) {
		int d = loss_model_drops(&m);
		lost += d;
		if (d && !prev) runs++;
		prev = d;
	}
	double rate = 100.0 * lost / n, run = runs ? (double)lost / runs : 0;
	/* 4 sd of the count of a two-state chain's Bad visits: variance n P(1-P)(1+l)/(1-l), with
	 * l = 1 - p - r its second eigenvalue (0 for Bernoulli). */
	double P = percent / 100, l = m.kind == LOSS_GILBERT_ELLIOTT ? 1 - m.p_good_bad - m.p_bad_good : 0;
	double sd_points = 100 * sqrt(P * (1 - P) * (1 + l) / (1 - l) / n);
	CHECK(fabs(rate - percent) <= 4 * sd_points, "loss %g%% (bursts %g): measured %.3f%% (4 sd: %.3f)", percent, burst_len,
	      rate, 4 * sd_points);
	CHECK(fabs(run - want_run) < 0.05 * want_run + 0.01, "loss %g%% (bursts %g): mean run %.3f, want %.3f", percent,
	      burst_len, run, want_run);
}

static void loss_models(void)
{
	loss_rate_and_bursts(5, 0, 1 / 0.95);      /* independent: runs of 1/(1-p) */
	loss_rate_and_bursts(5, 4, 4);
	loss_rate_and_bursts(20, 10, 10);
	loss_rate_and_bursts(50, 1, 1);            /* the most L = 1 allows */
	struct loss_model m;
	char err[200];
	CHECK(loss_model_init(&m, 51, 1, 1, err, sizeof err) != 0 && strstr(err, "at most"), "50%% is the cap for L = 1");
	CHECK(loss_model_init(&m, 100, 0, 1, err, sizeof err) == 0, "100%% Bernoulli is allowed");
	for (int i = 0; i < 1000; i++) CHECK(loss_model_drops(&m), "100%% drops everything");
	CHECK(loss_model_init(&m, 0, 4, 1, err, sizeof err) == 0, "0%% with bursts");
	for (int i = 0; i < 1000; i++) CHECK(!loss_model_drops(&m), "0%% drops nothing");
	/* Same seed, same decisions. */
	struct loss_model a, b;
	loss_model_init(&a, 5, 4, 123, err, sizeof err);
	loss_model_init(&b, 5, 4, 123, err, sizeof err);
	int same = 1;
	for (int i = 0; i < 100000; i++) same &= loss_model_drops(&a) == loss_model_drops(&b);
	CHECK(same, "a seed repeats its decisions");
}

static void release_times(void)
{
	struct delay_model m = { .delay_ns = 5000, .aggregate_ns = 1000 };
	delay_model_init(&m, 1);
	struct release_draw none = { 0, 0 };
	CHECK(delay_model_release(&m, 1000, &none) == 6000, "a multiple stays");
	CHECK(delay_model_release(&m, 1001, &none) == 7000, "rounded up, never down");
	CHECK(!delay_model_reorders(&m), "aggregation alone keeps FIFO");

	/* Non-reordering jitter: the floor holds a packet behind the one ahead; the reorder extra comes after it. */
	struct delay_model j = { .delay_ns = 100, .jitter_ns = 50 };
	delay_model_init(&j, 1);
	struct release_draw big = { .jitter_ns = 50 }, small = { .jitter_ns = 0 }, extra = { .jitter_ns = 0, .extra_ns = 1000 };
	CHECK(delay_model_release(&j, 0, &big) == 150, "first");
	CHECK(delay_model_release(&j, 10, &small) == 150, "held to the floor");
	CHECK(delay_model_release(&j, 20, &extra) == 1150, "extra on top of the floor");
	CHECK(delay_model_release(&j, 30, &small) == 150, "the next one overtakes the delayed one");
	CHECK(delay_model_due(&j, 10, &small) == 110, "due ignores the floor");
	j.jitter_reorders = 1;
	CHECK(delay_model_reorders(&j), "jitter that may reorder needs the heap");
	CHECK(delay_model_release(&j, 200, &big) == 350, "reordering jitter on top of the floor");
	CHECK(delay_model_release(&j, 210, &small) == 310, "the next one may overtake it");

	/* Heap mode: a packet timed late (a read after a stall) is not overtaken by later arrivals. */
	struct delay_model h = { .delay_ns = 100, .reorder_prob = 0.5, .reorder_extra_ns = 1000 };
	delay_model_init(&h, 1);
	CHECK(delay_model_release(&h, 500, &none) == 600, "timed from its late read");
	CHECK(delay_model_release(&h, 450, &none) == 600, "an earlier stamp behind it waits for it");
	CHECK(delay_model_release(&h, 460, &extra) == 1600, "the asked-for extra still reorders");
	struct delay_model f = { .delay_ns = 100 };
	delay_model_init(&f, 1);
	delay_model_release(&f, 500, &none);
	CHECK(delay_model_release(&f, 450, &none) == 550, "FIFO without jitter: no floor (the ring keeps the order)");

	/* Draws stay in range, and the jitter stream is the seed itself (as before the new options). */
	struct delay_model d = { .jitter_ns = 4000, .reorder_prob = 0.1, .reorder_extra_ns = 7 };
	delay_model_init(&d, 7);
	struct rng old = { .state = 7 };
	long chosen = 0;
	for (int i = 0; i < 100000; i++) {
		struct release_draw x = delay_model_draw(&d);
		CHECK(x.jitter_ns == (int64_t)(rng_next(&old) % 4001), "jitter draw %d as before", i);
		CHECK(x.extra_ns == 0 || x.extra_ns == 7, "extra is all or nothing");
		chosen += x.extra_ns != 0;
	}
	CHECK(fabs(chosen / 1000.0 - 10) < 0.4, "reorder share %.2f%%", chosen / 1000.0);
}

int main(void)
{
	heap_matches_brute_force();
	heap_grows_its_arrival_bits();
	loss_models();
	release_times();
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
