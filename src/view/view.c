/* The viewer's two front ends: headless PNG snapshots and the interactive window.
 *
 * The window runs the replay engine in a worker thread. The engine calls the observer after
 * every event; the observer updates the model and, when the event is the one the UI asked for,
 * refreshes the map from the core and blocks on a condition variable. While it is blocked the
 * core's state cannot change, so the UI can draw, hover and save without copying anything.
 * Everything the two threads share is guarded by one mutex. */
#include "view/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "agb/machine.h"
#include "view/view_draw.h"
#include "view/view_model.h"

/* ---- headless snapshots ------------------------------------------------------------------- */

struct snap_ctx {
	struct view_model *vm;
	void *ws;
};

static void snap_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct snap_ctx *s = ctx;
	view_model_apply(s->vm, s->ws, o);
}

static const char *run_error(const struct agb_replay_result *res)
{
	return res->why != NULL ? res->why : "the core cannot run this trace";
}

/* The whole-trace scan the cycle strip draws: the caller's, else one of our own in *own (a
 * replay that cannot finish leaves the strip empty; the view reports that replay itself). */
static const struct agb_view_scan *view_scan(const struct agb_view_config *c,
					     struct agb_view_scan *own)
{
	if (c->scan != NULL)
		return c->scan;
	if (agb_view_scan_run(own, c->trace, &c->replay) != 0)
		return NULL;
	return own;
}

int agb_view_snapshot(const struct agb_view_config *c, uint32_t at_event, const char *png_path,
		      char *err, size_t n)
{
	struct agb_trace upto = *c->trace;
	struct view_model vm;
	struct view_ui ui = {0};
	struct agb_replay_result res;
	agb_machine *m = malloc(sizeof *m);
	size_t wsb = agb_replay_workspace_bytes(c->trace);
	void *ws = malloc(wsb);
	struct snap_ctx sc = {&vm, ws};
	struct agb_view_scan own;
	int rc = 3;

	memset(&own, 0, sizeof own);

	if (view_model_init(&vm, c->trace, &c->replay) != 0 || m == NULL ||
	    ws == NULL) {
		snprintf(err, n, "out of memory, or the core refused the arena");
		goto out;
	}
	if (upto.event_count != 0 && at_event >= upto.event_count) {
		snprintf(err, n, "event %u is beyond the trace's %u events", at_event, upto.event_count);
		goto out;
	}
	/* Replaying a prefix stops the engine exactly after at_event (frame_count is kept, so
	 * stats are sampled as in a full run). */
	if (upto.event_count != 0)
		upto.event_count = at_event + 1u;
	view_model_machine(&vm, m);
	agb_replay_run(&upto, &c->replay, m, ws, wsb, snap_observe, &sc, &res);
	if (res.status != AGB_REPLAY_OK) {
		snprintf(err, n, "replay stopped at event %u: %s", res.failed_event, run_error(&res));
		goto out;
	}
	view_model_bind(&vm, ws);
	view_model_refresh(&vm);
	ui.title = c->trace->name != NULL ? c->trace->name : c->trace_path;
	ui.mode = VIEW_MODE_SNAPSHOT;
	ui.hover_x = ui.hover_y = -1;
	ui.flash = vm.index >= 0 && vm.fail_index == vm.index;
	ui.scan = view_scan(c, &own);
	if (view_save_png(&vm, &ui, png_path, err, n) == 0)
		rc = 0;
out:
	agb_view_scan_free(&own);
	view_model_free(&vm);
	free(ws);
	free(m);
	return rc;
}

/* ---- the window --------------------------------------------------------------------------- */

struct viewer {
	const struct agb_view_config *c;
	struct view_model vm;
	agb_machine *m;
	void *ws;
	size_t wsb;
	SDL_mutex *mu;
	SDL_cond *cv;
	/* Guarded by mu. */
	int64_t target;   /* the worker pauses after this event */
	int frame_step;   /* ... or after the next frame event */
	int paused;       /* the worker is blocked showing vm */
	int abort_run;    /* finish the current replay without pausing (restart or quit) */
	int restart, quit;
	int run_status;   /* agb_replay_run's status of the last complete run */
	const char *why;
};

