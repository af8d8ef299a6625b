/* governed's one native addon (docs/security.md "How the daemon knows who is calling"): the
 * credentials of the peer of a connected Unix socket, as the KERNEL recorded them at connect()
 * time (getsockopt SO_PEERCRED). Node has no API for it. One function, no state:
 *   peercred(fd: number) -> { pid, uid, gid }   (throws on any error)
 * Built from source by scripts/build-peercred.mjs (npm install / npm run build). */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <node_api.h>

static napi_value peercred(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, "EINVAL", "peercred: a file descriptor is required");
    return NULL;
  }
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
    napi_throw_error(env, "EPEERCRED", "peercred: getsockopt(SO_PEERCRED) failed");
    return NULL;
  }
  napi_value out, pid, uid, gid;
  napi_create_object(env, &out);
  napi_create_int64(env, (int64_t)cred.pid, &pid);
  napi_create_int64(env, (int64_t)cred.uid, &uid);
  napi_create_int64(env, (int64_t)cred.gid, &gid);
  napi_set_named_property(env, out, "pid", pid);
  napi_set_named_property(env, out, "uid", uid);
  napi_set_named_property(env, out, "gid", gid);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "peercred", NAPI_AUTO_LENGTH, peercred, NULL, &fn);
  napi_set_named_property(env, exports, "peercred", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
