// template-cpp — start a GBA game in C++ on agbmem: operator new/delete (every form libstdc++
// has) and malloc are agbmem's drop-in heap, global constructors run before main. Build it as
// template-c (see its main.c) against an installed agbmem; the suite checks the log
// (tests/gba, gba_template_cpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "agb/malloc.h"
#include "names.h"

#ifndef GAME_FRAMES
#define GAME_FRAMES 0
#endif

namespace {

volatile std::uint16_t &reg_vcount = *reinterpret_cast<volatile std::uint16_t *>(0x04000006);

void wait_vblank()
{
	while (reg_vcount >= 160) {
	}
	while (reg_vcount < 160) {
	}
}

// A global with a constructor: crt0 runs it (.init_array) before main.
struct registry {
	int ready;
	std::vector<int> ids;
	registry() : ready(42) { ids.reserve(4); }
};
registry game_registry;

struct particle {
	int x, y, vx, vy, life;
	particle(int x0, int y0, int v) : x(x0), y(y0), vx(v), vy(-v), life(30) {}
	bool step()
	{
		x += vx;
		y += vy;
		vy++;
		return --life > 0;
	}
};

struct alignas(64) cache_line {
	std::uint32_t words[16];
};

} // namespace

int main()
{
	std::printf("template-cpp: global constructor %s\n",
		    game_registry.ready == 42 ? "ran" : "did not run");
	struct agb_malloc_stats start;
	agb_malloc_stats(&start);

	std::vector<particle *> live;
	unsigned made = 0;
	for (unsigned frame = 0; GAME_FRAMES == 0 || frame < GAME_FRAMES; frame++) {
		wait_vblank();
		for (int i = 0; i < 3; i++, made++)
			live.push_back(new particle(120, 80, static_cast<int>(made % 5u) - 2));
		for (std::size_t i = 0; i < live.size();) {
			if (live[i]->step()) {
				i++;
				continue;
			}
			delete live[i];
			live[i] = live.back();
			live.pop_back();
		}
		game_registry.ids.push_back(static_cast<int>(frame));
	}

	cache_line *line = new cache_line(); // aligned new: operator new(size_t, align_val_t)
	bool aligned = (reinterpret_cast<std::uintptr_t>(line) & 63u) == 0;
	delete line;
	int *refused = new (std::nothrow) int[100000]; // 400 000 bytes: more than EWRAM
	char *joined = names_join("hello", "agbmem");

	struct agb_malloc_stats s;
	agb_malloc_stats(&s);
	std::printf("template-cpp: %u particles made, %u live, aligned new %s, nothrow new %s, "
		    "library says \"%s\"\n",
		    made, static_cast<unsigned>(live.size()), aligned ? "64-aligned" : "misaligned",
		    refused ? "served" : "refused", joined ? joined : "(null)");
	std::printf("template-cpp: used %u, peak %u, largest free %u\n",
		    static_cast<unsigned>(s.used_bytes), static_cast<unsigned>(s.peak_used),
		    static_cast<unsigned>(s.largest_free));

	std::free(joined);
	for (particle *p : live)
		delete p;
	live.clear();
	live.shrink_to_fit();
	std::vector<int>().swap(game_registry.ids);
	agb_malloc_stats(&s);
	// At start: stdio's buffers and the registry's ids, the constructor's block (freed above).
	std::printf("template-cpp: after freeing everything: %u blocks live (stdio's %u)\n",
		    static_cast<unsigned>(s.live_blocks), static_cast<unsigned>(start.live_blocks - 1u));
	return aligned && refused == nullptr && s.live_blocks == start.live_blocks - 1u ? 0 : 1;
}
