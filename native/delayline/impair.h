/*
 * Path impairments of ccb-delayline, decided per packet as it is read: loss (independent or
 * in bursts), jitter, netem-like reordering by an extra delay, and release times rounded up
 * to an aggregation interval. Pure arithmetic on seeded random streams, no I/O: the same
 * seed gives the same decisions for the same packet sequence.
 */
#ifndef CCB_DELAYLINE_IMPAIR_H
#define CCB_DELAYLINE_IMPAIR_H

#include <stddef.h>
#include <stdint.h>

/* xorshift64*: cheap, and good enough for delay and loss distributions. State is never 0. */
struct rng {
	uint64_t state;
};
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1). */
double rng_unit(struct rng *r);
/* Independent streams from one seed, one per kind of decision, so that switching loss on does
 * not change the jitter a seed gives. Stream 0 is the seed itself (the jitter stream, as
 * before these options existed). */
struct rng rng_stream(uint64_t seed, unsigned stream);

/*
 * Loss: none, Bernoulli (each packet dropped with probability p, independently), or a
 * two-state Gilbert-Elliott chain (Good never drops, Bad always drops).
 */
struct loss_model {
	int kind; /* LOSS_NONE, LOSS_BERNOULLI, LOSS_GILBERT_ELLIOTT */
	double p_drop;      /* Bernoulli */
	double p_good_bad;  /* Gilbert-Elliott: P(Good -> Bad) per packet */
	double p_bad_good;  /* Gilbert-Elliott: P(Bad -> Good) per packet */
	int in_bad;
	struct rng rng;
};
enum { LOSS_NONE, LOSS_BERNOULLI, LOSS_GILBERT_ELLIOTT };

/* percent in [0, 100]; burst_len 0 for Bernoulli, else >= 1. Returns -1 (and a reason in err)
 * when the pair cannot be met. */
int loss_model_init(struct loss_model *m, double percent, double burst_len, uint64_t seed, char *err, size_t errlen);
/* Decides the fate of the next packet: 1 = drop it. */
int loss_model_drops(struct loss_model *m);

/* What a kept packet's release time is made of: arrival + delay + jitter (+ reorder extra),
 * rounded up to the aggregation interval. */
struct delay_model {
	int64_t delay_ns;
	int64_t jitter_ns;          /* uniform 0..jitter_ns extra */
	int jitter_reorders;        /* 0: a packet's delayed time never precedes the previous one's */
	double reorder_prob;        /* this share of packets gets reorder_extra_ns more */
	int64_t reorder_extra_ns;
	int64_t aggregate_ns;       /* 0: off */
	struct rng jitter_rng, reorder_rng;
	int64_t last_base_ns;       /* the floor that keeps arrival order (see delay_model_release) */
};
/* The random part of one packet's release, drawn once per kept packet. */
struct release_draw {
	int64_t jitter_ns, extra_ns;
};

void delay_model_init(struct delay_model *m, uint64_t seed);
/* True when release order can differ from arrival order (needs the heap, per-packet verdicts). */
int delay_model_reorders(const struct delay_model *m);
struct release_draw delay_model_draw(struct delay_model *m);
/* The packet's release time (moves the floor that keeps arrival order). */
int64_t delay_model_release(struct delay_model *m, int64_t arrival_ns, const struct release_draw *d);
/* When a packet that arrived at arrival_ns was due, without touching the floor: the start of
 * a late-release window when the packet could only be timed from a late read. */
int64_t delay_model_due(const struct delay_model *m, int64_t arrival_ns, const struct release_draw *d);

#endif
