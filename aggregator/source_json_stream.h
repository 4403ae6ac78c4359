/*
 * The files backend's JSON stream reader (aggregator/source_json_stream.c)
 * and what it hands to the loader (aggregator/source_files.c).
 */
#pragma once
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "json_fast.h"
#include "json_value.h"

struct loader;

/* files_scan_all(): the file holds no JSON value at all. */
#define SCAN_EMPTY 1

/* One file (or buffer) being read: a stream of JSON values. The outer
 * object of each value, a List's items and each item's metadata are walked
 * here; everything below them is parsed by json_tokener. So a List of 20,000
 * objects is never one tree with everything in it, and metadata.managedFields
 * (most of an object's json-c memory, never read) is skipped without being
 * built. A file is read through a window of cap bytes. */
struct scan {
	struct loader *ld; /* the loader's, for files_add_object() */
	char *err;	   /* a reason, when a call returns <0 */
	size_t errlen;
	struct jv_arena *ar; /* where values read are kept */
	const char *name;
	char *buf;	  /* the window (grown when one value fills it; the caller frees
			     it), or the caller's whole buffer */
	size_t len, off;  /* valid bytes in buf, cursor */
	size_t cap;	  /* window size */
	size_t base;	  /* offset in the file of buf[0] */
	size_t lines;	  /* newlines before buf[0] */
	size_t line_base; /* offset in the file where the line at buf[0] began */
	int fd;		  /* -1: buf is all there is */
	bool eof;
	json_tokener *tok;
	struct jf_scratch fast;
	size_t values; /* top-level values so far */
};

/* Read every value of s's input; each object (or List) goes to
 * files_add_object(). 0, SCAN_EMPTY, or <0 with the reason in s->err. */
int files_scan_all(struct scan *s);
/* The loader's: add one top-level object or List; where names it in a
 * message. 0 or <0 with the reason in s->err. */
int files_add_object(struct scan *s, const struct jv *o, const char *where);
/* "a number", "an array": for messages about a value of the wrong type. */
const char *files_type_phrase(const struct jv *o);
