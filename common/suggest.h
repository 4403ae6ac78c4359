/* "Did you mean": the nearest of a set of known words to a mistyped one, for
 * check IDs, gates, commands and config keys. */
#pragma once
#include <stddef.h>

/* The candidate with the smallest edit distance (insertions, deletions,
 * substitutions and transpositions of neighbours, ASCII case ignored) to word,
 * if that distance is small enough to be a typo: at most 1 for words of up to
 * 4 characters, 2 up to 8, else 3. NULL when none is that close. Candidates
 * end at the first NULL or after n, whichever comes first. */
const char *suggest_closest(const char *word, const char *const *candidates, size_t n);

/* " (did you mean \"X\"?)" for the closest candidate, or "" — for messages. */
const char *suggest_hint(const char *word, const char *const *candidates, size_t n, char *buf,
			 size_t len);

/* The mistyped word as a message may quote it: at most len - 1 bytes, control
 * bytes (newline included: no forged log lines) shown as '?'. Returns buf. */
const char *suggest_quote(const char *word, char *buf, size_t len);
