#include "json_pretty.h"

#include <string.h>

void json_pretty_init(struct json_pretty *p, void (*write)(void *ctx, const char *buf, size_t len),
		      void *ctx)
{
	p->write = write;
	p->ctx = ctx;
	p->level = 0;
	p->in_string = p->escaped = p->opened = false;
	p->len = 0;
}

void json_pretty_flush(struct json_pretty *p)
{
	if (p->len)
		p->write(p->ctx, p->buf, p->len);
	p->len = 0;
}

static void put(struct json_pretty *p, char c)
{
	if (p->len == sizeof(p->buf))
		json_pretty_flush(p);
	p->buf[p->len++] = c;
}

static void put_n(struct json_pretty *p, const char *s, size_t n)
{
	while (n) {
		if (p->len == sizeof(p->buf))
			json_pretty_flush(p);
		size_t k = sizeof(p->buf) - p->len;
		if (k > n)
			k = n;
		memcpy(p->buf + p->len, s, k);
		p->len += k;
		s += k;
		n -= k;
	}
}

/* json-c indents by two spaces a level (indent() in json_object.c). */
static void indent(struct json_pretty *p, unsigned level)
{
	for (unsigned i = 0; i < level; i++) {
		put(p, ' ');
		put(p, ' ');
	}
}

static void newline_indent(struct json_pretty *p, unsigned level)
{
	put(p, '\n');
	indent(p, level);
}

/* One character outside a string. json-c writes "{" "\n", then each member
 * at level + 1 separated by ",\n", then "\n" and the closing brace at the
 * object's level; an empty one is "{\n" and the brace at its level. */
static void structural(struct json_pretty *p, char c)
{
	switch (c) {
	case '{':
	case '[':
		if (p->opened)
			indent(p, p->level);
		put(p, c);
		put(p, '\n');
		p->level++;
		p->opened = true;
		return;
	case '}':
	case ']':
		if (p->level)
			p->level--;
		if (p->opened)
			indent(p, p->level);
		else
			newline_indent(p, p->level);
		put(p, c);
		p->opened = false;
		return;
	case ',':
		put(p, ',');
		newline_indent(p, p->level);
		return;
	case ':':
		put(p, ':');
		put(p, ' ');
		return;
	default:
		if (p->opened) {
			indent(p, p->level);
			p->opened = false;
		}
		if (c == '"')
			p->in_string = true;
		put(p, c);
	}
}

void json_pretty_feed(struct json_pretty *p, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (!p->in_string) {
			structural(p, s[i++]);
			continue;
		}
		/* A string is copied as it is, up to its unescaped closing quote
		 * (or the end of this piece: the next one goes on with it). */
		size_t start = i;
		while (i < n) {
			char c = s[i++];
			if (p->escaped) {
				p->escaped = false;
			} else if (c == '\\') {
				p->escaped = true;
			} else if (c == '"') {
				p->in_string = false;
				break;
			}
		}
		put_n(p, s + start, i - start);
	}
}

void json_pretty_write(void *p, const char *s, size_t n)
{
	json_pretty_feed(p, s, n);
}
