/*
 * A userspace NFSv4 probe of one export: the data-plane half of
 * host.nfs.probe (docs/checks/host.nfs.probe.md), written so that the daemon can drive it from a
 * worker thread.
 *
 * The probe mounts the export in userspace (never the kernel), reads the
 * attributes of its root (GETATTR), and for a canary export only creates a
 * uniquely named file, writes a few bytes, reads them back through a fresh
 * OPEN, compares and removes the file. Everything runs under one deadline.
 *
 * Two clients, NFSv4.1 first:
 *   - hvready's own NFSv4.1 client (nfs41.c) speaks first, on the socket of
 *     our own non-blocking, polled TCP connect: COMPOUND minor version 1,
 *     then 2 if the server refuses 1. Longhorn's share-manager (NFS-Ganesha
 *     with "Minor_Versions = 1, 2") refuses NFSv4.0, and Longhorn's CSI
 *     driver mounts its shares with vers=4.1: this is the path that matters.
 *   - Only when the server refuses both with NFS4ERR_MINOR_VERS_MISMATCH
 *     (an NFSv4.0-only server) does libnfs 4.0 (NFSv4.0, SETCLIENTID) probe
 *     the export, on a connection of its own, within what is left of the
 *     deadline. libnfs's nfs_set_timeout() does not bound its TCP connect,
 *     so its async API is driven with poll() under our deadline.
 * A server that refuses all three answers NFSv4 but nothing a node can mount.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFS_PROBE_DEFAULT_PORT 2049
#define NFS_PROBE_URL_MAX      1024
#define NFS_PROBE_HOST_MAX     253

/* nfs://HOST[:PORT]/EXPORT, as Longhorn writes a volume's shareEndpoint. */
struct nfs_probe_url {
	char host[NFS_PROBE_HOST_MAX + 1]; /* an IPv6 literal without its brackets */
	bool host_is_v6;
	uint16_t port; /* NFS_PROBE_DEFAULT_PORT unless the URL names one */
	bool port_given;
	char export_path[NFS_PROBE_URL_MAX]; /* absolute, "//" collapsed, no trailing "/" */
};

/*
 * Parse and validate an endpoint URL. Returns 0, or -EINVAL with a one-line
 * reason in err (the URL is not repeated there). Queries and fragments are
 * refused: libnfs would read them as its own options.
 */
int nfs_probe_url_parse(const uint8_t *buf, size_t len, struct nfs_probe_url *ret, char *err,
			size_t errlen);

/*
 * The Longhorn volume an export belongs to: Longhorn exports volume V as
 * "/V" (the share-manager's Pseudo path). Writes V to buf and returns true
 * when the export is one path component that is a valid volume name.
 */
bool nfs_probe_url_volume(const struct nfs_probe_url *u, char *buf, size_t len);

enum nfs_probe_step {
	NFS_STEP_RESOLVE, /* host name to address */
	NFS_STEP_CONNECT, /* TCP connection */
	NFS_STEP_MOUNT, /* session (4.1: EXCHANGE_ID, CREATE_SESSION; 4.0: SETCLIENTID) + LOOKUP */
	NFS_STEP_GETATTR, /* attributes of the export root */
	NFS_STEP_CREATE,  /* canary: exclusive create of a new file */
	NFS_STEP_WRITE,	  /* canary: WRITE (4.1: FILE_SYNC4; 4.0: + COMMIT) + CLOSE */
	NFS_STEP_READ,	  /* canary: OPEN for reading + READ + CLOSE */
	NFS_STEP_COMPARE, /* canary: the bytes read are the bytes written */
	NFS_STEP_REMOVE,  /* canary: REMOVE of the file */
	NFS_STEP_DONE,
};

