#include "suggest.h"

#include <stdio.h>
#include <string.h>

/* Words longer than this are not typos of anything we know. */
#define SUGGEST_MAX_LEN 64

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment distance: Damerau-Levenshtein without reusing a
 * substring, three rows of at most SUGGEST_MAX_LEN + 1 cells. */
static size_t distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *pp = rows[0], *p = rows[1], *c = rows[2];
	for (size_t j = 0; j <= m; j++)
		p[j] = j;
	for (size_t i = 1; i <= n; i++) {
		c[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = lower(a[i - 1]) != lower(b[j - 1]);
			c[j] = min3(p[j] + 1, c[j - 1] + 1, p[j - 1] + cost);
			if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
			    lower(a[i - 2]) == lower(b[j - 1]) && pp[j - 2] + 1 < c[j])
				c[j] = pp[j - 2] + 1;
		}
		size_t *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[m];
}

const char *suggest_closest(const char *word, const char *const *candidates, size_t n)
{
	size_t wl = strlen(word);
	if (wl == 0 || wl > SUGGEST_MAX_LEN)
		return NULL;
	size_t limit = wl <= 4 ? 1 : wl <= 8 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n && candidates[i]; i++) {
		if (strlen(candidates[i]) > SUGGEST_MAX_LEN)
			continue;
		size_t d = distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best;
}

const char *suggest_hint(const char *word, const char *const *candidates, size_t n, char *buf,
			 size_t len)
{
	const char *s = suggest_closest(word, candidates, n);
	if (!s || !len)
		return "";
	snprintf(buf, len, " (did you mean \"%s\"?)", s);
	return buf;
}

const char *suggest_quote(const char *word, char *buf, size_t len)
{
	size_t i = 0;
	for (; len && word[i] && i < len - 1; i++)
		buf[i] = (unsigned char)word[i] < 0x20 || word[i] == 0x7f ? '?' : word[i];
	if (len)
		buf[i] = 0;
	return buf;
}
