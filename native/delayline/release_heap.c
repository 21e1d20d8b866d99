/* Held packets in release-time order: see release_heap.h. */
#include "release_heap.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_BITS (1u << 16)

static int bit_get(const struct release_heap *h, uint64_t seq)
{
	uint64_t i = seq & (h->bits - 1);
	return (int)((h->held_bits[i / 64] >> (i % 64)) & 1);
}

static void bit_set(struct release_heap *h, uint64_t seq, int on)
{
	uint64_t i = seq & (h->bits - 1);
	if (on) h->held_bits[i / 64] |= 1ULL << (i % 64);
	else h->held_bits[i / 64] &= ~(1ULL << (i % 64));
}

int release_heap_init(struct release_heap *h, size_t capacity)
{
	memset(h, 0, sizeof *h);
	h->capacity = capacity;
	h->items = calloc(capacity, sizeof *h->items);
	h->bits = INITIAL_BITS;
	while (h->bits < 2 * (uint64_t)capacity) h->bits *= 2;
	h->held_bits = calloc(h->bits / 64, sizeof *h->held_bits);
	if (!h->items || !h->held_bits) {
		release_heap_free(h);
		return -1;
	}
	return 0;
}

void release_heap_free(struct release_heap *h)
{
	free(h->items);
	free(h->held_bits);
	h->items = NULL;
	h->held_bits = NULL;
}

/* Doubles the arrival bits, keeping the held span's bits. Rare: only while one packet is held
 * so long that more packets than the bits cover arrived (and mostly left) behind it. */
static int grow_bits(struct release_heap *h)
{
	struct release_heap bigger = *h;
	bigger.bits = h->bits * 2;
	bigger.held_bits = calloc(bigger.bits / 64, sizeof *bigger.held_bits);
	if (!bigger.held_bits) return -1;
	for (uint64_t s = h->oldest_held; s < h->next_seq; s++)
		if (bit_get(h, s)) bit_set(&bigger, s, 1);
	free(h->held_bits);
	h->held_bits = bigger.held_bits;
	h->bits = bigger.bits;
	return 0;
}

static int earlier(const struct heap_entry *a, const struct heap_entry *b)
{
	return a->release_ns < b->release_ns || (a->release_ns == b->release_ns && a->seq < b->seq);
}

int release_heap_push(struct release_heap *h, uint32_t id, int64_t release_ns)
{
	if (h->count == h->capacity) return -1;
	if (h->next_seq - h->oldest_held == h->bits && grow_bits(h) != 0) return -1;
	struct heap_entry e = { .release_ns = release_ns, .seq = h->next_seq++, .id = id };
	bit_set(h, e.seq, 1);
	size_t i = h->count++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!earlier(&e, &h->items[parent])) break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = e;
	return 0;
}

struct heap_entry release_heap_pop(struct release_heap *h)
{
	struct heap_entry top = h->items[0];
	struct heap_entry last = h->items[--h->count];
	size_t i = 0;
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= h->count) break;
		if (child + 1 < h->count && earlier(&h->items[child + 1], &h->items[child])) child++;
		if (!earlier(&h->items[child], &last)) break;
		h->items[i] = h->items[child];
		i = child;
	}
	if (h->count > 0) h->items[i] = last;

	/* Reordering counters. oldest_held is always a held packet (or next_seq when none is). */
	bit_set(h, top.seq, 0);
	if (top.seq != h->oldest_held) h->reordered++;
	else
		while (h->oldest_held < h->next_seq && !bit_get(h, h->oldest_held)) h->oldest_held++;
	if (h->newest_released_plus1 > top.seq + 1) h->overtaken++;
	else h->newest_released_plus1 = top.seq + 1;
	return top;
}