static void win_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct viewer *v = ctx;
	int last = o->index + 1u == v->c->trace->event_count;
	SDL_LockMutex(v->mu);
	if (v->abort_run) {
		SDL_UnlockMutex(v->mu);
		return;
	}
	view_model_apply(&v->vm, v->ws, o);
	if ((int64_t)o->index >= v->target || (v->frame_step && o->op == AGB_OP_FRAME) || last) {
		view_model_refresh(&v->vm);
		v->target = o->index;
		v->frame_step = 0;
		v->paused = 1;
		SDL_CondBroadcast(v->cv);
		/* The last event stays on screen until the UI restarts or quits. */
		while (!v->abort_run && (last || (v->target <= (int64_t)o->index && !v->frame_step)))
			SDL_CondWait(v->cv, v->mu);
		v->paused = 0;
	}
	SDL_UnlockMutex(v->mu);
}

static int worker(void *p)
{
	struct viewer *v = p;
	for (;;) {
		struct agb_replay_result res;
		SDL_LockMutex(v->mu);
		view_model_reset(&v->vm);
		v->abort_run = 0;
		v->restart = 0;
		SDL_UnlockMutex(v->mu);
		view_model_machine(&v->vm, v->m);
		agb_replay_run(v->c->trace, &v->c->replay, v->m, v->ws, v->wsb, win_observe, v, &res);
		SDL_LockMutex(v->mu);
		v->run_status = res.status;
		v->why = res.why;
		if (!v->abort_run) {
			/* Ended without pausing on a last event: no events, or the core stopped. */
			view_model_bind(&v->vm, v->ws);
			if (res.status == AGB_REPLAY_OK)
				view_model_refresh(&v->vm);
			v->paused = 1;
			SDL_CondBroadcast(v->cv);
		}
		while (!v->quit && !v->restart)
			SDL_CondWait(v->cv, v->mu);
		if (v->quit) {
			SDL_UnlockMutex(v->mu);
			return 0;
		}
		SDL_UnlockMutex(v->mu);
	}
}

static const uint32_t speeds[] = {1,    2,    5,    10,    20,    50,    100,    200,
				  500,  1000, 2000, 5000,  10000, 20000, 50000, 100000};
#define SPEED_COUNT (int)(sizeof speeds / sizeof speeds[0])

/* Lets the worker run on (caller holds mu). */
static void grant(struct viewer *v, int64_t target, int frame_step)
{
	v->target = target;
	v->frame_step = frame_step;
	v->paused = 0;
	SDL_CondBroadcast(v->cv);
}

static int at_end(const struct viewer *v)
{
	return v->vm.index + 1 >= (int64_t)v->c->trace->event_count;
}

/* agbsim-NAME-eEVENT.png from the trace file's base name. */
static void snapshot_name(const struct viewer *v, char *buf, size_t n)
{
	const char *p = v->c->trace_path, *slash = strrchr(p, '/');
	const char *base = slash != NULL ? slash + 1 : p;
	size_t len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	if (len > 64)
		len = 64;
	snprintf(buf, n, "agbsim-%.*s-e%lld.png", (int)len, base, (long long)v->vm.index);
}

/* One script token as an SDL event (the same path as a real key); returns the pause in ms it
 * asks for, or -1 when the token is unknown. */
static int push_token(const char *tok, size_t len)
{
	static const struct {
		const char *name;
		SDL_Keycode key;
		Uint16 mod;
	} keys[] = {
		{"space", SDLK_SPACE, 0},        {"right", SDLK_RIGHT, 0},
		{"shift+right", SDLK_RIGHT, KMOD_LSHIFT}, {"plus", SDLK_PLUS, 0},
		{"minus", SDLK_MINUS, 0},        {"home", SDLK_HOME, 0},
		{"s", SDLK_s, 0},                {"q", SDLK_q, 0},
		{"zoomin", SDLK_RIGHTBRACKET, 0}, {"zoomout", SDLK_LEFTBRACKET, 0},
		{"pagedown", SDLK_PAGEDOWN, 0},  {"pageup", SDLK_PAGEUP, 0},
	};
	SDL_Event e;
	char buf[64];
	int a, b;
	if (len >= sizeof buf)
		return -1;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	memset(&e, 0, sizeof e);
	if (sscanf(buf, "hover:%d:%d", &a, &b) == 2) {
		e.type = SDL_MOUSEMOTION;
		e.motion.x = a;
		e.motion.y = b;
		SDL_PushEvent(&e);
		return 0;
	}
	if (sscanf(buf, "wait:%d", &a) == 1)
		return a < 0 ? 0 : a;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(buf, keys[i].name) == 0) {
			e.type = SDL_KEYDOWN;
			e.key.state = SDL_PRESSED;
			e.key.keysym.sym = keys[i].key;
			e.key.keysym.mod = keys[i].mod;
			SDL_PushEvent(&e);
			return 0;
		}
	}
	return -1;
}

