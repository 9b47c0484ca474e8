/*
 * airlock-hook: the Claude Code PreToolUse hook as a small native client (issue 15: a hook
 * within 1.1x of `node -e 0` cannot be a Node process, whose first use of `net` alone costs
 * ~8 ms). It decides nothing. It reads stdin (capped), finds request.sock exactly as the Node
 * hook does (same variables, same defaults, the same AIRLOCK_HOOK_HOME pin and the same
 * trust check before connecting: main/integrations/claude-code/socket-pin.ts,
 * main/os/socket-trust.ts), sends ONE JSON-RPC line `hook.claudeCode` with stdin
 * JSON-escaped, reads one reply line (capped, timed out), prints the bytes the daemon
 * chose and exits with its code (main/integrations/claude-code/hook-service.ts).
 *
 * Every failure prints Claude Code's "ask" with a reason, exit 0, as the Node hook does for
 * the same case; an event after the tool ran (PostToolUse) is silent. Nothing here can turn
 * into "allow": only the daemon's reply, decoded from hex, is ever printed as a decision.
 *
 * Plain C11 + POSIX, no dependencies, every buffer bounded. Built by scripts/build.mjs with
 * cc -O2 -Wall -Wextra -Werror into dist/native/airlock-hook.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* macOS has neither (SIGPIPE is ignored below anyway; the descriptor is not inherited by anything). */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
#ifndef SOCK_CLOEXEC
#define SOCK_CLOEXEC 0
#endif

/* main/integrations/claude-code/hook.ts MAX_STDIN */
#define MAX_STDIN (8u * 1024u * 1024u)
/* request.sock's line cap (main/contract/constants.ts LIMITS.lineBytes) */
#define LINE_LIMIT (1024u * 1024u)
/* contract/agent.ts HookClaudeCodeResult: stdoutHex at most 64 KiB */
#define MAX_STDOUT_HEX (64u * 1024u)
#define MAX_REPLY (MAX_STDOUT_HEX + 1024u)
/* main/client/rpc-client.ts connect timeout */
#define CONNECT_TIMEOUT_MS 5000
/* hook.ts REPLY_TIMEOUT_MS: a little under Claude Code's 600 s hook timeout */
#define REPLY_TIMEOUT_MS 590000L
#define SEND_TIMEOUT_MS 30000
/*
 * hook.ts STDIN_TIMEOUT_MS: Claude Code writes the tool call and closes stdin at once. A stdin
 * that stays open would otherwise keep the hook waiting until Claude Code kills it at 600 s, and
 * a PreToolUse hook that times out does not block the tool: it runs. So: ask instead.
 */
#define STDIN_TIMEOUT_MS 30000L
#define PATHBUF 4096
#define REASON_MAX 4096

/* snprintf whose cut is intended: every message is bounded by its buffer, never overflows it. */
__attribute__((format(printf, 3, 4))) static void say(char *out, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, n, fmt, ap);
  va_end(ap);
}

/* ---- growable byte buffer with a hard cap ------------------------------------------ */

struct buf {
  char *p;
  size_t len, cap, max;
  int over; /* set once an append would pass max: the content is then incomplete */
};

static int buf_reserve(struct buf *b, size_t extra) {
  if (b->over) return -1;
  if (extra > b->max - b->len) {
    b->over = 1;
    return -1;
  }
  size_t need = b->len + extra;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < need) cap = cap > b->max / 2 ? b->max : cap * 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->over = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static void buf_add(struct buf *b, const char *s, size_t n) {
  if (n == 0) return; /* nothing to copy (and b->p may still be NULL) */
  if (buf_reserve(b, n) == 0) {
    memcpy(b->p + b->len, s, n);
    b->len += n;
  }
}

static void buf_str(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* ---- JSON string escaping (JSON.stringify's rules) ------------------------------------ */

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned min;
  if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
  else return 0;
  if (n < len) return 0;
  unsigned v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  return len;
}

/*
 * Appends s as the inside of a JSON string. raw_high: bytes >= 0x80 go as they are (the
 * request: the daemon decodes the line as UTF-8, exactly as the Node hook decodes stdin);
 * otherwise invalid UTF-8 becomes U+FFFD (text this program prints itself).
 */
static void json_escape(struct buf *b, const char *s, size_t n, int raw_high) {
  static const char hex[] = "0123456789abcdef";
  size_t i = 0;
  while (i < n && !b->over) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      size_t l = raw_high ? 1 : utf8_len((const unsigned char *)s + i, n - i);
      if (l == 0) {
        buf_add(b, "\xEF\xBF\xBD", 3);
        i++;
      } else {
        buf_add(b, s + i, l);
        i += l;
      }
      continue;
    }
    i++;
    switch (c) {
      case '"': buf_add(b, "\\\"", 2); break;
      case '\\': buf_add(b, "\\\\", 2); break;
      case '\b': buf_add(b, "\\b", 2); break;
      case '\f': buf_add(b, "\\f", 2); break;
      case '\n': buf_add(b, "\\n", 2); break;
      case '\r': buf_add(b, "\\r", 2); break;
      case '\t': buf_add(b, "\\t", 2); break;
      default:
        if (c < 0x20) {
          char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          buf_add(b, u, 6);
        } else {
          char one = (char)c;
          buf_add(b, &one, 1);
        }
    }
  }
}

