// Peer credentials of a connected Unix socket: who is on the other end.
// Linux: SO_PEERCRED gives pid/uid/gid. macOS/BSD: getpeereid for uid/gid and
// LOCAL_PEERPID for the pid. Exposed as peerCred(fd) -> {pid, uid, gid}.
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/un.h>
#include <sys/ucred.h>
#endif

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static napi_value peer_cred(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) {
    napi_throw_type_error(env, NULL, "peerCred(fd) needs a file descriptor");
    return NULL;
  }
  int32_t fd = -1;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "peerCred(fd): fd must be a non-negative integer");
    return NULL;
  }
  int64_t pid = -1, uid = -1, gid = -1;
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return throw_errno(env, "SO_PEERCRED", errno);
  pid = cred.pid;
  uid = cred.uid;
  gid = cred.gid;
#elif defined(__APPLE__)
  uid_t u;
  gid_t g;
  if (getpeereid(fd, &u, &g) != 0) return throw_errno(env, "getpeereid", errno);
  uid = u;
  gid = g;
  pid_t p;
  socklen_t len = sizeof p;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &p, &len) == 0) pid = p;
#else
  uid_t u;
  gid_t g;
  if (getpeereid(fd, &u, &g) != 0) return throw_errno(env, "getpeereid", errno);
  uid = u;
  gid = g;
#endif
  napi_value result, v;
  napi_create_object(env, &result);
  napi_create_int64(env, pid, &v);
  napi_set_named_property(env, result, "pid", v);
  napi_create_int64(env, uid, &v);
  napi_set_named_property(env, result, "uid", v);
  napi_create_int64(env, gid, &v);
  napi_set_named_property(env, result, "gid", v);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "peerCred", NAPI_AUTO_LENGTH, peer_cred, NULL, &fn);
  napi_set_named_property(env, exports, "peerCred", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