struct win_state {
	struct view_ui ui;
	int playing, quit, speed_idx;
	double acc;
	uint32_t seen_failures;
	Uint32 flash_until;
};

static void save_snapshot(struct viewer *v, struct win_state *w)
{
	char name[128], err[256];
	struct view_ui ui = w->ui;
	snapshot_name(v, name, sizeof name);
	if (view_save_png(&v->vm, &ui, name, err, sizeof err) == 0) {
		snprintf(w->ui.status, sizeof w->ui.status, "saved %.100s", name);
		fprintf(stderr, "agbsim: view: saved %s\n", name);
	} else {
		snprintf(w->ui.status, sizeof w->ui.status, "snapshot failed");
		fprintf(stderr, "agbsim: view: %s\n", err);
	}
}

/* Keys and mouse. Caller holds mu. */
static void handle(struct viewer *v, struct win_state *w, const SDL_Event *e)
{
	struct view_layout L;
	view_layout_make(v->c->trace->arena, v->vm.units, w->ui.zoom, w->ui.scroll_row, &L);
	switch (e->type) {
	case SDL_QUIT:
		w->quit = 1;
		return;
	case SDL_MOUSEMOTION:
		w->ui.hover_x = e->motion.x;
		w->ui.hover_y = e->motion.y;
		return;
	case SDL_MOUSEWHEEL:
		if (e->wheel.y > 0)
			w->ui.scroll_row = L.first_row > 4u ? L.first_row - 4u : 0u;
		else if (e->wheel.y < 0)
			w->ui.scroll_row = L.first_row + 4u;
		return;
	case SDL_KEYDOWN:
		break;
	default:
		return;
	}
	switch (e->key.keysym.sym) {
	case SDLK_q:
	case SDLK_ESCAPE:
		w->quit = 1;
		break;
	case SDLK_SPACE:
		w->playing = !w->playing;
		w->acc = 0.0;
		break;
	case SDLK_RIGHT:
		w->playing = 0;
		if (v->paused && !at_end(v)) {
			if ((e->key.keysym.mod & KMOD_SHIFT) != 0)
				grant(v, INT64_MAX, 1);
			else
				grant(v, v->vm.index + 1, 0);
		}
		break;
	case SDLK_PLUS:
	case SDLK_EQUALS:
	case SDLK_KP_PLUS:
		if (w->speed_idx + 1 < SPEED_COUNT)
			w->speed_idx++;
		break;
	case SDLK_MINUS:
	case SDLK_KP_MINUS:
		if (w->speed_idx > 0)
			w->speed_idx--;
		break;
	case SDLK_HOME:
		v->abort_run = 1;
		v->restart = 1;
		w->seen_failures = 0;
		w->flash_until = 0;
		grant(v, 0, 0);
		break;
	case SDLK_s:
		save_snapshot(v, w);
		break;
	case SDLK_RIGHTBRACKET:
		if (w->ui.zoom < 3)
			w->ui.zoom++;
		break;
	case SDLK_LEFTBRACKET:
		if (w->ui.zoom > 0)
			w->ui.zoom--;
		break;
	case SDLK_PAGEDOWN:
		w->ui.scroll_row = L.first_row + L.vis_rows / 2u;
		break;
	case SDLK_PAGEUP:
		w->ui.scroll_row = L.first_row > L.vis_rows / 2u ? L.first_row - L.vis_rows / 2u : 0u;
		break;
	default:
		break;
	}
}