enum nfs_probe_outcome {
	NFS_PROBE_OK,
	NFS_PROBE_NFS_ERROR,	/* the server answered with an NFS error (nfs_status) */
	NFS_PROBE_REFUSED,	/* TCP connection refused */
	NFS_PROBE_SOCKET_ERROR, /* another socket error: no route, unreachable (sock_errno) */
	NFS_PROBE_DISCONNECTED, /* the server closed the connection */
	NFS_PROBE_TIMEOUT,	/* the deadline passed; tcp_connected says how far it got */
	NFS_PROBE_RESOLVE,	/* the host name did not resolve */
	NFS_PROBE_NO_VERSION,	/* the server refuses NFSv4.0, 4.1 and 4.2 */
	NFS_PROBE_RPC_ERROR,	/* the RPC layer refused the call (rpc_status) */
	NFS_PROBE_BAD_REPLY, /* a reply hvready could not decode, or one that breaks the protocol */
	NFS_PROBE_MISMATCH,  /* canary: the bytes read back differ from those written */
	NFS_PROBE_SHORT_IO,  /* canary: the server wrote or read fewer bytes than asked */
	NFS_PROBE_INTERNAL,  /* the probe could not run (libnfs context, a limit of ours) */
};

enum nfs_probe_client {
	NFS_CLIENT_NONE,      /* no NFS request was sent */
	NFS_CLIENT_HVREADY41, /* nfs41.c */
	NFS_CLIENT_LIBNFS40,
};

/* Which root attributes the server returned (root_*). */
#define NFS_ROOT_MODE  (1u << 0)
#define NFS_ROOT_IDS   (1u << 1) /* root_uid, root_gid: numeric owners */
#define NFS_ROOT_NAMES (1u << 2) /* root_owner, root_group: as the server wrote them */

struct nfs_probe_result {
	enum nfs_probe_outcome outcome;
	enum nfs_probe_step step;     /* the step that failed; NFS_STEP_DONE when OK */
	char address[64];	      /* the numeric address probed ("" before resolution) */
	int sock_errno;		      /* socket error behind REFUSED/SOCKET_ERROR, else 0 */
	bool tcp_connected;	      /* a TCP connection was established */
	char nfs_error[256];	      /* what failed: libnfs's error string verbatim, or ours */
	char nfs_status[48];	      /* the NFS4ERR_* name, or "" */
	char rpc_status[48];	      /* RPC_ERROR: "AUTH_TOOWEAK", "PROG_UNAVAIL", ... */
	enum nfs_probe_client client; /* the client that spoke last */
	int nfs_minor;		      /* the NFSv4 minor version agreed on, -1 before */
	unsigned minors_tried, minors_refused; /* bit N: NFSv4.N */
	char server_impl[200];		       /* EXCHANGE_ID's implementation id, if given */
	int64_t limit_ms;		       /* the time this probe was given */
	int64_t elapsed_ms;
	/* -1 when not reached. 4.1: session_ms is EXCHANGE_ID to RECLAIM_COMPLETE, mount_ms
	 * the COMPOUND PUTROOTFH+LOOKUP+GETATTR, getattr_ms -1 (inside it). */
	int64_t connect_ms, session_ms, mount_ms, getattr_ms;
	bool have_root;	     /* root_type is known; root_known says what else */
	uint32_t root_known; /* NFS_ROOT_* */
	uint32_t root_mode;  /* S_IFDIR etc. | permission bits */
	uint32_t root_uid, root_gid;
	char root_owner[64], root_group[64];
	uint64_t root_ino;
	/* Canary only. */
	char canary_file[128];	 /* export-relative path of the file */
	int64_t canary_ms;	 /* create to remove, -1 when not reached */
	size_t canary_bytes;	 /* bytes written */
	bool canary_left_behind; /* created (or maybe created) and not removed */
	bool canary_left_maybe;	 /* whether the create took effect is not known */
};

/*
 * Probe u until deadline_ns (CLOCK_MONOTONIC, as util_now_mono_ns()). Never
 * writes unless canary is true. Always fills ret; the result's outcome tells
 * what happened, and no call here blocks past the deadline.
 */
void nfs_probe_run(const struct nfs_probe_url *u, int64_t deadline_ns, bool canary,
		   struct nfs_probe_result *ret);

const char *nfs_probe_step_name(enum nfs_probe_step s);
const char *nfs_probe_outcome_name(enum nfs_probe_outcome o);
/* "hvready nfs4.1", "libnfs nfs4.0"; NULL for NFS_CLIENT_NONE. */
const char *nfs_probe_client_name(enum nfs_probe_client c);
