/* view_png_check FILE.png W H MIN_COLOURS: exit 0 when the PNG is W x H pixels and has at least
 * MIN_COLOURS distinct colours (so it is not blank), else print why and exit 1. For the shell
 * tests of the viewer. */
#include <stdio.h>
#include <stdlib.h>

#include <SDL.h>
#include <SDL_image.h>

#define MAX_SEEN 64

int main(int argc, char **argv)
{
	SDL_Surface *img, *s;
	Uint32 seen[MAX_SEEN];
	int nseen = 0, w, h, want;
	if (argc != 5) {
		fprintf(stderr, "usage: view_png_check FILE.png W H MIN_COLOURS\n");
		return 2;
	}
	w = atoi(argv[2]);
	h = atoi(argv[3]);
	want = atoi(argv[4]);
	img = IMG_Load(argv[1]);
	if (img == NULL) {
		fprintf(stderr, "%s: cannot load: %s\n", argv[1], IMG_GetError());
		return 1;
	}
	s = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_ARGB8888, 0);
	if (s == NULL || s->w != w || s->h != h) {
		fprintf(stderr, "%s: %dx%d, expected %dx%d\n", argv[1], img->w, img->h, w, h);
		return 1;
	}
	for (int y = 0; y < s->h && nseen < MAX_SEEN; y++)
		for (int x = 0; x < s->w && nseen < MAX_SEEN; x++) {
			Uint32 p = ((Uint32 *)((Uint8 *)s->pixels + y * s->pitch))[x];
			int k = 0;
			while (k < nseen && seen[k] != p)
				k++;
			if (k == nseen)
				seen[nseen++] = p;
		}
	SDL_FreeSurface(s);
	SDL_FreeSurface(img);
	if (nseen < want) {
		fprintf(stderr, "%s: only %d colours, expected at least %d (blank?)\n", argv[1], nseen,
			want);
		return 1;
	}
	printf("%s: %dx%d, >= %d colours\n", argv[1], w, h, nseen);
	return 0;
}
