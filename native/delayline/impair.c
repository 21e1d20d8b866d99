/* Path impairments of ccb-delayline: see impair.h. */
#include "impair.h"

#include <math.h>
#include <stdio.h>

uint64_t rng_next(struct rng *r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 0x2545F4914F6CDD1DULL;
}

double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* splitmix64's finaliser: spreads nearby seeds (1, 2, 3...) over unrelated states. */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

struct rng rng_stream(uint64_t seed, unsigned stream)
{
	uint64_t s = stream == 0 ? seed : mix(seed + 0x632BE59BD9B4E019ULL * stream);
	struct rng r = { .state = s ? s : 1 };
	return r;
}

enum { STREAM_JITTER = 0, STREAM_LOSS = 1, STREAM_REORDER = 2 };

/*
 * Gilbert-Elliott with a Good state that never drops and a Bad state that always drops.
 * With p = P(Good -> Bad) and r = P(Bad -> Good) per packet, a loss burst (a stay in Bad)
 * lasts 1/r packets on average and the long-run share of packets in Bad is p / (p + r).
 * For a mean burst length L and a loss rate P (a fraction):
 *     r = 1 / L,    p = (P / (1 - P)) / L      (then p / (p + r) = P)
 * p is a probability only while P / (1 - P) <= L, i.e. P <= L / (L + 1): a burst of mean
 * length L cannot make up more than that share of the packets (with L = 1, half of them).
 */
int loss_model_init(struct loss_model *m, double percent, double burst_len, uint64_t seed, char *err, size_t errlen)
{
	*m = (struct loss_model){ .kind = LOSS_NONE, .rng = rng_stream(seed, STREAM_LOSS) };
	double rate = percent / 100.0;
	if (!(rate >= 0 && rate <= 1)) {
		snprintf(err, errlen, "--loss-percent must be 0..100, got %g", percent);
		return -1;
	}
	if (burst_len == 0) {
		if (rate > 0) m->kind = LOSS_BERNOULLI;
		m->p_drop = rate;
		return 0;
	}
	if (!(burst_len >= 1) || !isfinite(burst_len)) {
		snprintf(err, errlen, "--loss-burst-len must be a number >= 1, got %g", burst_len);
		return -1;
	}
	if (rate > burst_len / (burst_len + 1)) {
		snprintf(err, errlen,
			 "--loss-percent %g with --loss-burst-len %g: bursts of mean length L allow at most "
			 "100*L/(L+1) = %.4g%% loss",
			 percent, burst_len, 100.0 * burst_len / (burst_len + 1));
		return -1;
	}
	if (rate > 0) m->kind = LOSS_GILBERT_ELLIOTT;
	m->p_bad_good = 1.0 / burst_len;
	m->p_good_bad = rate / (1 - rate) / burst_len;
	return 0;
}

int loss_model_drops(struct loss_model *m)
{
	switch (m->kind) {
	case LOSS_BERNOULLI:
		return rng_unit(&m->rng) < m->p_drop;
	case LOSS_GILBERT_ELLIOTT:
		/* The chain moves on every packet; the state it lands in decides this packet. */
		if (m->in_bad) m->in_bad = !(rng_unit(&m->rng) < m->p_bad_good);
		else m->in_bad = rng_unit(&m->rng) < m->p_good_bad;
		return m->in_bad;
	default:
		return 0;
	}
}

void delay_model_init(struct delay_model *m, uint64_t seed)
{
	m->jitter_rng = rng_stream(seed, STREAM_JITTER);
	m->reorder_rng = rng_stream(seed, STREAM_REORDER);
	m->last_base_ns = 0;
}

int delay_model_reorders(const struct delay_model *m)
{
	return (m->jitter_reorders && m->jitter_ns > 0) || (m->reorder_prob > 0 && m->reorder_extra_ns > 0);
}

struct release_draw delay_model_draw(struct delay_model *m)
{
	struct release_draw d = { 0, 0 };
	if (m->jitter_ns > 0) d.jitter_ns = (int64_t)(rng_next(&m->jitter_rng) % (uint64_t)(m->jitter_ns + 1));
	if (m->reorder_prob > 0 && rng_unit(&m->reorder_rng) < m->reorder_prob) d.extra_ns = m->reorder_extra_ns;
	return d;
}

/* Next multiple of `step` at or after t (t >= 0: CLOCK_MONOTONIC). */
static int64_t round_up(int64_t t, int64_t step)
{
	if (step <= 0) return t;
	int64_t r = t % step;
	return r ? t + (step - r) : t;
}

/*
 * The ordered part of a release (arrival + delay, plus the jitter unless it may reorder) never
 * precedes the previous packet's: a path's jitter does not let a packet overtake the one
 * ahead. In heap mode the floor always applies, so the only reordering is the one asked for:
 * a packet read after a host stall, timed from that read (arrival_ns in ccb-delayline.c),
 * would otherwise be overtaken by the packets behind it. The reorder extra and the reordering
 * jitter come on top of the floor, so the packets behind do overtake the packet that got them.
 * (In FIFO mode without jitter the ring keeps the order by itself, as it always has.)
 */
int64_t delay_model_release(struct delay_model *m, int64_t arrival_ns, const struct release_draw *d)
{
	int64_t ordered = arrival_ns + m->delay_ns + (m->jitter_reorders ? 0 : d->jitter_ns);
	if ((m->jitter_ns > 0 && !m->jitter_reorders) || delay_model_reorders(m)) {
		if (ordered < m->last_base_ns) ordered = m->last_base_ns;
		m->last_base_ns = ordered;
	}
	int64_t free_part = (m->jitter_reorders ? d->jitter_ns : 0) + d->extra_ns;
	return round_up(ordered + free_part, m->aggregate_ns);
}

int64_t delay_model_due(const struct delay_model *m, int64_t arrival_ns, const struct release_draw *d)
{
	return round_up(arrival_ns + m->delay_ns + d->jitter_ns + d->extra_ns, m->aggregate_ns);
}
