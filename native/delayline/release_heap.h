/*
 * Held packets of ccb-delayline when release order may differ from arrival order (reordering
 * options): a binary min-heap keyed by (release time, arrival number), O(log n) per push and
 * pop, ties leaving in arrival order. It also counts, as packets leave, how many overtook an
 * earlier arrival and how many were overtaken by a later one.
 */
#ifndef CCB_DELAYLINE_RELEASE_HEAP_H
#define CCB_DELAYLINE_RELEASE_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct heap_entry {
	int64_t release_ns;
	uint64_t seq; /* arrival number among held packets */
	uint32_t id;  /* NFQUEUE packet id */
};

struct release_heap {
	struct heap_entry *items;
	size_t capacity, count;
	/* Which arrival numbers in [oldest_held, next_seq) are still held: a ring of bits that
	 * grows (doubling) when one long-held packet keeps the span wider than it. */
	uint64_t *held_bits;
	uint64_t bits; /* a power of two */
	uint64_t oldest_held, next_seq;
	uint64_t newest_released_plus1; /* 0: nothing released yet */
	/* Packets released while an earlier arrival was still held (they overtook it). */
	uint64_t reordered;
	/* Packets released after a later arrival had left: what a receiver counts as reordered
	 * (a sequence number below one already seen, RFC 4737). */
	uint64_t overtaken;
};

int release_heap_init(struct release_heap *h, size_t capacity);
void release_heap_free(struct release_heap *h);
/* -1 when full (or out of memory for the arrival bits): the caller drops the packet. */
int release_heap_push(struct release_heap *h, uint32_t id, int64_t release_ns);
/* The earliest release; only when count > 0. */
static inline int64_t release_heap_next(const struct release_heap *h) { return h->items[0].release_ns; }
/* Removes the earliest entry (count > 0) and updates the reordering counters. */
struct heap_entry release_heap_pop(struct release_heap *h);

#endif