static int default_speed(uint32_t events)
{
	/* About 20 s for the whole trace, at least 10 events/s. */
	int i = 3;
	while (i + 1 < SPEED_COUNT && speeds[i] * 20u < events)
		i++;
	return i;
}

/* Whether SDL found a display. With none (DISPLAY unset, no Wayland) SDL falls back to its
 * "offscreen" or "dummy" driver, whose window nobody can see or close: the viewer would run
 * forever. Those drivers are accepted only when asked for by name in SDL_VIDEODRIVER. */
static int real_display(void)
{
	const char *drv = SDL_GetCurrentVideoDriver(), *want = SDL_getenv("SDL_VIDEODRIVER");
	if (drv == NULL)
		return 0;
	if (strcmp(drv, "offscreen") != 0 && strcmp(drv, "dummy") != 0)
		return 1;
	return want != NULL && SDL_strcasecmp(want, drv) == 0;
}

/* The window's SDL side: the window, its renderer, the lock and wake-up shared with the worker. */
struct window {
	SDL_Window *win;
	SDL_Renderer *r;
	SDL_Thread *th;
};

/* SDL, a real display, the window and renderer (software if need be), the worker's lock and
 * condition. Returns 0, or -1 with err set (what was made is released by window_close). */
static int window_open(struct viewer *v, struct window *x, char *err, size_t n)
{
	const struct agb_view_config *c = v->c;
	char title[256];
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		snprintf(err, n, "cannot open a window: %s (no display? --snapshot works without one)",
			 SDL_GetError());
		return -1;
	}
	if (!real_display()) {
		snprintf(err, n, "cannot open a window: no display (SDL fell back to its '%s' video "
			 "driver; --snapshot works without one)", SDL_GetCurrentVideoDriver());
		return -1;
	}
	snprintf(title, sizeof title, "agbsim view: %s (%s)", c->trace_path, c->replay.core->name);
	x->win = SDL_CreateWindow(title, SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
				  AGB_VIEW_WIDTH, AGB_VIEW_HEIGHT, 0);
	if (x->win != NULL)
		x->r = SDL_CreateRenderer(x->win, -1, 0);
	if (x->win != NULL && x->r == NULL)
		x->r = SDL_CreateRenderer(x->win, -1, SDL_RENDERER_SOFTWARE);
	v->mu = SDL_CreateMutex();
	v->cv = SDL_CreateCond();
	if (x->win == NULL || x->r == NULL || v->mu == NULL || v->cv == NULL) {
		snprintf(err, n, "cannot open a window: %s", SDL_GetError());
		return -1;
	}
	return 0;
}

/* Stops the worker (if started) and releases everything window_open made. */
static void window_close(struct viewer *v, struct window *x)
{
	if (x->th != NULL) {
		SDL_LockMutex(v->mu);
		v->quit = 1;
		v->abort_run = 1;
		SDL_CondBroadcast(v->cv);
		SDL_UnlockMutex(v->mu);
		SDL_WaitThread(x->th, NULL);
	}
	view_text_cleanup();
	if (x->r != NULL)
		SDL_DestroyRenderer(x->r);
	if (x->win != NULL)
		SDL_DestroyWindow(x->win);
	if (v->cv != NULL)
		SDL_DestroyCond(v->cv);
	if (v->mu != NULL)
		SDL_DestroyMutex(v->mu);
	SDL_Quit();
}

/* The --script keys still to press, and when the next may go. */
struct script_feed {
	const char *next;
	Uint32 wait;
};

/* Script keys go in one at a time, each once the previous step has been shown; when the script
 * has run out, the window closes (a test must never hang). Called with v->mu held. */
static void feed_script(struct viewer *v, struct win_state *w, struct script_feed *s, Uint32 now)
{
	if (v->c->script == NULL || !v->paused || now < s->wait)
		return;
	if (s->next == NULL) {
		w->quit = 1;
		return;
	}
	const char *end = strchr(s->next, ',');
	size_t len = end != NULL ? (size_t)(end - s->next) : strlen(s->next);
	int wait = len != 0 ? push_token(s->next, len) : 0;
	if (wait < 0)
		fprintf(stderr, "agbsim: view: unknown script key '%.*s'\n", (int)len, s->next);
	else
		s->wait = now + (Uint32)wait;
	s->next = end != NULL ? end + 1 : NULL;
}

