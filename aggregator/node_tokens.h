/*
 * Per-node bearer tokens (serve --node-token-file FILE) for deployments
 * without Kubernetes ServiceAccounts (systemd): a file of "NODE TOKEN" lines,
 * each token good for its one node only. Blank lines and lines starting with
 * '#' are skipped; a node or a token given twice is an error (a token shared
 * by two nodes would let one forge the other). Tokens are compared in
 * constant time. The file is re-read when its size, mtime or inode change,
 * looked at no more often than every NODE_TOKENS_RECHECK_NS; a file that no
 * longer parses keeps the previous set in force (logged). docs/deployment.md.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NODE_TOKENS_RECHECK_NS (2 * 1000000000LL)

struct node_tokens;

/* Read path (must not be readable by others). 0, or -errno / -EINVAL with
 * err (naming the line, never a token). */
int node_tokens_load(const char *path, struct node_tokens **ret, char *err, size_t errlen);
/* Parse a buffer (tests, the fuzzer). */
int node_tokens_parse(const char *buf, size_t len, struct node_tokens **ret, char *err,
		      size_t errlen);
void node_tokens_free(struct node_tokens *nt);
/* 0 if token is node's; else 401 (no such token at all) or 403 (the token of
 * another node, or a node the file does not name), with why. */
int node_tokens_check(const struct node_tokens *nt, const char *token, const char *node,
		      const char **why);
/* Whether token is any node's (in constant time): the header-phase check,
 * before the report names its node. */
bool node_tokens_known(const struct node_tokens *nt, const char *token);
/* Re-read the file when it changed (at most every NODE_TOKENS_RECHECK_NS of
 * now_ns). true if a new set is in force. */
bool node_tokens_reload(struct node_tokens **nt, const char *path, int64_t now_ns);
size_t node_tokens_count(const struct node_tokens *nt);
