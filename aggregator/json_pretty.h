/*
 * Compact JSON re-indented as it streams through: what json-c prints with
 * JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED, byte for byte, from
 * what it prints with JSON_C_TO_STRING_PLAIN (the two differ only in the
 * whitespace outside strings). The CLI's JSON report uses it over the
 * streamed verdict (verdict_stream.h), so that a verdict of thousands of
 * nodes is printed for people without building json-c's tree of it.
 *
 * The input must be compact JSON (no whitespace outside strings), in pieces
 * of any size; nothing is checked beyond that.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#define JSON_PRETTY_BUF (64u << 10)

struct json_pretty {
	void (*write)(void *ctx, const char *buf, size_t len);
	void *ctx;
	unsigned level;
	bool in_string, escaped;
	bool opened; /* the last token was '{' or '[': empty, or its first member follows */
	size_t len;
	char buf[JSON_PRETTY_BUF];
};

void json_pretty_init(struct json_pretty *p, void (*write)(void *ctx, const char *buf, size_t len),
		      void *ctx);
void json_pretty_feed(struct json_pretty *p, const char *s, size_t n);
/* json_pretty_feed with the json_pretty as a void *: a write callback for
 * verdict_stream_out. */
void json_pretty_write(void *p, const char *s, size_t n);
/* Writes what is buffered. */
void json_pretty_flush(struct json_pretty *p);