/* Playing: let the worker run as many events as dt seconds are worth at the chosen speed. */
static void play(struct viewer *v, struct win_state *w, double dt)
{
	int64_t k;
	if (!w->playing || !v->paused || at_end(v))
		return;
	w->acc += dt * speeds[w->speed_idx];
	k = (int64_t)w->acc;
	if (k > 0) {
		w->acc -= (double)k;
		grant(v, v->vm.index + k, 0);
	}
}

/* The status line's inputs: a red flash on a new failure, the mode, the speed. */
static void update_ui(struct viewer *v, struct win_state *w, Uint32 now)
{
	if (v->vm.failures > w->seen_failures)
		w->flash_until = now + 400u;
	w->seen_failures = v->vm.failures;
	w->ui.flash = now < w->flash_until || (v->vm.index >= 0 && v->vm.fail_index == v->vm.index);
	w->ui.mode = at_end(v) && v->paused ? VIEW_MODE_END
		     : w->playing          ? VIEW_MODE_PLAYING
					   : VIEW_MODE_PAUSED;
	w->ui.speed = speeds[w->speed_idx];
}

/* The frame loop until a quit key, the end of the script, or a replay that stops (3, err set). */
static int window_loop(struct viewer *v, struct win_state *w, SDL_Renderer *r, char *err,
		       size_t n)
{
	struct script_feed script = {v->c->script, 0};
	Uint32 prev = SDL_GetTicks();
	while (!w->quit) {
		SDL_Event e;
		Uint32 now = SDL_GetTicks();
		double dt = (double)(now - prev) / 1000.0;
		prev = now;

		SDL_LockMutex(v->mu);
		feed_script(v, w, &script, now);
		while (SDL_PollEvent(&e))
			handle(v, w, &e);
		play(v, w, dt);
		/* Show a consistent state: give the worker a moment to reach its pause. */
		while (!v->paused && !w->quit)
			if (SDL_CondWaitTimeout(v->cv, v->mu, 30) == SDL_MUTEX_TIMEDOUT)
				break;
		if (v->run_status != AGB_REPLAY_OK) {
			snprintf(err, n, "replay stopped: %s", v->why != NULL ? v->why : "core error");
			SDL_UnlockMutex(v->mu);
			return 3;
		}
		update_ui(v, w, now);
		view_draw(r, &v->vm, &w->ui);
		SDL_UnlockMutex(v->mu);
		SDL_RenderPresent(r);
		SDL_Delay(15);
	}
	return 0;
}

int agb_view_window(const struct agb_view_config *c, char *err, size_t n)
{
	struct viewer v;
	struct win_state w;
	struct window x = {NULL, NULL, NULL};
	struct agb_view_scan own;
	int rc = 3;

	memset(&v, 0, sizeof v);
	memset(&w, 0, sizeof w);
	memset(&own, 0, sizeof own);
	v.c = c;
	v.wsb = agb_replay_workspace_bytes(c->trace);
	v.ws = malloc(v.wsb);
	v.m = malloc(sizeof *v.m);
	if (view_model_init(&v.vm, c->trace, &c->replay) != 0 ||
	    v.ws == NULL || v.m == NULL) {
		snprintf(err, n, "out of memory, or the core refused the arena");
		goto out;
	}
	if (window_open(&v, &x, err, n) != 0)
		goto out;
	v.target = c->start_at >= 0 ? c->start_at : 0;
	x.th = SDL_CreateThread(worker, "agbsim-replay", &v);
	if (x.th == NULL) {
		snprintf(err, n, "cannot start the replay thread: %s", SDL_GetError());
		goto out;
	}
	w.ui.title = c->trace->name != NULL ? c->trace->name : c->trace_path;
	w.ui.hover_x = w.ui.hover_y = -1;
	w.ui.scan = view_scan(c, &own);
	w.playing = !c->start_paused && c->start_at < 0;
	w.speed_idx = default_speed(c->trace->event_count);
	rc = window_loop(&v, &w, x.r, err, n);
out:
	window_close(&v, &x);
	agb_view_scan_free(&own);
	view_model_free(&v.vm);
	free(v.ws);
	free(v.m);
	return rc;
}
