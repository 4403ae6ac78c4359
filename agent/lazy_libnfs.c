/*
 * libnfs, loaded when host.nfs.probe first makes a context — linked into the
 * hvready-agent executable only, as agent/lazy_libs.c does for libcurl.
 *
 * Why: only host.nfs.probe speaks NFS, and only where probe targets are set;
 * every other run of `hvready-agent check` mapped and relocated libnfs for
 * nothing (0.1 ms of a 3 ms run, docs/benchmarks.md). With these definitions
 * in the executable the linker (--as-needed) drops libnfs.so, and
 * nfs_init_context() dlopen()s it. When it cannot be loaded, nfs_init_context()
 * returns NULL, which the probe already reports as an UNKNOWN with its reason;
 * no other function is reached without a context, and each still refuses
 * cleanly if it is.
 *
 * LIBNFS_FUNCS lists each function once: its return type, name, parameters,
 * the arguments passed on, and what it returns without the library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

/* The runtime name of the library the agent is built against (Debian 12:
 * libnfs13), as lazy_libs.c names libcurl.so.4. */
#define LIBNFS_SONAME "libnfs.so.13"

#define LIBNFS_FUNCS(F, V)                                                                         \
	F(char *, nfs_get_error, (struct nfs_context * n), (n), "libnfs not loaded")               \
	V(nfs_destroy_context, (struct nfs_context * n), (n))                                      \
	F(int, nfs_close_async, (struct nfs_context * n, struct nfsfh * fh, nfs_cb cb, void *p),   \
	  (n, fh, cb, p), -1)                                                                      \
	F(int, rpc_service, (struct rpc_context * r, int ev), (r, ev), -1)                         \
	V(nfs_destroy_url, (struct nfs_url * u), (u))                                              \
	F(int, rpc_which_events, (struct rpc_context * r), (r), 0)                                 \
	F(int, rpc_get_fd, (struct rpc_context * r), (r), -1)                                      \
	F(int, nfs_which_events, (struct nfs_context * n), (n), 0)                                 \
	F(int, nfs_unlink_async, (struct nfs_context * n, const char *path, nfs_cb cb, void *p),   \
	  (n, path, cb, p), -1)                                                                    \
	F(int, nfs_stat64_async, (struct nfs_context * n, const char *path, nfs_cb cb, void *p),   \
	  (n, path, cb, p), -1)                                                                    \
	F(int, nfs_set_version, (struct nfs_context * n, int v), (n, v), -1)                       \
	V(nfs_set_readahead, (struct nfs_context * n, uint32_t v), (n, v))                         \
	V(nfs_set_pagecache, (struct nfs_context * n, uint32_t v), (n, v))                         \
	V(nfs_set_dircache, (struct nfs_context * n, int on), (n, on))                             \
	V(nfs_set_autoreconnect, (struct nfs_context * n, int retries), (n, retries))              \
	F(int, nfs_service, (struct nfs_context * n, int ev), (n, ev), -1)                         \
	F(int, nfs_pwrite_async,                                                                   \
	  (struct nfs_context * n, struct nfsfh * fh, uint64_t off, uint64_t count,                \
	   const void *buf, nfs_cb cb, void *p),                                                   \
	  (n, fh, off, count, buf, cb, p), -1)                                                     \
	F(int, nfs_pread_async,                                                                    \
	  (struct nfs_context * n, struct nfsfh * fh, uint64_t off, uint64_t count, nfs_cb cb,     \
	   void *p),                                                                               \
	  (n, fh, off, count, cb, p), -1)                                                          \
	F(struct nfs_url *, nfs_parse_url_incomplete, (struct nfs_context * n, const char *url),   \
	  (n, url), NULL)                                                                          \
	F(int, nfs_open_async,                                                                     \
	  (struct nfs_context * n, const char *path, int flags, nfs_cb cb, void *p),               \
	  (n, path, flags, cb, p), -1)                                                             \
	F(int, nfs_mount_async,                                                                    \
	  (struct nfs_context * n, const char *server, const char *exp, nfs_cb cb, void *p),       \
	  (n, server, exp, cb, p), -1)                                                             \
	F(int, nfs_get_fd, (struct nfs_context * n), (n), -1)                                      \
	F(int, nfs_fsync_async, (struct nfs_context * n, struct nfsfh * fh, nfs_cb cb, void *p),   \
	  (n, fh, cb, p), -1)                                                                      \
	F(int, nfs_create_async,                                                                   \
	  (struct nfs_context * n, const char *path, int flags, int mode, nfs_cb cb, void *p),     \
	  (n, path, flags, mode, cb, p), -1)

#define FIELD(ret, name, params, args, fail) ret(*name) params;
#define VFIELD(name, params, args)	     void(*name) params;
static struct {
	void *h;
	struct nfs_context *(*nfs_init_context)(void);
	LIBNFS_FUNCS(FIELD, VFIELD)
} N;

static pthread_once_t nfs_once = PTHREAD_ONCE_INIT;

#define LOAD(ret, name, params, args, fail) ok = ok && (*(void **)&N.name = dlsym(N.h, #name));
#define VLOAD(name, params, args)	    ok = ok && (*(void **)&N.name = dlsym(N.h, #name));

static void load_nfs(void)
{
	N.h = dlopen(LIBNFS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!N.h) {
		fprintf(stderr,
			"hvready-agent: cannot load " LIBNFS_SONAME " (%s): NFS probes "
			"cannot run\n",
			dlerror());
		return;
	}
	bool ok = (*(void **)&N.nfs_init_context = dlsym(N.h, "nfs_init_context")) != NULL;
	LIBNFS_FUNCS(LOAD, VLOAD)
	if (!ok) {
		fprintf(stderr, "hvready-agent: " LIBNFS_SONAME " lacks a needed function\n");
		dlclose(N.h);
		N.h = NULL;
	}
}

/* NULL with errno ELIBACC when the library cannot be loaded (the probe says so). */
struct nfs_context *nfs_init_context(void)
{
	pthread_once(&nfs_once, load_nfs);
	if (!N.h) {
		errno = ELIBACC;
		return NULL;
	}
	return N.nfs_init_context();
}

/* Reached only with a context nfs_init_context() made, so after load_nfs(). */
#define DEFINE(ret, name, params, args, fail)                                                      \
	ret name params                                                                            \
	{                                                                                          \
		return N.h ? N.name args : (fail);                                                 \
	}
#define VDEFINE(name, params, args)                                                                \
	void name params                                                                           \
	{                                                                                          \
		if (N.h)                                                                           \
			N.name args;                                                               \
	}
LIBNFS_FUNCS(DEFINE, VDEFINE)
