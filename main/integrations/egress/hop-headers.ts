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

export type HopHeaders = { drop: (lowerName: string) => boolean } | { refused: string };

/**
 * The hop-by-hop headers of one message from its raw header list (name, value, name, value…).
 * `request`: a request naming Host or Content-Length as an option is refused; a response
 * naming them keeps them (the proxy re-frames it; it goes back to the sandbox only).
 */
export function hopHeaders(rawHeaders: readonly string[], request: boolean): HopHeaders {
  const options = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name !== 'connection' && name !== 'proxy-connection') continue;
    for (const raw of rawHeaders[i + 1]!.split(',')) {
      const token = raw.trim().toLowerCase();
      if (token === '') continue;
      if (NOT_AN_OPTION.has(token)) {
        if (request) return { refused: `a ${rawHeaders[i]} header may not name ${token} (RFC 9110 §7.6.1: it is meant for every recipient)` };
        continue;
      }
      options.add(token);
      if (request && options.size > MAX_CONNECTION_OPTIONS) return { refused: `more than ${MAX_CONNECTION_OPTIONS} Connection options` };
    }
  }
  return { drop: (lower) => HOP.has(lower) || options.has(lower) };
}
