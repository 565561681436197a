/* names.h — see names.c. */
#ifndef NAMES_H
#define NAMES_H
#ifdef __cplusplus
extern "C" {
#endif
/* "a b" in a block from malloc (the caller frees it), or NULL. */
char *names_join(const char *a, const char *b);
#ifdef __cplusplus
}
#endif
#endif
