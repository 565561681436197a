/* key_script.c — the button script (see key_script.h). */
#include "cli/key_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/agbsim.h"
#include "cli/options.h"

/* ---- the button script -------------------------------------------------------------------- */
static int script_error(const char *path, unsigned line, unsigned col, const char *msg,
                        const char *word, size_t wlen)
{
	if (word != NULL)
		agbsim_error("%s:%u:%u: %s '%.*s'", path, line, col, msg, (int)wlen, word);
	else
		agbsim_error("%s:%u:%u: %s", path, line, col, msg);
	return AGBSIM_EXIT_USAGE;
}

static uint32_t key_bit(const char *w, size_t n)
{
	static const char *const names[] = {"A",    "B",  "SELECT", "START", "RIGHT",
	                                    "LEFT", "UP", "DOWN",   "R",     "L"};
	for (uint32_t i = 0; i < 10u; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], w, n) == 0)
			return 1u << i;
	return 0;
}

/* One line "FRAME KEY..." (or blank, or a # comment) into the script. */
static int script_line(const char *path, unsigned ln, const char *s, const char *end,
                       struct agbsim_key_script *sc, size_t *cap)
{
	const char *p = s;
	uint32_t frame = 0, keys = 0;
	int words = 0;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end || *p == '#')
			break;
		const char *w = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		size_t n = (size_t)(p - w);
		unsigned col = (unsigned)(w - s) + 1u;
		if (words++ == 0) {
			char num[16];
			if (n >= sizeof num)
				return script_error(path, ln, col, "frame number too large:", w, n);
			memcpy(num, w, n);
			num[n] = '\0';
			if (agbsim_parse_u32(num, &frame) != 0)
				return script_error(path, ln, col, "expected a frame number, not",
				                    w, n);
			if (sc->n != 0 && frame <= sc->steps[sc->n - 1].frame)
				return script_error(path, ln, col,
				                    "frame numbers must increase:", w, n);
		} else if (!(n == 1 && *w == '-')) {
			uint32_t bit = key_bit(w, n);
			if (bit == 0)
				return script_error(
				        path, ln, col,
				        "unknown key (A B SELECT START RIGHT LEFT UP DOWN R L, "
				        "'-' for none):",
				        w, n);
			keys |= bit;
		}
	}
	if (words == 0)
		return AGBSIM_EXIT_OK;
	if (words == 1)
		return script_error(path, ln, 1,
		                    "a frame number needs keys after it ('-' for none)", NULL, 0);
	if (sc->n == *cap) {
		*cap = *cap ? *cap * 2u : 16u;
		struct agbsim_key_step *ns = realloc(sc->steps, *cap * sizeof *ns);
		if (ns == NULL) {
			agbsim_error("%s: out of memory", path);
			return AGBSIM_EXIT_IO;
		}
		sc->steps = ns;
	}
	sc->steps[sc->n++] = (struct agbsim_key_step){frame, keys};
	return AGBSIM_EXIT_OK;
}

int agbsim_key_script_load(const char *path, struct agbsim_key_script *sc)
{
	char *text;
	size_t len, cap = 0;
	unsigned ln = 1;
	int rc = agbsim_read_input(path, &text, &len);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	if (memchr(text, '\0', len) != NULL) {
		free(text);
		agbsim_error("%s: not a text file (NUL byte)", path);
		return AGBSIM_EXIT_USAGE;
	}
	for (const char *s = text, *end = text + len; s < end && rc == AGBSIM_EXIT_OK; ln++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl != NULL ? nl : end;
		rc = script_line(path, ln, s, le, sc, &cap);
		s = nl != NULL ? nl + 1 : end;
	}
	free(text);
	return rc;
}