/* ---- output ----------------------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        struct pollfd pf = {fd, POLLOUT, 0};
        if (poll(&pf, 1, 30000) <= 0) return -1;
        continue;
      }
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The reason, cut like hookOutput's clip(reason, 1000): at a character boundary, with '…'. */
static size_t clip_reason(const char *r, size_t n) {
  if (n <= 1000) return n;
  size_t cut = 999;
  while (cut > 0 && ((unsigned char)r[cut] & 0xC0) == 0x80) cut--;
  return cut;
}

/* Claude Code's own prompt, with a reason (main/integrations/claude-code/hook-input.ts hookOutput). */
static int ask(const char *fmt, ...) {
  char reason[REASON_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  size_t len = n < 0 ? 0 : (size_t)n >= sizeof reason ? sizeof reason - 1 : (size_t)n;
  size_t keep = clip_reason(reason, len);
  struct buf out = {0, 0, 0, 64 * 1024, 0};
  buf_str(&out, "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"");
  json_escape(&out, reason, keep, 0);
  if (keep < len) buf_str(&out, "\xE2\x80\xA6");
  buf_str(&out, "\"}}\n");
  if (!out.over) write_all(1, out.p, out.len);
  free(out.p);
  return 0;
}

/* ---- "is this an event after the tool ran?" (only when the daemon gave no answer) ------- */

static size_t skip_ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

/* A JSON string at s[i] == '"': returns the index after it (0: malformed); *esc: it had escapes. */
static size_t skip_string(const char *s, size_t n, size_t i, int *esc) {
  *esc = 0;
  for (i++; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"') return i + 1;
    if (c < 0x20) return 0;
    if (c == '\\') {
      *esc = 1;
      if (++i >= n) return 0;
    }
  }
  return 0;
}

/* Any JSON value at s[i]: the index after it, 0 when malformed. Nesting is counted, not recursed. */
static size_t skip_value(const char *s, size_t n, size_t i) {
  size_t depth = 0;
  int esc;
  for (;;) {
    i = skip_ws(s, n, i);
    if (i >= n) return 0;
    char c = s[i];
    if (c == '"') {
      if (!(i = skip_string(s, n, i, &esc))) return 0;
    } else if (c == '{' || c == '[') {
      depth++;
      i++;
      continue;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return 0;
      depth--;
      i++;
    } else if (c == ',' || c == ':') {
      if (depth == 0) return 0;
      i++;
      continue;
    } else {
      size_t j = i;
      while (j < n && (s[j] == '-' || s[j] == '+' || s[j] == '.' || (s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z'))) j++;
      if (j == i) return 0;
      i = j;
    }
    if (depth == 0) return i;
  }
}

/*
 * True only when stdin is certainly a JSON object whose last top-level "hook_event_name" is
 * the plain string PostToolUse or PostToolUseFailure (hook-input.ts AFTER_TOOL_EVENTS).
 * Anything it cannot be sure of (escapes in a key or that value, odd syntax) is "no": then the
 * hook asks, which is what it would do for a tool call.
 */
static int after_tool_event(const char *s, size_t n) {
  size_t i = skip_ws(s, n, 0);
  if (i >= n || s[i] != '{') return 0;
  int after = 0;
  i = skip_ws(s, n, i + 1);
  if (i < n && s[i] == '}') return 0;
  for (;;) {
    if (i >= n || s[i] != '"') return 0;
    int kesc, vesc;
    size_t k0 = i + 1, k1 = skip_string(s, n, i, &kesc);
    if (!k1) return 0;
    int is_event = !kesc && k1 - 1 - k0 == 15 && memcmp(s + k0, "hook_event_name", 15) == 0;
    i = skip_ws(s, n, k1);
    if (i >= n || s[i] != ':') return 0;
    i = skip_ws(s, n, i + 1);
    if (i >= n) return 0;
    if (is_event || kesc) after = 0;
    if (is_event && s[i] == '"') {
      size_t v0 = i + 1, v1 = skip_string(s, n, i, &vesc);
      if (!v1) return 0;
      size_t vl = v1 - 1 - v0;
      after = !vesc && ((vl == 11 && memcmp(s + v0, "PostToolUse", 11) == 0) || (vl == 18 && memcmp(s + v0, "PostToolUseFailure", 18) == 0));
      i = v1;
    } else if (!(i = skip_value(s, n, i))) {
      return 0;
    }
    i = skip_ws(s, n, i);
    if (i < n && s[i] == ',') {
      i = skip_ws(s, n, i + 1);
      continue;
    }
    if (i < n && s[i] == '}') break;
    return 0;
  }
  return skip_ws(s, n, i + 1) == n ? after : 0;
}

/* ---- paths (Node's path.resolve / path.join / fs.realpathSync, for what the hook uses) ---- */

static char cwd_buf[PATHBUF];

/* path.resolve(p): absolute against the working directory, `.`/`..`/`//` folded by the letters. */
static int resolve_path(const char *p, char *out, size_t outsz) {
  char tmp[PATHBUF * 2];
  int n = p[0] == '/' ? snprintf(tmp, sizeof tmp, "%s", p) : snprintf(tmp, sizeof tmp, "%s/%s", cwd_buf, p);
  if (n < 0 || (size_t)n >= sizeof tmp) return -1;
  size_t o = 0;
  const char *s = tmp;
  while (*s) {
    while (*s == '/') s++;
    if (!*s) break;
    const char *e = strchr(s, '/');
    size_t l = e ? (size_t)(e - s) : strlen(s);
    if (l == 1 && s[0] == '.') {
      /* nothing */
    } else if (l == 2 && s[0] == '.' && s[1] == '.') {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--;
    } else {
      if (o + 1 + l + 1 > outsz) return -1;
      out[o++] = '/';
      memcpy(out + o, s, l);
      o += l;
    }
    s += l;
  }
  if (o == 0) {
    if (outsz < 2) return -1;
    out[o++] = '/';
  }
  out[o] = 0;
  return 0;
}

/* path.join(a, b) for an absolute a. */
static int join_path(const char *a, const char *b, char *out, size_t outsz) {
  char tmp[PATHBUF * 2];
  int n = snprintf(tmp, sizeof tmp, "%s/%s", a, b);
  if (n < 0 || (size_t)n >= sizeof tmp) return -1;
  return resolve_path(tmp, out, outsz);
}

static void dirname_of(const char *p, char *out, size_t outsz) {
  say(out, outsz, "%s", p);
  char *slash = strrchr(out, '/');
  if (!slash) say(out, outsz, ".");
  else if (slash == out) out[1] = 0;
  else *slash = 0;
}

/* socket-pin.ts realPathOf: symbolic links resolved for the part that exists, the rest appended. */
static int real_path_of(const char *p, char *out, size_t outsz) {
  char abs[PATHBUF], d[PATHBUF], real[PATH_MAX];
  if (resolve_path(p, abs, sizeof abs)) return -1;
  say(d, sizeof d, "%s", abs);
  for (;;) {
    if (realpath(d, real)) {
      const char *rest = abs + strlen(d);
      char joined[PATHBUF * 2];
      int n = snprintf(joined, sizeof joined, "%s%s", real, rest);
      if (n < 0 || (size_t)n >= sizeof joined) return -1;
      return resolve_path(joined, out, outsz);
    }
    if (strcmp(d, "/") == 0) {
      say(out, outsz, "%s", abs);
      return strlen(abs) < outsz ? 0 : -1;
    }
    char up[PATHBUF];
    dirname_of(d, up, sizeof up);
    say(d, sizeof d, "%s", up);
  }
}

static int has_dot_segment(const char *p) {
  const char *s = p;
  while (*s) {
    size_t l = strcspn(s, "/\\");
    if ((l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.')) return 1;
    s += l;
    if (*s) s++;
  }
  return 0;
}

static const char *env_nonempty(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* client/index.ts defaultRequestSocket + os/paths.ts airlockPaths().requestSock. */
static int request_socket(char *out, size_t outsz) {
  const char *explicit_sock = env_nonempty("AIRLOCK_REQUEST_SOCK");
  if (explicit_sock) {
    int n = snprintf(out, outsz, "%s", explicit_sock);
    return n < 0 || (size_t)n >= outsz ? -1 : 0;
  }
  const char *home = env_nonempty("AIRLOCK_HOME");
  char dir[PATHBUF];
  if (home) {
    if (resolve_path(home, dir, sizeof dir)) return -1;
  } else {
    const char *runtime = env_nonempty("XDG_RUNTIME_DIR");
    struct stat st;
    if (runtime && stat(runtime, &st) == 0) {
      int n = snprintf(dir, sizeof dir, "%s/airlock", runtime);
      if (n < 0 || (size_t)n >= sizeof dir) return -1;
    } else {
      /* os.tmpdir(): TMPDIR, TMP, TEMP or /tmp */
      const char *tmp = env_nonempty("TMPDIR");
      if (!tmp) tmp = env_nonempty("TMP");
      if (!tmp) tmp = env_nonempty("TEMP");
      if (!tmp) tmp = "/tmp";
      int n = snprintf(dir, sizeof dir, "%s/airlock-%u", tmp, (unsigned)getuid());
      if (n < 0 || (size_t)n >= sizeof dir) return -1;
    }
  }
  char joined[PATHBUF * 2];
  int n = snprintf(joined, sizeof joined, "%s/request.sock", dir);
  if (n < 0 || (size_t)n >= sizeof joined) return -1;
  return resolve_path(joined, out, outsz);
}

/* socket-pin.ts usablePin: AIRLOCK_HOOK_HOME when absolute and without `.`/`..`, else NULL (refused). */
static const char *usable_pin(void) {
  const char *pinned = getenv("AIRLOCK_HOOK_HOME");
  return pinned && pinned[0] == '/' && !has_dot_segment(pinned) ? pinned : NULL;
}

/*
 * socket-pin.ts hookRequestSocket: under a pin, with neither AIRLOCK_REQUEST_SOCK nor
 * AIRLOCK_HOME set, the pinned directory's request.sock (XDG_RUNTIME_DIR and TMPDIR play no
 * part); otherwise where every client looks.
 */
static int hook_request_socket(char *out, size_t outsz) {
  const char *pin = usable_pin();
  if (pin && !env_nonempty("AIRLOCK_REQUEST_SOCK") && !env_nonempty("AIRLOCK_HOME")) return join_path(pin, "request.sock", out, outsz);
  return request_socket(out, outsz);
}

/* JSON.stringify(value.slice(0, 200)), for a message (cut at a character boundary). */
static void quoted200(const char *v, char *out, size_t outsz) {
  size_t n = strlen(v);
  if (n > 200) {
    n = 200;
    while (n > 0 && ((unsigned char)v[n] & 0xC0) == 0x80) n--;
  }
  struct buf b = {0, 0, 0, 2048, 0};
  buf_str(&b, "\"");
  json_escape(&b, v, n, 0);
  buf_str(&b, "\"");
  say(out, outsz, "%.*s", b.over ? 0 : (int)b.len, b.over ? "" : b.p);
  free(b.p);
}

#define AGAIN "re-run `airlock hook claude-code --install` if you moved AIRLOCK_HOME or the runtime directory"

static void outside(char *why, size_t whysz, const char *name, const char *value, const char *home) {
  char q[2048];
  quoted200(value, q, sizeof q);
  say(why, whysz,
           "%s points outside Airlock's directory %s (%s), which the hook was installed for: a project's .claude/settings.json `env` may be steering it to another \"daemon\". Remove %s from that env; " AGAIN
           "; on a server reached by `airlock remote`, install with `--unpinned`",
           name, home, q, name);
}

/* socket-pin.ts pinnedSocketProblem: 1 and why when the socket is not the pinned daemon's. */
static int pinned_socket_problem(char *why, size_t whysz) {
  const char *pinned = getenv("AIRLOCK_HOOK_HOME");
  if (!pinned) return 0;
  if (pinned[0] != '/' || has_dot_segment(pinned)) {
    char q[2048];
    quoted200(pinned, q, sizeof q);
    say(why, whysz, "AIRLOCK_HOOK_HOME in the hook's command line is not an absolute path (%s); " AGAIN, q);
    return 1;
  }
  char home[PATHBUF];
  if (real_path_of(pinned, home, sizeof home)) {
    say(why, whysz, "AIRLOCK_HOOK_HOME in the hook's command line is too long; " AGAIN);
    return 1;
  }
  const char *names[2] = {"AIRLOCK_REQUEST_SOCK", "AIRLOCK_HOME"};
  for (int k = 0; k < 2; k++) {
    const char *v = env_nonempty(names[k]);
    if (v && has_dot_segment(v)) {
      outside(why, whysz, names[k], v, home);
      return 1;
    }
  }
  const char *ahome = env_nonempty("AIRLOCK_HOME");
  char r[PATHBUF];
  if (ahome && (real_path_of(ahome, r, sizeof r) || strcmp(r, home) != 0)) {
    outside(why, whysz, "AIRLOCK_HOME", ahome, home);
    return 1;
  }
  char sock[PATHBUF], real[PATHBUF], want[PATHBUF], tasks[PATHBUF];
  int found = hook_request_socket(sock, sizeof sock) == 0 && real_path_of(sock, real, sizeof real) == 0;
  if (found && join_path(home, "request.sock", want, sizeof want) == 0 && join_path(home, "tasks", tasks, sizeof tasks) == 0) {
    if (strcmp(real, want) == 0) return 0;
    /* tasks/<id>/request.sock, id = [A-Za-z0-9_-]{1,64} (contract/task-ref.ts) */
    size_t tl = strlen(tasks);
    if (strncmp(real, tasks, tl) == 0 && real[tl] == '/') {
      const char *id = real + tl + 1;
      size_t il = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
      if (il >= 1 && il <= 64 && strcmp(id + il, "/request.sock") == 0) return 0;
    }
  }
  const char *rs = env_nonempty("AIRLOCK_REQUEST_SOCK");
  if (rs) outside(why, whysz, "AIRLOCK_REQUEST_SOCK", rs, home);
  else if (ahome) outside(why, whysz, "AIRLOCK_HOME", ahome, home);
  else if (!found) say(why, whysz, "AIRLOCK_HOOK_HOME in the hook's command line is too long; " AGAIN);
  else {
    /* socket-pin.ts: the pinned directory's own request.sock is a link leading elsewhere */
    char q[2048];
    quoted200(real, q, sizeof q);
    say(why, whysz,
        "%s leads outside Airlock's directory %s (to %s), which the hook was installed for: something replaced the daemon's socket with a link. Remove it and restart the daemon; " AGAIN,
        sock, home, q);
  }
  return 1;
}

/* ---- os/socket-trust.ts socketDistrust ------------------------------------------------ */

static int dir_chain_distrust(const char *dir, uid_t uid, char *why, size_t whysz) {
  char d[PATHBUF];
  say(d, sizeof d, "%s", dir);
  for (;;) {
    struct stat st;
    if (lstat(d, &st) == 0) {
      int trusted = st.st_uid == uid || st.st_uid == 0;
      if (S_ISLNK(st.st_mode)) {
        if (!trusted) {
          say(why, whysz, "%s is a symbolic link of uid %u, not yours", d, (unsigned)st.st_uid);
          return 1;
        }
      } else {
        if (!trusted) {
          say(why, whysz, "%s belongs to uid %u, not to you", d, (unsigned)st.st_uid);
          return 1;
        }
        if ((st.st_mode & 022) != 0 && (st.st_mode & 01000) == 0) {
          say(why, whysz, "%s is writable by group or others (mode %o)", d, (unsigned)(st.st_mode & 07777));
          return 1;
        }
        if (st.st_uid == 0 && uid != 0 && S_ISDIR(st.st_mode)) return 0;
      }
    }
    if (strcmp(d, "/") == 0 || strchr(d, '/') == NULL) return 0;
    char up[PATHBUF];
    dirname_of(d, up, sizeof up);
    say(d, sizeof d, "%s", up);
  }
}

static int socket_distrust(const char *sock, char *why, size_t whysz) {
  uid_t uid = getuid();
  char abs[PATHBUF], dir[PATHBUF], real_dir[PATH_MAX];
  if (resolve_path(sock, abs, sizeof abs)) {
    say(why, whysz, "the path is too long to check");
    return 1;
  }
  dirname_of(abs, dir, sizeof dir);
  if (dir_chain_distrust(dir, uid, why, whysz)) return 1;
  if (!realpath(dir, real_dir)) return 0;
  if (strcmp(real_dir, dir) != 0 && dir_chain_distrust(real_dir, uid, why, whysz)) return 1;
  struct stat st;
  if (lstat(abs, &st) != 0) return 0;
  if (st.st_uid != uid && st.st_uid != 0) {
    say(why, whysz, "%s belongs to uid %u, not to you", abs, (unsigned)st.st_uid);
    return 1;
  }
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX], tdir[PATHBUF];
    struct stat t;
    if (!realpath(abs, target)) return 0;
    if (lstat(target, &t) != 0) return 0;
    if (t.st_uid != uid && t.st_uid != 0) {
      say(why, whysz, "%s leads to %s, which belongs to uid %u, not to you", abs, target, (unsigned)t.st_uid);
      return 1;
    }
    dirname_of(target, tdir, sizeof tdir);
    return dir_chain_distrust(tdir, uid, why, whysz);
  }
  return 0;
}

/* ---- the connection ------------------------------------------------------------------ */

static void set_timeout(int fd, int opt, long ms) {
  struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv);
}

/* -1 and a reason in `why` (0: the daemon is simply not there, 1: something else). */
static int connect_daemon(const char *sock, char *why, size_t whysz, int *unavailable) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(sock) >= sizeof addr.sun_path) {
    say(why, whysz, "cannot connect to %s: the path is longer than a Unix socket path may be (%zu bytes)", sock, sizeof addr.sun_path - 1);
    *unavailable = 0;
    return -1;
  }
  memcpy(addr.sun_path, sock, strlen(sock) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    say(why, whysz, "cannot connect to %s: %s", sock, strerror(errno));
    *unavailable = 0;
    return -1;
  }
  /* A Unix-socket connect waits (full backlog) for at most the send timeout. */
  set_timeout(fd, SO_SNDTIMEO, CONNECT_TIMEOUT_MS);
  int r;
  do r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    int e = errno;
    close(fd);
    /* client/index.ts isDaemonUnavailable: ENOENT, ECONNREFUSED, ENOTSOCK, EACCES, timed out */
    *unavailable = e == ENOENT || e == ECONNREFUSED || e == ENOTSOCK || e == EACCES || e == EAGAIN || e == ETIMEDOUT || e == EINPROGRESS;
    say(why, whysz, "cannot connect to %s: %s", sock, strerror(e));
    return -1;
  }
  set_timeout(fd, SO_SNDTIMEO, SEND_TIMEOUT_MS);
  return fd;
}

static int send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads one line (without '\n') into r by `deadline` (the whole call's, main). 0 ok; else a reason in why. */
static int read_line(int fd, struct buf *r, long deadline, long timeout_ms, char *why, size_t whysz) {
  char chunk[16384];
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) {
      say(why, whysz, "no answer from the Airlock daemon in %ld s", timeout_ms / 1000);
      return -1;
    }
    struct pollfd pf = {fd, POLLIN, 0};
    int pr = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
    if (pr < 0) {
      if (errno == EINTR) continue;
      say(why, whysz, "%s", strerror(errno));
      return -1;
    }
    if (pr == 0) continue;
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      say(why, whysz, "%s", strerror(errno));
      return -1;
    }
    if (n == 0) {
      say(why, whysz, "connection to the Airlock daemon closed");
      return -1;
    }
    char *nl = memchr(chunk, '\n', (size_t)n);
    buf_add(r, chunk, nl ? (size_t)(nl - chunk) : (size_t)n);
    if (r->over) {
      say(why, whysz, "the daemon's answer is longer than %u bytes", (unsigned)r->max);
      return -1;
    }
    if (nl) return 0;
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/*
 * The reply, exactly {"jsonrpc":"2.0","id":1,"result":{"exitCode":N,"stdoutHex":"…"}} (the two
 * keys in either order, nothing else). 0 and the decoded bytes, or -1 and why.
 */
static int parse_reply(const char *s, size_t n, int *exit_code, struct buf *out, char *why, size_t whysz) {
  static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{";
  static const char err_head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":";
  static const char err_null[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":";
  size_t hl = sizeof head - 1;
  if (n > 0 && s[n - 1] == '\r') n--;
  if (n < hl || memcmp(s, head, hl) != 0) {
    const char *e = NULL;
    if (n > sizeof err_head - 1 && memcmp(s, err_head, sizeof err_head - 1) == 0) e = s + sizeof err_head - 1;
    else if (n > sizeof err_null - 1 && memcmp(s, err_null, sizeof err_null - 1) == 0) e = s + sizeof err_null - 1;
    if (e) {
      long code = strtol(e, NULL, 10);
      say(why, whysz, "the daemon answered with JSON-RPC error %ld%s", code, code == -32600 ? ", a request it refused as too long or malformed" : "");
    } else {
      say(why, whysz, "the daemon's answer is not a hook answer");
    }
    return -1;
  }
  size_t i = hl;
  int have_code = 0, have_hex = 0;
  for (int k = 0; k < 2; k++) {
    if (n - i >= 11 && memcmp(s + i, "\"exitCode\":", 11) == 0 && !have_code) {
      i += 11;
      long v = 0;
      size_t d = 0;
      while (i < n && s[i] >= '0' && s[i] <= '9' && d < 4) v = v * 10 + (s[i++] - '0'), d++;
      if (d == 0 || d > 3 || v > 255) break;
      *exit_code = (int)v;
      have_code = 1;
    } else if (n - i >= 13 && memcmp(s + i, "\"stdoutHex\":\"", 13) == 0 && !have_hex) {
      i += 13;
      size_t h0 = i;
      while (i < n && s[i] != '"') i++;
      if (i >= n) break;
      size_t hlen = i - h0;
      if (hlen % 2 || hlen > MAX_STDOUT_HEX) break;
      for (size_t j = 0; j < hlen; j += 2) {
        int a = hexval(s[h0 + j]), b = hexval(s[h0 + j + 1]);
        if (a < 0 || b < 0) {
          out->over = 1;
          break;
        }
        char c = (char)(a * 16 + b);
        buf_add(out, &c, 1);
      }
      if (out->over) break;
      i++;
      have_hex = 1;
    } else {
      break;
    }
    if (k == 0) {
      if (i >= n || s[i] != ',') break;
      i++;
    }
  }
  if (!have_code || !have_hex || n - i != 2 || s[i] != '}' || s[i + 1] != '}') {
    say(why, whysz, "the daemon's answer is not a hook answer");
    return -1;
  }
  return 0;
}

/* ---- stdin ------------------------------------------------------------------------- */

/*
 * 0: all of stdin in b; 1: over the cap; -1: a read error or no end of input by `deadline`
 * (why). Every read waits in poll() first, so a stdin that is never closed ends here.
 */
static int read_stdin(struct buf *b, long deadline, long timeout_ms, char *why, size_t whysz) {
  char chunk[65536];
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) {
      say(why, whysz, "the tool call on stdin did not end within %ld s", (timeout_ms + 999) / 1000);
      return -1;
    }
    struct pollfd pf = {0, POLLIN, 0};
    int pr = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
    if (pr < 0 && errno != EINTR) {
      say(why, whysz, "%s", strerror(errno));
      return -1;
    }
    if (pr <= 0) continue;
    ssize_t n = read(0, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue; /* a non-blocking stdin: poll again */
      say(why, whysz, "%s", strerror(errno));
      return -1;
    }
    if (n == 0) return 0;
    buf_add(b, chunk, (size_t)n);
    if (b->over) return 1;
  }
}

/* ---- main -------------------------------------------------------------------------- */

/* Adds ,"name":"value" when the value is set and at most max bytes (hook.ts hookParams). */
static void add_param(struct buf *line, const char *name, const char *value, size_t max) {
  if (!value || strlen(value) > max) return;
  buf_str(line, ",\"");
  buf_str(line, name);
  buf_str(line, "\":\"");
  json_escape(line, value, strlen(value), 1);
  buf_str(line, "\"");
}

static const char *home_dir(void) {
  const char *h = env_nonempty("HOME");
  if (h) return h;
  struct passwd *pw = getpwuid(getuid());
  return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* The reply timeout: REPLY_TIMEOUT_MS, or shorter by AIRLOCK_HOOK_REPLY_TIMEOUT_MS (tests; the
 * installed command unsets it: install.ts HOOK_UNSET_ENV). */
static long reply_timeout(void) {
  long timeout = REPLY_TIMEOUT_MS;
  const char *t = getenv("AIRLOCK_HOOK_REPLY_TIMEOUT_MS");
  if (t && *t) {
    char *end;
    long v = strtol(t, &end, 10);
    if (*end == 0 && v > 0 && v < timeout) timeout = v;
  }
  return timeout;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  /* One deadline for the whole call, counted from the start: reading stdin, connecting and
   * sending come out of the same budget as the wait for the human, so the hook always answers
   * before Claude Code's 600 s (a hook killed at its timeout lets the tool run). */
  long timeout = reply_timeout();
  long started = now_ms();
  long deadline = started + timeout;
  long stdin_deadline = started + (STDIN_TIMEOUT_MS < timeout ? STDIN_TIMEOUT_MS : timeout);
  if (!getcwd(cwd_buf, sizeof cwd_buf)) say(cwd_buf, sizeof cwd_buf, "/");

  char why[REASON_MAX] = "";
  char sock[PATHBUF];
  int fd = -1, unavailable = 0;
  char conn_why[REASON_MAX] = "";
  /* A socket outside the pinned directory is never connected to. */
  int pin = pinned_socket_problem(why, sizeof why);
  if (!pin) {
    if (hook_request_socket(sock, sizeof sock) != 0) {
      say(conn_why, sizeof conn_why, "Airlock is unreachable: the request socket's path is too long");
    } else {
      char distrust[REASON_MAX];
      if (socket_distrust(sock, distrust, sizeof distrust)) {
        say(conn_why, sizeof conn_why,
                 "Airlock is unreachable: Airlock will not connect to %s: %s. Another user may have planted it to answer in the daemon's place. Remove it (if it is yours to remove), or set XDG_RUNTIME_DIR to your private runtime directory or AIRLOCK_HOME to a directory only you can write, for the daemon and its clients alike.",
                 sock, distrust);
      } else {
        /* Connected before stdin is read: the daemon reads our process tree meanwhile. */
        char cwhy[REASON_MAX];
        fd = connect_daemon(sock, cwhy, sizeof cwhy, &unavailable);
        if (fd < 0) {
          /* socket-pin.ts daemonNotRunning: under a pin, where it looked and what to do */
          char shown[PATHBUF];
          if (unavailable && usable_pin() && resolve_path(sock, shown, sizeof shown) == 0)
            say(conn_why, sizeof conn_why,
                "the Airlock daemon is not running (nothing answers at %s, where the hook was installed to find it; if the daemon now runs with another AIRLOCK_HOME, re-run `airlock hook claude-code --install` with that AIRLOCK_HOME exported)",
                shown);
          else if (unavailable) say(conn_why, sizeof conn_why, "the Airlock daemon is not running");
          else say(conn_why, sizeof conn_why, "Airlock is unreachable: %s", cwhy);
        }
      }
    }
  }

  struct buf in = {0, 0, 0, MAX_STDIN, 0};
  char rwhy[512];
  int rs = read_stdin(&in, stdin_deadline, stdin_deadline - started, rwhy, sizeof rwhy);
  if (rs != 0) {
    if (fd >= 0) close(fd);
    if (rs > 0) return ask("Airlock hook failed (stdin larger than %u bytes); asking instead", MAX_STDIN);
    return ask("Airlock hook failed (%s); asking instead", rwhy);
  }
  int after = after_tool_event(in.p ? in.p : "", in.len);
  if (pin) return after ? 0 : ask("Airlock did not ask: %s; asking instead", why);
  if (fd < 0) return after ? 0 : ask("%s; falling back to Claude Code's own prompt", conn_why);

  struct buf line = {0, 0, 0, LINE_LIMIT + 1, 0};
  buf_str(&line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hook.claudeCode\",\"params\":{\"stdin\":\"");
  json_escape(&line, in.p ? in.p : "", in.len, 1);
  buf_str(&line, "\"");
  add_param(&line, "cwd", cwd_buf, 4096);
  add_param(&line, "home", home_dir(), 4096);
  add_param(&line, "claudeConfigDir", getenv("CLAUDE_CONFIG_DIR"), 4000);
  add_param(&line, "task", env_nonempty("AIRLOCK_TASK"), 256);
  add_param(&line, "taskToken", env_nonempty("AIRLOCK_TASK_TOKEN"), 256);
  buf_str(&line, "}}");
  if (line.over || line.len > LINE_LIMIT) {
    close(fd);
    if (after) return 0;
    return ask("Airlock did not ask: this tool call is over request.sock's %u-byte line limit as a request; asking instead", LINE_LIMIT);
  }
  buf_add(&line, "\n", 1);
  free(in.p);
  if (send_all(fd, line.p, line.len) != 0) {
    int e = errno;
    close(fd);
    return after ? 0 : ask("Airlock could not decide (%s); asking instead", strerror(e));
  }
  free(line.p);

  struct buf reply = {0, 0, 0, MAX_REPLY, 0};
  char pwhy[REASON_MAX];
  if (read_line(fd, &reply, deadline, timeout, pwhy, sizeof pwhy) != 0) {
    close(fd);
    return after ? 0 : ask("Airlock could not decide (%s); asking instead", pwhy);
  }
  close(fd);
  int exit_code = 0;
  struct buf out = {0, 0, 0, MAX_STDOUT_HEX / 2, 0};
  if (parse_reply(reply.p ? reply.p : "", reply.len, &exit_code, &out, pwhy, sizeof pwhy) != 0) {
    return after ? 0 : ask("Airlock could not decide (%s); asking instead", pwhy);
  }
  if (out.len) write_all(1, out.p, out.len);
  return exit_code;
}
