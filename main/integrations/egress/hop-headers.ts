// Which headers belong to one hop and are never forwarded by the egress proxy (RFC 9110
// §7.6.1): the standard set, and every header a message's `Connection` (or the older
// `Proxy-Connection`) names as a connection option. A header named there was meant for
// this hop only; forwarding it hands a server what the client addressed to the proxy.
//
// What a Connection option may NOT remove: the one checked `Host` (the proxy always writes
// it itself) and the framing (`Content-Length`; `Transfer-Encoding` is hop-by-hop and
// re-framed by the proxy). A request naming either is refused: RFC 9110 says a sender must
// never list a header meant for every recipient, and guessing what it meant could change
// where a request goes or where its body ends. A header that would carry an injected
// secret and is named as an option is dropped before injection: the secret is then not
// sent at all, never sent anywhere else.

/** Headers that belong to one hop (RFC 9110 §7.6.1) or to the proxy, never forwarded. */
export const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Connection options a request may not name: the proxy checks and writes these itself. */
const NOT_AN_OPTION = new Set(['host', 'content-length']);

/** At most this many options in a request (a longer list is refused: no real client sends one; a response is bounded by Node's header size limit). */
export const MAX_CONNECTION_OPTIONS = 64;

/** A request's hop-by-hop headers, or why the request is refused. */
export type RequestHopHeaders = { drop: (lowerName: string) => boolean } | { refused: string };

/**
 * The Connection options of one message's raw header list (name, value, name, value…), and
 * the first Connection line that names a header it may not (Host, Content-Length), which a
 * request is refused for and a response keeps. The list is bounded by Node's header size limit.
 */
function connectionOptions(rawHeaders: readonly string[]): { options: Set<string>; forbidden: string | null } {
  const options = new Set<string>();
  let forbidden: string | null = null;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name !== 'connection' && name !== 'proxy-connection') continue;
    for (const raw of rawHeaders[i + 1]!.split(',')) {
      const token = raw.trim().toLowerCase();
      if (token === '') continue;
      if (NOT_AN_OPTION.has(token)) forbidden ??= `a ${rawHeaders[i]} header may not name ${token} (RFC 9110 §7.6.1: it is meant for every recipient)`;
      else options.add(token);
    }
  }
  return { options, forbidden };
}

const dropper = (options: Set<string>) => (lower: string) => HOP.has(lower) || options.has(lower);

/**
 * The hop-by-hop headers of a request from the sandbox: refused when a Connection option
 * names Host or Content-Length, or names more than MAX_CONNECTION_OPTIONS.
 */
export function requestHopHeaders(rawHeaders: readonly string[]): RequestHopHeaders {
  const { options, forbidden } = connectionOptions(rawHeaders);
  if (forbidden) return { refused: forbidden };
  if (options.size > MAX_CONNECTION_OPTIONS) return { refused: `more than ${MAX_CONNECTION_OPTIONS} Connection options` };
  return { drop: dropper(options) };
}

/**
 * The hop-by-hop headers of a response from upstream: never refused (naming Host or
 * Content-Length keeps them: the proxy re-frames the response, and it goes back to the
 * sandbox only; the number of options is bounded by Node's header size limit).
 */
export function responseHopHeaders(rawHeaders: readonly string[]): (lowerName: string) => boolean {
  return dropper(connectionOptions(rawHeaders).options);
}
