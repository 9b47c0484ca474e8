// What one simple command does, from its argv: the table of known programs. Pure; the
// tree walk (shell.ts) handles pipes, redirections, substitutions and sequences.
//
// Rules of thumb: anything that reaches the network is `transfer` (a GET can carry data
// out in its URL); anything that runs code we cannot see is `execute`; an unknown
// program is `execute`. Resources are absolute paths when the cwd is known, and hosts for
// network peers, so grants and the core's chain rules can match them.
// Over 400 lines on purpose: a table of programs, one short entry each.
import * as path from 'node:path';
import type { Action, RiskLevel } from '../../contract/common';
import { ACTION_RANK } from './limits';
import { prefixVerdict } from './sh-env';
import { checkForm } from './sh-flags';
import { GIT_GLOBAL, GIT_MIXED, GIT_READ } from './sh-git';
import { gitTreeChange } from './sh-git-tree';
import type { GitTreeSpec } from '../ports';
import { checkRead, DOCKER_READ, KUBECTL_READ } from './sh-readonly';
import { isHomePath, resolvePath, type WordValue } from './sh-words';
import { isWithin } from './path-within';
import { expandBraces } from './sh-braces';
import { cmake, make } from './sh-build';
import { treeSecrets } from './sh-trees';
import { aliasesOf, type Alias } from './sh-links';

export type Arg = WordValue;
export interface RiskReason {
  level: RiskLevel;
  reason: string;
}

export interface CmdResult {
  action: Action;
  resources: string[];
  reasons: RiskReason[];
  /** Fetches from the network (for `curl … | sh`). */
  download?: boolean;
  /** An interpreter that reads its program from stdin (`sh`, `python -`). */
  runsStdin?: boolean;
  /** That program is shell text (a here-document to `bash` can be classified). */
  stdinIsShell?: boolean;
  /** Path of a program or script file this runs (for "chmod +x then run"). */
  runs?: string;
  makesExecutable?: string[];
  /** Files it writes (for "writes or downloads a file, then runs it"). */
  writes?: string[];
  /** `cd`: the new working directory (null when it cannot be known). */
  cd?: string | null;
  /** A shell script this runs that we can read (`sh -c '…'`, `eval '…'`, `find -exec`). */
  script?: { text: string; dynamic: boolean };
  /** The script is classified for what it touches, but this command stays as it is (eval, zsh -c, bash -O …). */
  scriptOpaque?: boolean;
  /** An argv this runs (`xargs rm`, `find -exec rm {} ;`). */
  argv?: Arg[];
  /**
   * How the argv's action combines with this one: `inner` takes the inner action (find
   * -exec: `{}` is a path it found), `wrapper` makes anything but a plain read execute
   * (xargs: input can add any argument).
   */
  argvMode?: 'inner' | 'wrapper';
  /** What a git command that rewrites the work tree writes, as a question for the daemon (sh-git-tree.ts). */
  gitTree?: GitTreeSpec;
  /** A git command that changes only the index and HEAD's branch (add, commit): a later tree change in the line compares the work tree too. */
  gitIndexOnly?: boolean;
  /** A git command that runs the repository's hooks (commit, merge, push, checkout …). */
  runsGitHooks?: boolean;
  /** It writes files its arguments do not name (an archive's or a diff's contents do): why. */
  unlisted?: string;
  /** A program this table does not know, or a file outside the system directories (`./x.sh`). */
  unknown?: boolean;
  /** Paths it makes that stand for another (a link, a copy, a move): sh-links.ts. */
  aliases?: Alias[];
  /** A directory where it may make symbolic links no word names (git checks out a tree there). */
  plantsLinks?: string;
}

export interface CmdContext {
  cwd: string | undefined;
  /** The session's working directory, before any `cd` in the command (undefined: unknown). */
  origin?: string;
}


/** Splits options from positional arguments; `withValue` lists options that take one. */
function positionals(args: Arg[], withValue: ReadonlySet<string> = new Set(), longNames: readonly string[] = []): { pos: Arg[]; opts: Map<string, Arg | true> } {
  const pos: Arg[] = [];
  const opts = new Map<string, Arg | true>();
  // GNU getopt and git take any unambiguous prefix of a long option (`gzip --suf .x f` is
  // --suffix): a prefix of one we know is that option, under its full name.
  const known = [...withValue].filter((o) => o.startsWith('--')).concat(longNames);
  const full = (o: string) => (known.includes(o) || o.length < 3 ? o : (known.find((k) => k.startsWith(o) && withValue.has(k)) ?? known.find((k) => k.startsWith(o)) ?? o));
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.text === '--') {
      pos.push(...args.slice(i + 1));
      break;
    }
    if (a.text.startsWith('--') && a.text.length > 2) {
      const eq = a.text.indexOf('=');
      // An option whose name is computed at run time (`--warc-file$x`, `--output-file$(:)`)
      // may take the next word as its value: a word for the caller to judge as computed, as
      // a short one is (`wget --warc-file$x lnk-hooks/pre-commit URL` wrote into .git/hooks
      // under a grant for that command; the write fuzzer, seed 21).
      if (a.dynamic && /[$`]/.test(eq > 0 ? a.text.slice(0, eq) : a.text)) {
        pos.push(a);
        continue;
      }
      const name = full(eq > 0 ? a.text.slice(0, eq) : a.text);
      if (eq > 0) opts.set(name, { text: a.text.slice(eq + 1), dynamic: a.dynamic });
      else if (withValue.has(name) && i + 1 < args.length) opts.set(name, args[++i]);
      else opts.set(name, true);
      continue;
    }
    if (a.text.startsWith('-') && a.text.length > 1 && !a.dynamic) {
      // Short options may be bundled (-rf); one that takes a value ends the bundle.
      for (let j = 1; j < a.text.length; j++) {
        const o = '-' + a.text[j];
        if (withValue.has(o)) {
          const rest = a.text.slice(j + 1);
          if (rest) opts.set(o, { text: rest, dynamic: false });
          else if (i + 1 < args.length) opts.set(o, args[++i]);
          else opts.set(o, true);
          break;
        }
        opts.set(o, true);
      }
      continue;
    }
    pos.push(a);
  }
  return { pos, opts };
}

/** `t` is the long option `full` or an abbreviation of it (`--rec`, `--ta=d`): GNU getopt takes any unambiguous prefix. */
const longOpt = (t: string, full: string) => {
  const name = t.split('=')[0]!;
  return name.length >= 3 && name.startsWith('--') && full.startsWith(name);
};

/** Like paths, with `-` kept as the file it may be. */
const namesWithDash = (args: Arg[], ctx: CmdContext) => args.filter((a) => a.text !== '').map((a) => resolvePath(a.text, ctx.cwd, a.dynamic));

const paths = (args: Arg[], ctx: CmdContext) => args.filter((a) => a.text !== '-' && a.text !== '').map((a) => resolvePath(a.text, ctx.cwd, a.dynamic));

/** The host of a URL-ish argument, or null when it is not one. */
export function hostOf(s: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^:/?#]+)/i.exec(s);
  if (m) return m[1].toLowerCase();
  // curl accepts bare hosts: example.com/x, localhost:8080
  const bare = /^([a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)(?::\d+)?(?:[/?#]|$)/i.exec(s);
  return bare ? bare[1].toLowerCase() : null;
}

/** `user@host:path` (scp, rsync) → host; null for a local path. */
function remoteHost(s: string): string | null {
  if (s.startsWith('/') || s.startsWith('.') || s.startsWith('~')) return null;
  const url = /^(?:scp|sftp|rsync|ssh):\/\//i.test(s) ? hostOf(s) : null;
  if (url) return url;
  const m = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:]+):{1,2}/.exec(s);
  return m ? m[1].toLowerCase() : null;
}

function result(action: Action, resources: string[] = [], extra: Partial<CmdResult> = {}): CmdResult {
  return { action, resources, reasons: [], ...extra };
}

/**
 * A lookup table without a prototype: a command named `constructor` or `toString` must
 * find nothing here, not Object.prototype's members (found by the shell fuzzer).
 */
function lookupTable<T>(entries: Record<string, T>): Record<string, T | undefined> {
  return Object.assign(Object.create(null) as Record<string, T | undefined>, entries);
}

// --- writes / deletes -------------------------------------------------------------------

export const DELETE_CMDS: Record<string, Set<string> | undefined> = lookupTable({
  rm: new Set(),
  rmdir: new Set(),
  unlink: new Set(),
  shred: new Set(['-n', '-s', '--iterations', '--size']),
  truncate: new Set(['-s', '-r', '--size', '--reference']),
  srm: new Set(),
  wipe: new Set(),
});
export const WRITE_CMDS: Record<string, Set<string> | undefined> = lookupTable({
  mv: new Set(['-S', '-t', '--suffix', '--target-directory']),
  cp: new Set(['-S', '-t', '--suffix', '--target-directory']),
  tee: new Set(),
  touch: new Set(['-d', '-t', '-r', '--date', '--reference']),
  mkdir: new Set(['-m', '--mode']),
  ln: new Set(['-S', '-t', '--suffix', '--target-directory']),
  // `link FILE NAME` makes a hard link: NAME is FILE (risk judges both, core/risk.ts).
  link: new Set(),
  install: new Set(['-m', '-o', '-g', '-t', '-S', '--mode', '--owner', '--group', '--target-directory', '--suffix', '--strip-program']),
  patch: new Set(['-p', '-i', '-o', '-d', '-B', '--input', '--output', '--directory']),
  unzip: new Set(['-d', '-x']),
  gzip: new Set(['-S', '--suffix']),
  gunzip: new Set(['-S', '--suffix']),
  zip: new Set(['-x', '-i']),
  split: new Set(['-l', '-b', '-n', '-a', '-C', '-t', '--lines', '--bytes', '--number', '--suffix-length', '--line-bytes', '--separator', '--additional-suffix', '--filter']),
  mkfifo: new Set(['-m']),
  mktemp: new Set(['-p', '--tmpdir', '--suffix']),
  mknod: new Set(['-m']),
  rename: new Set(),
});
/** Long options without a value that change what a writer writes (matched by prefix too: `cp --b`). */
const WRITE_LONG_FLAGS = ['--backup', '--decompress', '--uncompress', '--no-target-directory'];
/** Programs whose first positional is a mode/owner, not a file. */
export const MODE_FIRST: Record<string, Set<string> | undefined> = lookupTable({
  chmod: new Set(['--reference']),
  chown: new Set(['--reference', '--from']),
  chgrp: new Set(['--reference']),
  setfacl: new Set(['-m', '-x', '-M', '-X', '--set', '--modify', '--remove', '--set-file', '--modify-file', '--remove-file']),
});
const DISK_DESTROYERS = new Set(['mkfs', 'wipefs', 'fdisk', 'sfdisk', 'parted', 'gdisk', 'sgdisk', 'blkdiscard']);

// --- network ---------------------------------------------------------------------------

const CURL_VALUE = new Set([
  '-o', '-d', '-F', '-H', '-X', '-u', '-T', '-e', '-A', '-b', '-c', '-x', '-w', '-m', '-K', '-r', '-C', '-E', '-D', '-U', '-Y', '-y', '-z', '-P', '-Q',
  '--output', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '--form', '--form-string', '--header',
  '--request', '--user', '--upload-file', '--referer', '--user-agent', '--cookie', '--cookie-jar', '--proxy', '--write-out', '--max-time',
  '--retry', '--config', '--range', '--resolve', '--connect-timeout', '--cert', '--key', '--cacert', '--dump-header', '--url', '--output-dir',
  '--connect-to', '--interface', '--limit-rate', '--oauth2-bearer', '--proxy-user', '--unix-socket', '--abstract-unix-socket',
  '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--etag-compare', '--hsts', '--alt-svc',
]);
/**
 * curl options whose value is a file curl writes (headers, cookies, traces, its error
 * output, the equivalent C program, ETag, HSTS and Alt-Svc caches): each is a resource,
 * as -o is (`curl -D .git/hooks/pre-commit URL` wrote the hook; the write fuzzer).
 */
const CURL_WRITES = ['-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--hsts', '--alt-svc'];
const CURL_UPLOAD = ['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '-F', '--form', '--form-string', '-T', '--upload-file'];
const WGET_VALUE = new Set([
  '-O', '-o', '-a', '-i', '-P', '-t', '-T', '-U', '-e', '-w', '-Q', '-l', '--output-document', '--output-file', '--input-file',
  '--directory-prefix', '--tries', '--timeout', '--user-agent', '--header', '--post-data', '--post-file', '--body-data', '--body-file',
  '--method', '--user', '--password', '--execute', '--wait', '--level', '--quota',
  '--append-output', '--save-cookies', '--load-cookies', '--rejected-log', '--hsts-file', '--warc-file', '--use-askpass', '--config', '--backups',
]);
const SSH_VALUE = new Set(['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w', '-B', '-P']);
const NETCAT = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'sftp', 'tftp', 'lftp', 'ping', 'dig', 'nslookup', 'host', 'traceroute', 'mosh', 'openssl']);

const INTERACTIVE_CLIENTS: Record<string, string | undefined> = lookupTable({
  ftp: 'ftp runs the commands it reads, and its ! runs a local shell command',
  sftp: 'sftp runs the commands it reads (standard input, -b), and its ! runs a local shell command',
  lftp: 'lftp runs the commands it is given (-c, -e, -f, standard input), and its ! runs a local shell command',
  telnet: 'telnet runs the commands it reads, and its ! runs a local shell command',
  mosh: 'mosh opens a shell on the host (what it is sent runs there), and --ssh/--server name programs it runs',
});

/**
 * socat's addresses: EXEC:/SYSTEM:/SHELL: run a program (`socat tcp-listen:… exec:/bin/sh`
 * is a bind shell; GTFOBins), OPEN:/CREATE:/GOPEN:/FILE:/PIPE: and a bare path name files.
 * Only network addresses make it a transfer; files alone make it a write.
 */
function socat(args: Arg[], r: CmdResult, ctx: CmdContext): CmdResult {
  const addresses = args.filter((a) => !/^-[a-zA-Z]/.test(a.text));
  const runs = addresses.find((a) => /^(exec|system|shell)[:,]/i.test(a.text) || a.dynamic);
  const files: string[] = [];
  let network = false;
  for (const a of addresses) {
    const m = /^(open|create|creat|gopen|file|pipe|named|unix-connect|unix-listen|unix-client|unix):([^,]*)/i.exec(a.text);
    if (m) files.push(resolvePath(m[2]!, ctx.cwd, a.dynamic));
    else if (!/:/.test(a.text) && a.text.includes('/')) files.push(resolvePath(a.text.split(',')[0]!, ctx.cwd, a.dynamic));
    else if (!/^(-|stdio|stdin|stdout|stderr|fd:\d+|\d+)(,|$)/i.test(a.text) && !/^(exec|system|shell)[:,]/i.test(a.text)) network = true;
  }
  const resources = [...r.resources.filter((h) => network && !/^(open|create|creat|gopen|file|pipe|named|unix[a-z-]*|exec|system|shell):/i.test(h) && !h.includes('/')), ...files];
  if (runs) return { ...r, action: 'execute', resources: [...resources, runs.text], reasons: [{ level: 'high', reason: `socat runs a program (${clipText(runs.text, 60)})` }] };
  return { ...r, action: network ? 'transfer' : 'write', resources };
}

/** openssl options whose value is a file it writes. */
const OPENSSL_WRITES = new Set(['out', 'keyout', 'sess_out', 'keylogfile', 'writerand', 'reqout', 'respout', 'certsout', 'CAserial_out', 'msgout', 'signer_out', 'CAserial']);
/**
 * Subcommands that only read their files and print (to standard output, without -out): a read.
 * Any other subcommand (req may write privkey.pem, ca its database) stays a transfer (asked).
 */
const OPENSSL_READS = /^(x509|dgst|sha(1|224|256|384|512)|md5|base64|rsa|ec|pkey|crl|pkcs7|asn1parse|verify|version|help|list|errstr)$/;
/** The only options such a read may carry (any other may write: -CAcreateserial …). */
const OPENSSL_READ_OPTS = /^(in|inform|outform|keyform|noout|text|subject|issuer|dates|enddate|startdate|serial|fingerprint|hash|subject_hash|issuer_hash|modulus|pubkey|purpose|ocsp_uri|email|alias|nameopt|certopt|ext|ocspid|sha1|sha224|sha256|sha384|sha512|md5|hex|r|c|binary|d|a|A|base64|e|passin|pubin|pubout|check|print_certs|noverify|CAfile|CApath|untrusted|verify|signature|prverify|i|dump|strparse|offset|length|v|verbose|help|digest-commands|cipher-commands)$/;
/** openssl options whose value names no file (listing it as one would only make prompts wrong). */
const OPENSSL_NOT_FILE = /^(subj|days|newkey|set_serial|addext|nameopt|certopt|name|digest|inform|outform|keyform|passin|passout|pass|md|sigopt|pkeyopt|ext|purpose|strparse|offset|length)$/;
/** openssl options that load a library (an engine or a provider) or a configuration file that can name one. */
const OPENSSL_LOADS = new Set(['engine', 'keygen_engine', 'ssl_client_engine', 'provider', 'provider-path', 'config', 'conf']);
const OPENSSL_NETWORK = new Set(['s_client', 's_server', 's_time', 'ocsp']);

/**
 * openssl: `-engine ./lib.so` loads a library (GTFOBins); `-out FILE` writes FILE (`openssl
 * enc -out .git/hooks/pre-commit` named no file). openssl takes `-opt value`, `--opt value`
 * and `-opt=value`.
 */
function openssl(args: Arg[], r: CmdResult, ctx: CmdContext): CmdResult {
  const writes: string[] = [];
  const reads: string[] = [];
  let loads: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([A-Za-z_-]+)(?:=(.*))?$/s.exec(args[i]!.text);
    if (!m) continue;
    const value = m[2] !== undefined ? { text: m[2], dynamic: args[i]!.dynamic } : args[i + 1];
    if (OPENSSL_LOADS.has(m[1]!)) loads ??= `-${m[1]}`;
    if (value && value.text !== '-' && (OPENSSL_WRITES.has(m[1]!) || m[1] === 'in')) (m[1] === 'in' ? reads : writes).push(resolvePath(value.text, ctx.cwd, value.dynamic));
  }
  const subIndex = args.findIndex((a) => !a.text.startsWith('-'));
  const sub = args[subIndex]?.text ?? '';
  if (!OPENSSL_NETWORK.has(sub)) {
    // Every other word names a file it may read (`openssl dgst -out f x` reads x, `-sign k.pem`
    // a key): listed, so a secret read is judged as one. `file:P` (a -passin source) reads P.
    for (let i = subIndex + 1; i > 0 && i < args.length; i++) {
      const a = args[i]!;
      const opt = /^--?([A-Za-z_-]+)$/.exec(args[i - 1]!.text)?.[1];
      if (a.text.startsWith('-') || (opt && (OPENSSL_WRITES.has(opt) || opt === 'in' || (OPENSSL_NOT_FILE.test(opt) && !a.text.startsWith('file:'))))) continue;
      reads.push(resolvePath(a.text.replace(/^file:/, ''), ctx.cwd, a.dynamic));
    }
    if (args[subIndex]?.dynamic) reads.push(resolvePath(sub, ctx.cwd, true));
  }
  // Hosts only where openssl connects; elsewhere the words with dots are files.
  const resources = OPENSSL_NETWORK.has(sub) ? [...r.resources, ...writes] : [...new Set([...reads, ...writes])];
  // `openssl x509 -in c.pem -noout -text`, `openssl dgst -sha256 f`, `openssl sha256 f`: only
  // reads (it was a transfer, as a network client, and `-out` made the read files a write).
  const readOnly = OPENSSL_READS.test(sub) && subIndex === 0 && !args[0]!.dynamic && !loads && writes.length === 0
    && args.every((a, i) => i === 0 || !a.text.startsWith('-') || (!a.dynamic && OPENSSL_READ_OPTS.test(/^--?([A-Za-z0-9_-]+)(=.*)?$/s.exec(a.text)?.[1] ?? '')));
  if (readOnly) return { ...r, action: 'read', resources };
  if (loads) return { ...r, action: 'execute', resources, reasons: [{ level: 'high', reason: `openssl ${loads} loads a library of the caller's choosing (an engine or provider, or a configuration naming one)` }] };
  if (writes.length && !OPENSSL_NETWORK.has(sub)) return { ...r, action: 'write', resources, writes };
  return { ...r, resources };
}

function curl(args: Arg[], ctx: CmdContext): CmdResult {
  const { pos, opts } = positionals(args, CURL_VALUE);
  const urls = [...pos, ...(opts.get('--url') && opts.get('--url') !== true ? [opts.get('--url') as Arg] : [])];
  const resources: string[] = [];
  for (const u of urls) resources.push(hostOf(u.text) ?? u.text);
  const r = result('transfer', resources, { download: true });
  for (const o of CURL_UPLOAD) {
    const v = opts.get(o);
    if (!v) continue;
    const text = v === true ? '' : v.text;
    // -d @file, -F name=@file, -F name=<file, -T file: local data leaves the machine.
    const file = /^@(.+)/.exec(text)?.[1] ?? /=[@<]([^;]+)/.exec(text)?.[1] ?? (o === '-T' || o === '--upload-file' ? text : null);
    if (file && file !== '-') r.resources.push(resolvePath(file, ctx.cwd, v !== true && v.dynamic));
    r.reasons.push({ level: 'medium', reason: file ? `uploads ${file}` : 'sends data in the request body' });
    break;
  }
  const written: string[] = [];
  const out = opts.get('-o') ?? opts.get('--output');
  if (out && out !== true && out.text !== '-') written.push(resolvePath(out.text, ctx.cwd, out.dynamic));
  for (const o of CURL_WRITES) {
    const v = opts.get(o);
    if (v && v !== true && v.text !== '-' && v.text !== '%') written.push(resolvePath(v.text, ctx.cwd, v.dynamic));
  }
  // -O (--remote-name, --remote-name-all, -J) saves under the URL's file name, in --output-dir.
  const dir = opts.get('--output-dir');
  const outDir = dir && dir !== true ? dir : null;
  if (outDir) written.push(resolvePath(outDir.text, ctx.cwd, outDir.dynamic));
  if (opts.has('-O') || opts.has('--remote-name') || opts.has('--remote-name-all') || opts.has('-J') || opts.has('--remote-header-name')) {
    for (const u of urls) {
      const name = path.posix.basename(u.text.replace(/[?#].*$/, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, ''));
      if (name) written.push(resolvePath(outDir ? `${outDir.text}/${name}` : name, ctx.cwd, u.dynamic || !!outDir?.dynamic));
    }
  }
  if (written.length) {
    r.resources.push(...written);
    r.writes = written;
  }
  return r;
}

/** wget options whose value is a file (or, -P, the directory) wget writes: each is a resource. */
const WGET_WRITES = ['-o', '--output-file', '-a', '--append-output', '--save-cookies', '--rejected-log', '--hsts-file', '-P', '--directory-prefix'];

function wget(args: Arg[], ctx: CmdContext): CmdResult {
  const { pos, opts } = positionals(args, WGET_VALUE, ['--background']);
  const r = result('transfer', pos.map((u) => hostOf(u.text) ?? u.text), { download: true });
  for (const o of WGET_WRITES) {
    const v = opts.get(o);
    if (v && v !== true && v.text !== '-') r.resources.push(resolvePath(v.text, ctx.cwd, v.dynamic));
  }
  // In the background (-b) without -o/-a, wget logs to wget-log (wget-log.1 …) in the cwd (seed 21).
  if ((opts.has('-b') || opts.has('--background')) && !WGET_WRITES.slice(0, 4).some((o) => opts.has(o))) r.resources.push(resolvePath('wget-log*', ctx.cwd));
  const warc = opts.get('--warc-file');
  if (warc && warc !== true) r.resources.push(resolvePath(`${warc.text}.warc.gz`, ctx.cwd, warc.dynamic));
  const prefix = opts.get('-P') ?? opts.get('--directory-prefix');
  const post = opts.get('--post-file') ?? opts.get('--body-file');
  if (post && post !== true) {
    r.resources.push(resolvePath(post.text, ctx.cwd, post.dynamic));
    r.reasons.push({ level: 'medium', reason: `uploads ${post.text}` });
  } else if (opts.has('--post-data') || opts.has('--body-data')) {
    r.reasons.push({ level: 'medium', reason: 'sends data in the request body' });
  }
  const input = opts.get('-i') ?? opts.get('--input-file');
  if (input) r.unlisted = `wget fetches the URLs listed in ${input === true ? 'a file' : clipText(input.text, 60)}, not on the command line, and saves them under the names they give`;
  const out = opts.get('-O') ?? opts.get('--output-document');
  if (out && out !== true && out.text !== '-') {
    const p = resolvePath(out.text, ctx.cwd, out.dynamic);
    r.resources.push(p);
    r.writes = [p];
  } else if (!out) {
    // wget saves under the URL's file name in the cwd (or -P's directory): a resource too.
    for (const u of pos) {
      // The URL's path without its host (`http://h/x.sh`, `h/x.sh`); none is wget's index.html.
      const urlPath = u.text.replace(/[?#].*$/, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/]*/i, '');
      const name = path.posix.basename(urlPath) || 'index.html';
      const saved = resolvePath(prefix && prefix !== true ? `${prefix.text}/${name}` : name, ctx.cwd, u.dynamic || (prefix !== undefined && prefix !== true && prefix.dynamic));
      r.writes = [...(r.writes ?? []), saved];
      r.resources.push(saved);
    }
  }
  return r;
}

function scpLike(args: Arg[], ctx: CmdContext, withValue: Set<string>): CmdResult {
  const { pos } = positionals(args, withValue);
  const resources: string[] = [];
  let remote = false;
  for (const a of pos) {
    const h = remoteHost(a.text);
    if (h) {
      remote = true;
      resources.push(h);
    } else resources.push(resolvePath(a.text, ctx.cwd, a.dynamic));
  }
  return result(remote ? 'transfer' : 'write', resources);
}

// --- git -------------------------------------------------------------------------------

const GIT_NET = new Set(['push', 'pull', 'fetch', 'clone', 'ls-remote', 'send-email', 'request-pull']);
export const GIT_WRITE = new Set([
  'add', 'commit', 'checkout', 'switch', 'restore', 'merge', 'rebase', 'cherry-pick', 'revert', 'apply', 'am', 'init', 'mv',
  'notes', 'worktree', 'submodule', 'pull', 'reset', 'tag', 'branch', 'stash', 'config', 'remote', 'update-index', 'gc', 'prune',
  'sparse-checkout', 'replace', 'filter-branch', 'commit-tree', 'update-ref', 'symbolic-ref', 'format-patch', 'lfs',
  'bisect', 'reflog',
]);

const GIT_TREE_WRITERS = new Set(['checkout', 'switch', 'restore', 'reset', 'merge', 'pull', 'stash', 'cherry-pick', 'revert', 'rebase', 'am', 'apply', 'clone', 'worktree', 'submodule', 'read-tree', 'checkout-index', 'bisect']);

function git(args: Arg[], ctx: CmdContext): CmdResult {
  // Global options before the subcommand must be on the allowlist (sh-git.ts): `-c`,
  // `--config-env`, `--exec-path=DIR` … make git run programs of the caller's choosing.
  let cwd = ctx.cwd;
  let i = 0;
  // Where a write lands besides the repository: `--work-tree X` puts checkout/reset/stash's
  // files in X, and `--git-dir X` alone lets X's core.worktree put them anywhere.
  let workTree: string | undefined;
  let gitDir = false;
  while (i < args.length && args[i].text.startsWith('-')) {
    const o = args[i].text;
    if ((o === '-C' || o === '--git-dir' || o === '--work-tree' || o === '--namespace') && i + 1 < args.length) {
      if (o === '-C') cwd = resolvePath(args[i + 1].text, cwd, args[i + 1].dynamic);
      if (o === '--work-tree') workTree = resolvePath(args[i + 1].text, cwd, args[i + 1].dynamic);
      if (o === '--git-dir') gitDir = true;
      i += 2;
    } else if (o === '-c' && i + 1 < args.length) i += 2;
    else {
      if (o.startsWith('--work-tree=')) workTree = resolvePath(o.slice('--work-tree='.length), cwd, args[i].dynamic);
      if (o.startsWith('--git-dir=')) gitDir = true;
      i++;
    }
  }
  const repo = cwd ?? '.';
  const global = checkForm('git', GIT_GLOBAL, args.slice(0, i), ctx.cwd);
  if (global.action) {
    // Still classify what follows (its resources and reasons show), but as execute.
    const inner = args[i] ? gitSub(args[i].text, args.slice(i + 1), cwd, repo) : result('read', [repo]);
    if (args[i] && inner.action !== 'read') placeTree(inner, args[i].text, args.slice(i + 1), cwd, workTree, gitDir);
    return { ...inner, action: 'execute', reasons: [{ level: global.level ?? 'high', reason: global.reason ?? 'git option not known to be read-only' }, ...inner.reasons], runsGitHooks: true };
  }
  const sub = args[i]?.text ?? '';
  const rest = args.slice(i + 1);
  if (!args[i]) return result('read', [repo]); // `git`, `git --version`
  if (args[i].dynamic || args[i].mayBeOption) return result('execute', [repo], { reasons: [{ level: 'medium', reason: 'runs a git subcommand computed at run time' }], runsGitHooks: true });
  const r = gitSub(sub, rest, cwd, repo);
  if (r.action !== 'read') placeTree(r, sub, rest, cwd, workTree, gitDir);
  if (r.action !== 'read' && workTree !== undefined && !r.resources.includes(workTree)) r.resources.push(workTree);
  if (r.action !== 'read' && gitDir && workTree === undefined && !r.unlisted) {
    r.unlisted = 'git --git-dir names a repository whose core.worktree may put the work tree (and what this writes) anywhere';
  }
  // These write the work tree from the repository's objects, symbolic links included (a
  // committed `k -> ~/.ssh`): a later part of the line that reads or writes under the tree may
  // go through one (`git checkout x && cat k/id_x`). The clone's directory for clone.
  if (GIT_TREE_WRITERS.has(sub) && r.action !== 'read') r.plantsLinks = workTree ?? (sub === 'clone' ? (r.resources.find((x) => x.startsWith('/') && x !== repo) ?? repo) : repo);
  // Every git command may run a hook: post-index-change fires whenever git writes the
  // index, and `git status` refreshes it (the differential fuzzer saw `git status` run the
  // session's .git/hooks/post-index-change). Only the same-line chain rule reads this.
  r.runsGitHooks = true;
  // Not only reads: a write or a fetch obeys that repository's configuration too, and runs its
  // hooks (`git -C /tmp/planted commit` ran /tmp/planted's pre-commit under a grant for writes
  // in /tmp; `--git-dir X --work-tree .` ran X's post-checkout).
  const where = ACTION_RANK[r.action] < ACTION_RANK.execute ? gitElsewhere(args.slice(0, i), cwd, ctx) : null;
  if (where) {
    r.action = 'execute';
    r.reasons.unshift({ level: 'medium', reason: where });
  }
  return r;
}

/**
 * The files a tree change writes are the target's, not the command line's: the classifier
 * poses the question (sh-git-tree.ts) and the daemon lists them (core/git-tree-paths.ts).
 * With --work-tree (and --git-dir) the tree and the repository are others than the daemon
 * would look at: unknown, so placed nowhere (--git-dir alone is placed nowhere by git() itself).
 */
function placeTree(r: CmdResult, sub: string, rest: Arg[], cwd: string | undefined, workTree: string | undefined, gitDir: boolean): void {
  if (gitDir && workTree === undefined) return;
  const tree = workTree !== undefined ? { unknown: 'git --work-tree names a tree whose files Airlock does not compare' } : gitTreeChange(sub, rest, cwd);
  if (tree && 'spec' in tree) r.gitTree = tree.spec;
  else if (tree) r.unlisted ??= `\`git ${sub}\` writes the files its target holds, and Airlock cannot list them here (${tree.unknown})`;
  if (sub === 'add' || sub === 'commit') r.gitIndexOnly = true;
}

/**
 * Why a git read is not a read where it runs, or null. Even `git status` runs programs
 * that the repository's own configuration names (core.fsmonitor, diff.external …), and
 * a repository is just a directory with HEAD, objects/, refs/ and config: `git -C /tmp/x
 * status`, `git --git-dir=x log` or `cd /tmp/x && git status` obey a config an agent may
 * have planted there (a `config` outside `.git/` is not a protected path). The session's
 * own tree is judged like the session's repository (SECURITY.md: what the agent may
 * already touch); anywhere else asks.
 */
function gitElsewhere(global: Arg[], dir: string | undefined, ctx: CmdContext): string | null {
  const named = global.find((a) => /^--(git-dir|work-tree)(=|$)/.test(a.text));
  if (named) return `git ${named.text.split('=')[0]} names a repository whose configuration git obeys (its core.fsmonitor, diff.external … run programs)`;
  // `--bare` makes the working directory itself the repository: its `config` and
  // `info/attributes` (plain files, not under .git/) then name programs that
  // `git --bare log -p` runs (a textconv driver).
  if (global.some((a) => a.text === '--bare')) return 'git --bare makes the directory itself the repository: its config (not under .git/) can name programs git runs (textconv …)';
  const reason = (d: string) => `git runs in ${d.slice(0, 80)}, outside the session's directory: that repository's configuration can name programs git runs (core.fsmonitor …)`;
  if (ctx.origin) {
    const real = dir !== undefined && dir.startsWith('/') ? path.posix.resolve(dir) : null;
    if (real === null) return reason(dir ?? 'a directory computed at run time');
    const origin = path.posix.resolve(ctx.origin);
    if (!isWithin(real, origin)) return reason(real);
    // A subdirectory is not the session's repository: git takes the first directory
    // upwards that holds `.git` or itself looks like a repository (HEAD, objects/,
    // refs/: bare-repository discovery), so `git -C sub log -p` obeyed sub/config, plain
    // files an agent may write, and ran its textconv program.
    return real === origin ? null : inSubdirectory(real.slice(origin.length).replace(/^\//, ''));
  }
  // No session directory known: any -C but `.` may lead to another repository.
  for (let j = 0; j < global.length; j++) {
    if (global[j].text !== '-C' || !global[j + 1]) continue;
    const v = global[j + 1];
    if (v.dynamic || v.mayBeOption || /^[/~]|(^|\/)\.\.(\/|$)/.test(v.text)) return reason(v.text);
    if (v.text !== '.' && v.text !== './') return inSubdirectory(v.text);
  }
  return null;
}

const inSubdirectory = (sub: string) =>
  `git runs in the subdirectory ${sub.slice(0, 80)}: git takes a directory holding HEAD, objects/ and a config as a repository of its own, and that config (plain files, not under .git/) can name programs git runs`;

function gitSub(sub: string, rest: Arg[], cwd: string | undefined, repo: string): CmdResult {
  // What a read reads besides the repository: files its options name (`blame --contents F`,
  // `config --file F`) and, with --no-index, the files compared or searched, which may lie
  // anywhere (`git diff --no-index ~/.ssh/id_x f` is a secret read, remembered as one).
  const outside = (v: { resources: string[] }) => [
    repo,
    ...v.resources,
    ...(rest.some((a) => a.text === '--no-index') ? rest.filter((a) => !a.text.startsWith('-')).map((a) => resolvePath(a.text, cwd, a.dynamic)) : []),
  ];
  const readForm = GIT_READ[sub];
  if (readForm) {
    const v = checkForm(`git ${sub}`, readForm, rest, cwd);
    if (!v.action) return result('read', outside(v));
    return result(v.action, [repo, ...v.resources], { reasons: [{ level: v.level ?? 'medium', reason: v.reason ?? `git ${sub}: not known to be read-only` }] });
  }
  const mixed = GIT_MIXED[sub];
  if (mixed) {
    const v = mixed(rest, cwd);
    if (!v.action) return result('read', outside(v));
    // A danger (an editor, `bisect run`) is reported; a plain change goes to the rules below.
    // `bisect run CMD` and `submodule foreach CMD` run a command the line names, which a grant for
    // them (`{git submodule foreach,… *}`, offered for `… foreach git pull`) does not show: it asks.
    const named = (sub === 'bisect' && rest[0]?.text === 'run') || (sub === 'submodule' && rest.some((a) => a.text === 'foreach' || a.dynamic));
    if (v.action === 'execute' && v.level === 'high') return result('execute', [repo], { reasons: [{ level: 'high', reason: v.reason ?? `git ${sub}: not known to be read-only` }], ...(named ? { unlisted: `git ${sub} ${rest[0]?.text === 'run' ? 'run' : 'foreach'} runs the command it is given at every step` } : {}) });
  }
  // git apply keeps a patch's paths inside the work tree and out of .git, unless
  // --unsafe-paths: then `--directory=.git/hooks` or `../` paths write anywhere (GTFOBins).
  if (sub === 'apply' && rest.some((a) => /^--unsafe-?/.test(a.text) || a.dynamic)) return result('write', [repo], { unlisted: 'git apply --unsafe-paths writes the files the patch names, wherever they say (.git/hooks and outside the work tree too)' });
  // Inside the work tree a patch still writes whatever files it names: `.claude/settings.json`
  // (Airlock off), package.json scripts, CI workflows, which a Write of the same file would be
  // asked for (a grant needs to name them). So `git apply`/`git am` are placed nowhere, like
  // `patch`; so is an index entry made from a blob (`update-index --cacheinfo/--index-info`),
  // which `git checkout -- .` then writes into the work tree under a grant for the tree.
  if (sub === 'apply' || sub === 'am') return result('write', [repo], { unlisted: `git ${sub} writes the files the patch names (.claude/settings.json, package.json, CI workflows too), not the command line` });
  if (sub === 'update-index' && rest.some((a) => /^--(cacheinfo|index-info|stdin)$/.test(a.text) || a.dynamic)) return result('write', [repo], { unlisted: 'git update-index puts into the index the paths and contents its input names (.claude/settings.json too), which a checkout then writes' });
  const { pos, opts } = positionals(rest, new Set(['-m', '-F', '-C', '-c', '-b', '-B', '--message', '--file', '--author', '--date', '-o', '--origin', '--depth', '--branch', '--upload-pack']));
  if (GIT_NET.has(sub)) {
    const r = result('transfer', []);
    const remote = pos[0]?.text ?? 'origin';
    r.resources.push(hostOf(remote) ?? remoteHost(remote) ?? `remote:${remote}`);
    if (sub === 'push' && (opts.has('--force') || opts.has('-f') || opts.has('--force-with-lease') || pos.some((p) => p.text.startsWith('+')))) {
      r.reasons.push({ level: 'high', reason: 'force-pushes (rewrites history on the remote)' });
    }
    if (sub === 'push' && (opts.has('--delete') || opts.has('-d') || pos.some((p) => p.text.startsWith(':')))) {
      r.reasons.push({ level: 'high', reason: 'deletes a branch or tag on the remote' });
    }
    if (sub === 'clone' && pos[1]) r.resources.push(resolvePath(pos[1].text, cwd, pos[1].dynamic));
    if (sub === 'pull' || sub === 'clone') r.resources.push(repo);
    return r;
  }
  if (sub === 'rebase' && rest.some((a) => a.text === '-x' || /^-[a-zA-Z]*x$/.test(a.text))) return result('execute', [repo], { reasons: [{ level: 'high', reason: 'git rebase -x runs a command after every commit' }] });
  if (sub === 'clean') return result('delete', [repo]);
  if (sub === 'rm') return result('delete', paths(pos, { cwd }));
  if (sub === 'reset' && opts.has('--hard')) return result('delete', [repo], { reasons: [{ level: 'medium', reason: 'discards uncommitted changes (git reset --hard)' }] });
  if (sub === 'branch' && (opts.has('-D') || opts.has('-d') || opts.has('--delete'))) return result('delete', [repo]);
  if (sub === 'stash' && (pos[0]?.text === 'drop' || pos[0]?.text === 'clear')) return result('delete', [repo]);
  if (sub === 'remote' && pos[0]?.text === 'show' && !opts.has('-n')) return result('transfer', [repo, `remote:${pos[1]?.text ?? 'origin'}`]);
  if (GIT_WRITE.has(sub)) {
    const files = sub === 'add' || sub === 'checkout' || sub === 'restore' ? paths(pos, { cwd }).filter((p) => p !== repo) : gitWriteTargets(sub, rest, cwd, repo);
    // `git config core.hooksPath`/aliases and `.git/config` run code later: the core's chain rules see .git/config.
    const extra = sub === 'config' ? gitConfigFiles(rest, repo, cwd) : sub === 'remote' ? [path.posix.join(repo, '.git/config')] : [];
    return result('write', [repo, ...files, ...extra]);
  }
  // Aliases and external subcommands (git-foo) run arbitrary programs.
  return result('execute', [repo]);
}

/**
 * Where a git subcommand writes that its command line names, beside the repository: `git mv a
 * /etc/b`, `git init DIR` (and `--template T`, whose hooks it copies into the new or existing
 * repository's .git/hooks), `git worktree add PATH`, `git format-patch -o DIR`. Listing only the
 * repository let a grant on the task's own tree cover a write anywhere else.
 */
function gitWriteTargets(sub: string, rest: Arg[], cwd: string | undefined, repo: string): string[] {
  const at = (a: Arg | true | undefined) => (a === undefined || a === true ? [] : [resolvePath(a.text, cwd, a.dynamic)]);
  if (sub === 'mv') return paths(positionals(rest, new Set(), ['--force', '--dry-run', '--verbose']).pos, { cwd });
  if (sub === 'init') {
    const { pos, opts } = positionals(rest, new Set(['--template', '--separate-git-dir', '-b', '--initial-branch', '--object-format', '--ref-format']));
    const dir = pos[0] ? resolvePath(pos[0].text, cwd, pos[0].dynamic) : repo;
    const bare = opts.has('--bare');
    const template = opts.get('--template');
    return [dir, ...at(opts.get('--separate-git-dir')), ...(template !== undefined ? [path.posix.join(dir, bare ? 'hooks' : '.git/hooks'), ...at(template)] : [])];
  }
  if (sub === 'worktree') {
    const { pos } = positionals(rest, new Set(['-b', '-B', '--reason', '--expire']));
    const verb = pos[0]?.text;
    if (verb === 'add' || verb === 'remove') return paths(pos.slice(1, 2), { cwd });
    return verb === 'move' ? paths(pos.slice(1, 3), { cwd }) : [];
  }
  if (sub === 'format-patch') {
    const { opts } = positionals(rest, new Set(['-o', '--output-directory', '--output', '--signature-file', '--cover-letter-format']));
    return [...at(opts.get('-o')), ...at(opts.get('--output-directory')), ...at(opts.get('--output'))];
  }
  return [];
}

/**
 * The files `git config … NAME VALUE` writes. The scope flag picks the file: `--global` is the
 * user's (~/.gitconfig, or the XDG one when that is the one git finds), `--system` /etc/gitconfig,
 * `-f/--file F` F, `--worktree` .git/config.worktree (or .git/config without the worktree
 * extension). Naming the repository's .git/config for all of them showed the human the wrong file
 * and let a task's grant on its own repository be what judged a write to the user's global config.
 * More than one scope flag, or one computed at run time: every file it could be.
 */
function gitConfigFiles(args: WordValue[], repo: string, cwd: string | undefined): string[] {
  const local = path.posix.join(repo, '.git/config');
  // A word computed at run time may be any scope flag: every file.
  const out = new Set<string>(args.some((a) => a.dynamic) ? [local, '~/.gitconfig', '~/.config/git/config', '/etc/gitconfig'] : []);
  // positionals() reads `-f F`, `-fF`, `--file=F` and git's abbreviations (`--glob` is --global).
  const { opts } = positionals(args, new Set(['-f', '--file']), ['--global', '--system', '--local', '--worktree']);
  if (opts.has('--global')) out.add('~/.gitconfig').add('~/.config/git/config');
  if (opts.has('--system')) out.add('/etc/gitconfig');
  if (opts.has('--worktree')) out.add(path.posix.join(repo, '.git/config.worktree')).add(local);
  if (opts.has('--local')) out.add(local);
  for (const f of [opts.get('-f'), opts.get('--file')]) if (f && f !== true) out.add(resolvePath(f.text, cwd, f.dynamic));
  return out.size ? [...out] : [local];
}

// --- interpreters and package managers -----------------------------------------------------

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'mksh', 'yash', 'busybox']);
/** Interpreter → [options taking inline code, options taking a value, options that make it read stdin]. */
const INTERPRETERS: Record<string, [string[], string[]] | undefined> = lookupTable({
  python: [['-c'], ['-m', '-W', '-X', '-Q']],
  node: [['-e', '--eval', '-p', '--print'], ['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file']],
  perl: [['-e', '-E'], ['-I', '-M', '-m', '-x']],
  ruby: [['-e'], ['-I', '-r', '-C', '-E']],
  php: [['-r'], ['-d', '-c', '-f']],
  lua: [['-e'], ['-l']],
  Rscript: [['-e'], []],
  osascript: [['-e'], []],
  deno: [['eval'], []],
  bun: [['-e', '--eval'], []],
  tclsh: [[], []],
  pwsh: [['-c', '-Command', '-command'], []],
});

function interpreterName(name: string): string | null {
  if (INTERPRETERS[name]) return name;
  if (/^python[0-9.]*$/.test(name) || name === 'pypy' || name === 'pypy3') return 'python';
  if (/^(?:perl|ruby|php|lua)[0-9.]*$/.test(name)) return name.replace(/[0-9.]+$/, '');
  if (name === 'nodejs') return 'node';
  return null;
}

/** Shells whose scripts this classifier reads (their syntax is the one mvdan/sh parses). */
const TRANSPARENT_SHELLS = new Set(['sh', 'bash', 'dash', 'ash']);
/**
 * Shell options that leave `sh -c 'script'` meaning what the script says. Not `-x`/xtrace:
 * it expands PS4 before every command, and bash takes PS4 from the environment, so
 * `PS4='$(cmd)'` set anywhere up the process tree runs cmd (tried for real as a normal
 * user). Not `-l`/`--login`: a login shell first runs /etc/profile and ~/.profile.
 */
const SHELL_SAFE_BUNDLE = /^[-+][euvcs]+$/;
const SHELL_SAFE_LONG = new Set(['--noprofile', '--norc', '--']);
const SHELL_SAFE_O = new Set(['pipefail', 'errexit', 'nounset', 'verbose']);

function shell(name: string, args: Arg[], ctx: CmdContext): CmdResult {
  const r = result('execute', []);
  const opaque = (reason: string) => {
    r.scriptOpaque = true;
    if (!r.reasons.some((x) => x.reason === reason)) r.reasons.push({ level: 'medium', reason });
  };
  if (!TRANSPARENT_SHELLS.has(name)) opaque(`runs a script in ${name}, whose syntax is not checked here`);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.dynamic || a.mayBeOption) {
      opaque(`${name}: an argument computed at run time (${a.text.slice(0, 60)})`);
      if (!a.text.startsWith('-')) {
        const p = resolvePath(a.text, ctx.cwd, true);
        r.resources.push(p);
        r.runs = p;
        return r;
      }
      continue;
    }
    if (/^[-+][a-zA-Z]*o$/.test(a.text)) {
      // `-o NAME` (alone or ending a bundle: `-euo pipefail`).
      if (!SHELL_SAFE_O.has(args[i + 1]?.text ?? '') || !/^[-+][euv]*o$/.test(a.text)) opaque(`${name} ${a.text} ${args[i + 1]?.text ?? ''} changes how the script runs`);
      i++;
      continue;
    }
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text)) {
      if (!SHELL_SAFE_BUNDLE.test(a.text)) opaque(`${name} ${a.text} changes how the script runs`);
      const script = args[i + 1];
      if (!script) return r;
      r.script = { text: script.text, dynamic: script.dynamic };
      return r;
    }
    if (a.text === '-s' || a.text === '-') {
      r.runsStdin = r.stdinIsShell = true;
      return r;
    }
    if (a.text.startsWith('-') || a.text.startsWith('+')) {
      if (!SHELL_SAFE_BUNDLE.test(a.text) && !SHELL_SAFE_LONG.has(a.text)) opaque(`${name} ${a.text} changes how the script runs`);
      if (a.text === '-O' || a.text === '+O' || a.text === '--rcfile' || a.text === '--init-file') i++;
      continue;
    }
    const p = resolvePath(a.text, ctx.cwd, a.dynamic);
    r.resources.push(p);
    r.runs = p;
    return r;
  }
  r.runsStdin = r.stdinIsShell = true;
  return r;
}

/** Flags after which an interpreter prints and exits (`ruby -v`, `python -v` would go on to read a program). */
const VERSION_ONLY: Record<string, string[] | undefined> = lookupTable({ node: ['-v'], python: ['-V'] });

function interpreter(kind: string, args: Arg[], ctx: CmdContext): CmdResult {
  // `kind` comes from interpreterKind(), which only returns names in the table.
  const [inline, valued] = INTERPRETERS[kind] ?? [[], []];
  if (args.length === 1 && ['--version', '--help', '-h', ...(VERSION_ONLY[kind] ?? [])].includes(args[0].text)) return result('read');
  const r = result('execute', []);
  for (let i = 0; i < args.length; i++) {
    const a = args[i].text;
    if (inline.includes(a)) return r; // inline program text: visible in the args, not a file
    if (kind === 'perl' && /^-[a-zA-Z]*i/.test(a)) {
      // perl -i -pe '…' file: edits files in place.
      r.action = 'execute';
      r.resources.push(...paths(args.slice(i + 1).filter((x) => !x.text.startsWith('-')).slice(1), ctx));
      return r;
    }
    if (valued.includes(a)) {
      if (kind === 'python' && a === '-m' && args[i + 1]) r.resources.push(`python module ${args[i + 1].text}`);
      i++;
      if (kind === 'python' && a === '-m') return r;
      continue;
    }
    if (a === '-') {
      r.runsStdin = true;
      return r;
    }
    if (a.startsWith('-')) continue;
    if (kind === 'deno' || kind === 'bun') {
      if (a === 'run' || a === 'x') continue;
      if (a === 'install' || a === 'add') return installer(r);
    }
    const p = resolvePath(a, ctx.cwd, args[i].dynamic);
    r.resources.push(p);
    r.runs = p;
    return r;
  }
  r.runsStdin = true;
  return r;
}

function installer(r: CmdResult): CmdResult {
  r.action = 'execute';
  r.reasons.push({ level: 'medium', reason: 'installs packages (their install scripts run as you)' });
  return r;
}

/**
 * Package-manager commands that only read local state (no registry, no scripts). Registry
 * look-ups (`npm view`, `pip index`, `npm outdated` …) send names to the network: transfer.
 */
const PKG_READ: Record<string, Set<string> | undefined> = lookupTable({
  npm: new Set(['ls', 'list', 'll', 'la', 'root', 'prefix', 'bin', '--version', '-v', 'version', 'help', '--help', '-h', 'explain', 'why', 'query']),
  // No pnpm and no yarn: both run what the project names before doing anything (below).
  pip: new Set(['list', 'show', 'freeze', 'check', '--version', '-V', 'help', '--help', '-h']),
  pip3: new Set(['list', 'show', 'freeze', 'check', '--version', '-V', 'help', '--help', '-h']),
  // No cargo (a rustup proxy: rust-toolchain.toml's `path` makes `cargo --version` run any
  // program) and no go (go.mod / go.work `toolchain` lines make every go command, `go version`
  // included, download and run that toolchain: GOTOOLCHAIN=auto).
  gem: new Set(['list', '--version', '-v', 'help']),
  uv: new Set(['--version', 'version', 'help']),
  poetry: new Set(['--version', 'show', 'help']),
  brew: new Set(['list', 'ls', '--version', 'config', '--prefix', 'help']),
  apt: new Set(['list', 'show', 'policy']),
  'apt-get': new Set(['--version']),
  dotnet: new Set(['--version', '--info', '--list-sdks', '--list-runtimes']),
  conda: new Set(['list', 'info', '--version']),
});
/** Options of those read forms that change things anyway. */
/** The only options those read forms may carry (anything else: not known to be read-only). */
const PKG_READ_FLAGS = /^(--json|--depth(=\d+)?|-a|--all|--long|-l|--parseable|-p|--prod|--production|--dev|-g|--global|--format=(json|columns|freeze)|--not-required|--user|--local|-v|--verbose|--omit=\w+|--include=\w+|-q|--quiet|--version|-V|--help|-h|--files|-f|--tree)$/;
const PKG_NETWORK = new Set(['view', 'info', 'show', 'outdated', 'search', 'whoami', 'doctor', 'audit', 'ping', 'index', 'owner', 'access', 'team', 'dist-tag']);
const PKG_INSTALL = new Set(['install', 'i', 'ci', 'add', 'update', 'upgrade', 'up', 'get', 'remove', 'uninstall', 'rm', 'reinstall', 'dist-upgrade', 'full-upgrade', 'link']);
const PKG_PUBLISH = new Set(['publish', 'upload', 'push', 'release', 'deploy']);
const PKG_MANAGERS = new Set(['npm', 'yarn', 'pnpm', 'pip', 'pip3', 'pipx', 'uv', 'poetry', 'cargo', 'go', 'gem', 'bundle', 'composer', 'apt', 'apt-get', 'dnf', 'yum', 'brew', 'pacman', 'apk', 'snap', 'flatpak', 'conda', 'mamba', 'twine', 'dotnet', 'mvn', 'gradle']);

const RUSTUP_PROXY = "is usually rustup's proxy: it runs the toolchain a rust-toolchain.toml names, whatever program its path points at";
/** Programs that run whatever toolchain a file in the workspace names, `--version` included. */
const TOOLCHAIN_PROXY: Record<string, string | undefined> = lookupTable({
  ...Object.fromEntries(['cargo', 'rustc', 'rustdoc', 'rustfmt', 'cargo-fmt', 'cargo-clippy', 'clippy-driver', 'rust-analyzer', 'rust-gdb', 'rust-lldb', 'rustup'].map((n) => [n, `${n} ${RUSTUP_PROXY}`])),
  go: 'go runs the toolchain a go.mod or go.work names (GOTOOLCHAIN=auto downloads and runs it), go version included',
  yarn: "yarn runs the release the project's .yarnrc.yml yarnPath names (a file in the repository), yarn --version included",
  pnpm: "pnpm switches to the pnpm version package.json's packageManager names, downloaded from the registry .npmrc names, and runs it",
});

/**
 * Options of npm, pnpm and yarn that take the project (or the program that runs its scripts,
 * or a config file that can name one) from elsewhere than the working directory. Their values
 * are resources, so a grant for `npm test *` in the task's directory does not run another
 * directory's package (`npm test --prefix ~/other`, `-C ../x`, `--workspace ../../y`) or a
 * script shell outside it (blackbox9: the project was always the working directory).
 */
const PKG_ELSEWHERE: Record<string, readonly string[] | undefined> = lookupTable({
  npm: ['--prefix', '-C', '--workspace', '-w', '--userconfig', '--globalconfig', '--script-shell'],
  pnpm: ['--dir', '-C', '--prefix', '--workspace-dir', '--config-dir', '--script-shell'],
  yarn: ['--cwd'],
  // go -C DIR runs in DIR; -modfile and -overlay take the module file, or source files, from
  // elsewhere. cargo --manifest-path (and -C) build another project (blackbox16: a grant for
  // `go build *` or `cargo build *` built and ran /tmp/x's code).
  go: ['-C', '--C', '-modfile', '--modfile', '-overlay', '--overlay'],
  cargo: ['--manifest-path', '-C'],
});

function projectElsewhere(name: string, args: Arg[], ctx: CmdContext): string[] {
  const opts = PKG_ELSEWHERE[name];
  if (!opts) return [];
  const out: string[] = [];
  args.forEach((a, i) => {
    const eq = a.text.indexOf('=');
    const key = eq > 0 ? a.text.slice(0, eq) : a.text;
    if (!opts.includes(key)) return;
    const value = eq > 0 ? { text: a.text.slice(eq + 1), dynamic: a.dynamic } : args[i + 1];
    if (value && value.text !== '') out.push(resolvePath(value.text, ctx.cwd, value.dynamic));
  });
  return out;
}

function packageManager(name: string, args: Arg[], ctx: CmdContext): CmdResult {
  const r = packageManagerIn(name, args, ctx);
  const elsewhere = projectElsewhere(name, args, ctx);
  return elsewhere.length ? { ...r, resources: [...r.resources, ...elsewhere.filter((x) => !r.resources.includes(x))] } : r;
}

function packageManagerIn(name: string, args: Arg[], ctx: CmdContext): CmdResult {
  const { pos } = positionals(args, new Set(['-C', '--prefix', '-w', '--workspace', '--filter', '-r', '--requirement', '-t', '--target']));
  const sub = pos[0]?.text ?? '';
  const repo = ctx.cwd ?? '.';
  if (PKG_PUBLISH.has(sub) || (name === 'twine' && sub === 'upload')) {
    return result('transfer', [repo], { reasons: [{ level: 'high', reason: `publishes a package (${name} ${sub})` }] });
  }
  // Bare `yarn` and `bundle` install dependencies; bare `npm`, `pip` … print help.
  if (args.length === 0) return name === 'yarn' || name === 'bundle' ? installer(result('execute', [repo])) : result('read', [repo]);
  const reads = PKG_READ[name];
  // `npm --version`, `cargo -V`: the flag is the whole command.
  if (args.length === 1 && reads?.has(args[0].text) && args[0].text.startsWith('-') && !args[0].dynamic) return result('read', [repo]);
  // `npm version patch` / `uv version 1.2.3` set the version: they write package.json or
  // pyproject.toml, and npm commits, tags and runs the (pre|post)version scripts. Only the
  // bare `version` prints.
  const setsVersion = sub === 'version' && args.slice(1).some((a) => a.dynamic || a.mayBeOption || !a.text.startsWith('-'));
  // `npm help TOPIC` starts the viewer npm's config names, and the workspace's own .npmrc
  // is config: `viewer=browser` plus `browser=./x` hands the page to a program of the
  // agent's choosing (npm's `browser` setting is any command). Bare `npm help` only prints.
  if (name === 'npm' && sub === 'help' && args[0]?.text === 'help' && args.length > 1) {
    return result('execute', [repo], { reasons: [{ level: 'medium', reason: "npm help TOPIC opens the viewer or browser npm's config names (a workspace .npmrc can choose the program)" }] });
  }
  if (reads?.has(sub) && !setsVersion && args[0]?.text === sub && args.slice(1).every((a) => !a.dynamic && !a.mayBeOption && (!a.text.startsWith('-') || PKG_READ_FLAGS.test(a.text)))) {
    return result('read', [repo]);
  }
  if (sub === 'config' && args[0]?.text === 'config' && (args[1]?.text === 'get' || args[1]?.text === 'list' || args[1]?.text === 'ls') && args.slice(2).every((a) => !a.dynamic && !a.mayBeOption && (!a.text.startsWith('-') || PKG_READ_FLAGS.test(a.text)))) return result('read', [repo]);
  if (PKG_NETWORK.has(sub)) return result('transfer', [repo, `${name} registry`]);
  if (PKG_INSTALL.has(sub)) return installer(result('execute', [repo]));
  // run, test, build, exec, start, make targets, `go run`, `cargo run`: runs project code.
  return result('execute', [repo]);
}

// --- find ----------------------------------------------------------------------------------

/** find's tests and options that only select or print (GNU findutils, BSD find). */
export const FIND_SWITCH = new Set([
  '-print', '-print0', '-ls', '-prune', '-quit', '-true', '-false', '-empty', '-readable', '-writable', '-executable', '-nouser',
  '-nogroup', '-depth', '-d', '-mount', '-xdev', '-follow', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-daystart',
  '-warn', '-nowarn', '-not', '-a', '-and', '-o', '-or', '!', '(', ')', ',', '-help', '--help', '-version', '--version',
]);
export const FIND_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-size', '-mtime', '-mmin',
  '-atime', '-amin', '-ctime', '-cmin', '-newer', '-anewer', '-cnewer', '-user', '-group', '-uid', '-gid', '-perm', '-links', '-inum',
  '-samefile', '-lname', '-ilname', '-fstype', '-used', '-maxdepth', '-mindepth', '-regextype', '-printf', '-context', '-files0-from',
]);
const FIND_DANGER: Record<string, { action: Action; reason: string } | undefined> = lookupTable({
  '-delete': { action: 'delete', reason: 'find -delete deletes what it finds' },
  '-fprint': { action: 'write', reason: 'find -fprint writes its list to a file' },
  '-fprint0': { action: 'write', reason: 'find -fprint0 writes its list to a file' },
  '-fprintf': { action: 'write', reason: 'find -fprintf writes its list to a file' },
  '-fls': { action: 'write', reason: 'find -fls writes its list to a file' },
});

function find(args: Arg[], ctx: CmdContext): CmdResult {
  let i = 0;
  // Options before the starting points: -P -L -H, -D debugopts, -O level.
  while (i < args.length && /^-[PLHEXsx]$|^-O\d$/.test(args[i].text)) i++;
  if (args[i]?.text === '-D') i += 2;
  const starts: Arg[] = [];
  while (i < args.length && !/^[-(!]/.test(args[i].text)) {
    if (args[i].mayBeOption) return result('execute', paths(starts, ctx), { reasons: [{ level: 'medium', reason: `find: a starting point computed at run time (${clipText(args[i].text)}) could be an action such as -delete` }] });
    starts.push(args[i++]);
  }
  const roots = starts.length ? paths(starts, ctx) : [resolvePath('.', ctx.cwd)];
  const expr = args.slice(i);
  const out = result('read', roots);
  const inners: Arg[][] = [];
  let execdirWhere: string | null = null;
  for (let j = 0; j < expr.length; j++) {
    const a = expr[j];
    const t = a.text;
    if (a.mayBeOption && !a.text.startsWith('-')) return result('execute', roots, { reasons: [{ level: 'medium', reason: `find: an expression word computed at run time (${clipText(t)}) could be an action` }] });
    const d = FIND_DANGER[t];
    if (d) {
      const f = t.startsWith('-f') ? expr[j + 1] : undefined;
      const res = f ? [resolvePath(f.text, ctx.cwd, f.dynamic)] : [];
      const r = result(d.action, [...roots, ...res], { reasons: [{ level: 'medium', reason: d.reason }] });
      if (d.action === 'write') r.writes = res;
      if (ACTION_RANK[r.action] > ACTION_RANK[out.action]) {
        out.action = r.action;
      }
      out.resources.push(...res);
      out.reasons.push(...r.reasons);
      if (t === '-fprintf') j++;
      j++;
      continue;
    }
    if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      let end = j + 1;
      while (end < expr.length && expr[end].text !== ';' && expr[end].text !== '+') end++;
      // `{}` is a path find found: under a starting point, never an option.
      const inner = expr.slice(j + 1, end).map((x) => (x.text === '{}' ? { text: roots[0], dynamic: false } : x));
      // -execdir runs its command in each directory find visits: git there obeys whatever
      // repository config that directory holds (core.fsmonitor, core.pager …), the same
      // walk-around as `git -C DIR` (sh-git.ts), which this classifier cannot follow.
      const prog = inner[0]?.text.split('/').pop() ?? '';
      if ((t === '-execdir' || t === '-okdir') && (prog === 'git' || inner[0]?.dynamic)) {
        return result('execute', roots, { reasons: [{ level: 'high', reason: `find ${t} runs ${clipText(inner[0]?.text ?? '')} in every directory it finds, where a planted repository config would apply` }] });
      }
      // Its relative words are relative to each directory find visits, not to the line's:
      // `find .git -name hooks -execdir touch hooks/pre-commit ;` writes .git/hooks/pre-commit,
      // which read as ./hooks/pre-commit and was covered by a grant on the task's directory.
      if ((t === '-execdir' || t === '-okdir') && !execdirWhere) {
        const loose = inner.slice(1).find((x) => x.text !== roots[0] && !x.text.startsWith('-') && !x.text.startsWith('/') && x.text !== '~' && !x.text.startsWith('~/'));
        if (loose) execdirWhere = `find ${t} runs ${clipText(inner[0]?.text ?? '', 40)} in every directory it finds, where ${clipText(loose.text, 60)} leads anywhere under ${clipText(roots.join(' '), 60)}`;
      }
      inners.push(inner);
      j = end;
      continue;
    }
    if (FIND_SWITCH.has(t)) continue;
    if (FIND_VALUE.has(t) || /^-newer[aBcmt][aBcmt]$/.test(t)) {
      j++;
      continue;
    }
    if (/^[-+]?\d/.test(t)) continue; // stray numbers are find's problem, not ours
    return result('execute', roots, { reasons: [{ level: 'medium', reason: `unknown find expression ${clipText(t)}: not known to be read-only` }] });
  }
  // `-files0-from F` takes the starting points from F, not the command line: `find
  // -files0-from list -delete` deletes whatever the list names (~/.ssh too), and read as the
  // working directory it was covered by a grant on the task's tree.
  const listAt = expr.findIndex((a) => a.text === '-files0-from');
  const listed = listAt >= 0 ? `find -files0-from takes its starting points from ${clipText(expr[listAt + 1]?.text ?? 'a file', 60)}, not the command line: they may be anywhere` : null;
  const unlisted = execdirWhere ?? listed;
  if (inners.length) {
    // The inner command's action is what find does with each file it finds.
    return { ...out, argv: inners[0], argvMode: 'inner', ...(unlisted ? { unlisted } : {}), ...(inners.length > 1 ? { reasons: [...out.reasons, { level: 'medium', reason: 'find runs several commands (-exec …); only the first is shown' }], action: 'execute' as Action } : {}) };
  }
  if (listed && out.action !== 'read') out.unlisted = listed;
  return out;
}

// --- wrappers ------------------------------------------------------------------------------

/**
 * Programs that run another argv. A wrapped command is never less than execute: the
 * wrapper changes how it runs (another user, a detached session, a loop, a lock …) and
 * a plain `rm` must not look less severe wrapped than bare. The inner command is still
 * classified so its resources and reasons show in the prompt.
 */
function unwrap(name: string, args: Arg[]): { args: Arg[]; reason: RiskReason; script?: Arg; chdir?: Arg; root?: Arg } | null {
  const skipOpts = (withValue: Set<string>, stopAtAssign = false): Arg[] => {
    let i = 0;
    while (i < args.length) {
      const a = args[i].text;
      if (a === '--') return args.slice(i + 1);
      if (stopAtAssign && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        i++;
        continue;
      }
      if (!a.startsWith('-') || a === '-') break;
      // getopt_long takes an abbreviation: `--wd` as `--w`, `--adjustment` as `--adj`.
      if (withValue.has(a) || (a.startsWith('--') && a.length >= 3 && !a.includes('=') && [...withValue].some((o) => o.startsWith(a)))) i += 2;
      // A cluster whose last letter takes a value takes the next word (`sudo -iu bob rm /x`: bob
      // is -u's, rm is the command; it was judged as a program named bob). An earlier such
      // letter takes the rest of the word (`-gwheel`).
      else if (/^-[a-zA-Z0-9]{2,}$/.test(a) && [...a.slice(1)].findIndex((ch) => withValue.has(`-${ch}`)) === a.length - 2) i += 2;
      else i++;
    }
    return args.slice(i);
  };
  const wraps = (what: string, level: RiskLevel = 'medium'): RiskReason => ({ level, reason: `${name} runs a command (${what})` });
  switch (name) {
    case 'sudo':
    case 'doas':
    case 'run0':
    case 'pkexec':
    case 'su':
    case 'runuser': {
      // sudo's -s is a switch (run the command through a shell) and -R (--chroot) takes a root;
      // su's and runuser's -s names the shell (`sudo -s rm x` was judged as running x).
      const su = name === 'su' || name === 'runuser';
      const rest = skipOpts(new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--prompt', '--role', '--type', '--other-user', '--close-from', '--command-timeout', '--host', ...(su ? ['-s', '--shell'] : ['-R', '--chroot'])]), true);
      // `su -c CMD`, `su -cCMD`, `su --command=CMD` (and --session-command): CMD is shell text.
      // A -c that is not found as one of these leaves the command unjudged: nothing runs as read.
      const c = args.findIndex((a) => /^(--command|--session-command)(=|$)/.test(a.text) || /^-[a-zA-Z]*c/.test(a.text) && !a.text.startsWith('--'));
      if (su && c >= 0) {
        const t = args[c]!.text;
        const joined = /^--[a-z-]+=(.*)$/s.exec(t)?.[1] ?? (/^-[a-zA-Z]*?c(.+)$/s.exec(t)?.[1]);
        const script = joined !== undefined ? { text: joined, dynamic: args[c]!.dynamic } : args[c + 1];
        if (script) return { args: [], reason: { level: 'high', reason: `runs as another user (${name})` }, script };
      }
      // `su [-] USER [ARG…]` runs USER's shell with ARG… (`su bob x.sh` runs x.sh): the word
      // after the options is a user, not a program (`su bob` was judged as running ./bob).
      if (name === 'su' || (name === 'runuser' && !args.some((a) => /^(-u|--user)/.test(a.text)))) {
        const after = rest[0]?.text === '-' ? rest.slice(1) : rest;
        return { args: after.length > 1 ? [{ text: 'sh', dynamic: false }, ...after.slice(1)] : [], reason: { level: 'high', reason: `runs a shell as another user (${name})` } };
      }
      // sudo -D DIR (--chdir) runs the command in DIR, as env -C does.
      const opts = args.slice(0, args.length - rest.length);
      let chdir: Arg | undefined;
      let root: Arg | undefined;
      opts.forEach((a, k) => {
        const m = /^(?:-D|--chd(?:ir?)?=?)(.*)$/s.exec(a.text);
        if (m && name === 'sudo') chdir = m[1] ? { text: m[1], dynamic: a.dynamic } : opts[k + 1];
        const r = /^(?:-R|--chr(?:o(?:ot?)?)?=?)(.*)$/s.exec(a.text);
        if (r && name === 'sudo') root = r[1] ? { text: r[1], dynamic: a.dynamic } : opts[k + 1];
      });
      return { args: rest, reason: { level: 'high', reason: `runs as another user (${name})` }, ...(chdir ? { chdir } : {}), ...(root ? { root } : {}) };
    }
    case 'nice':
      return { args: skipOpts(new Set(['-n', '--adjustment'])), reason: wraps('at another priority') };
    case 'ionice':
      return { args: skipOpts(new Set(['-c', '-n', '-p', '-t'])), reason: wraps('at another I/O priority') };
    case 'timeout':
      return { args: skipOpts(new Set(['-s', '-k', '--signal', '--kill-after'])).slice(1), reason: wraps('with a time limit') };
    case 'stdbuf':
      return { args: skipOpts(new Set(['-i', '-o', '-e'])), reason: wraps('with other buffering') };
    case 'nohup':
      return { args: skipOpts(new Set()), reason: wraps('that keeps running after the session ends, writing nohup.out') };
    case 'setsid':
      return { args: skipOpts(new Set()), reason: wraps('in a new session, detached') };
    case 'exec':
      return { args: skipOpts(new Set(['-a'])), reason: wraps('in place of the shell') };
    case 'command':
    case 'builtin':
      return { args: skipOpts(new Set()), reason: wraps('bypassing functions and aliases') };
    case 'time':
      return { args: skipOpts(new Set(['-o', '-f', '--output', '--format'])), reason: wraps('and times it') };
    case 'chroot': {
      const rest = skipOpts(new Set(['--userspec', '--groups']));
      return { args: rest.slice(1), reason: wraps('in another root directory', 'high'), ...(rest[0] ? { root: rest[0] } : {}) };
    }
    // `chrt [opts] PRIORITY CMD` and `taskset [opts] MASK CMD` (with -p: a running process,
    // no command): the word before the command is not the command (`chrt 1 rm -rf ~` was
    // judged as running a program named 1, and a grant for chrt covered it).
    case 'taskset':
    case 'chrt': {
      const rest = skipOpts(new Set(['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline']));
      // -p among chrt's or taskset's own options (not the command's: `chrt 1 sh -p`).
      if (args.slice(0, args.length - rest.length).some((a) => /^-[a-zA-Z]*p|^--pid$/.test(a.text))) return { args: [], reason: wraps(`under ${name}`) };
      return { args: rest.slice(1), reason: wraps(`under ${name}`) };
    }
    // Version managers' `exec` runs the program named after it with the version the project
    // pins (`asdf exec python x.py`): the program is what runs (it was an unknown program, and
    // `{asdf,asdf *}` ran anything). Other subcommands are no wrapper.
    case 'asdf':
    case 'pyenv':
    case 'rbenv':
    case 'nodenv':
    case 'goenv':
    case 'jenv':
      return args[0]?.text === 'exec' && !args[0].dynamic ? { args: args.slice(1), reason: wraps(`with the version ${name} pins`) } : null;
    // `mise exec [TOOL@VERSION…] -- CMD` (`mise x`, and rtx, its old name); `-c CMD` is shell text.
    case 'mise':
    case 'rtx': {
      if (!/^(exec|x)$/.test(args[0]?.text ?? '') || args[0]!.dynamic) return null;
      const c = args.findIndex((a) => /^(-c|--command)(=|$)/.test(a.text));
      const dashes = args.findIndex((a) => a.text === '--');
      if (c >= 0 && (dashes < 0 || c < dashes)) {
        const joined = /^--command=(.*)$/s.exec(args[c]!.text)?.[1];
        const script = joined !== undefined ? { text: joined, dynamic: args[c]!.dynamic } : args[c + 1];
        if (script) return { args: [], reason: wraps(`with the versions ${name} pins, through a shell`), script };
      }
      return { args: dashes < 0 ? [] : args.slice(dashes + 1), reason: wraps(`with the versions ${name} pins`) };
    }
    // `setarch ARCH [options] CMD` (linux32/linux64 take the options only), `runcon CONTEXT CMD`
    // or `runcon -t TYPE … CMD`, `faketime TIME CMD`: a word before the command is no program.
    case 'setarch':
    case 'linux32':
    case 'linux64': {
      let i = name === 'setarch' && args[0] && !args[0].text.startsWith('-') ? 1 : 0;
      while (i < args.length && args[i]!.text.startsWith('-') && args[i]!.text !== '-') {
        if (args[i]!.text === '--') {
          i++;
          break;
        }
        i++;
      }
      return { args: args.slice(i), reason: wraps(`under ${name}`) };
    }
    case 'runcon': {
      if (args[0] && !args[0].text.startsWith('-')) return { args: args.slice(1), reason: wraps('in another security context', 'high') };
      return { args: skipOpts(new Set(['-u', '-r', '-t', '-l', '--user', '--role', '--type', '--range'])), reason: wraps('in another security context', 'high') };
    }
    case 'faketime':
      // -m and -f are switches (`faketime -f '+1d' rm x` runs rm, which was judged as a program
      // named x); --date-prog PROG runs PROG to read the time: no argv a pattern could name.
      if (args.some((a) => /^--date-prog(=|$)/.test(a.text))) return { args: [], reason: wraps('with a faked clock, and a program of its own to read the time', 'high') };
      return { args: skipOpts(new Set(['-p'])).slice(1), reason: wraps('with a faked clock') };
    case 'parallel':
      return parallel(args);
    // Wrappers that run the command after their own words, in an environment they make: secrets
    // (op run, aws-vault exec, doppler run), an environment (conda run, direnv exec, nix develop
    // -c), another user (gosu). Unknown, each was offered `{X Y,X Y *}` (`{op run,op run *}` for
    // `op run -- npm test`, `{conda,conda *}` for `conda run -n e pytest`), which ran anything
    // (blackbox16). With no plain argv to name, only the exact command is offered.
    case 'op':
    case 'doppler':
    case 'infisical':
    case 'aws-vault':
    case 'chamber': {
      const verb = name === 'aws-vault' || name === 'chamber' ? 'exec' : 'run';
      if (args[0]?.text !== verb || args[0].dynamic) return null;
      const dashes = args.findIndex((a) => a.text === '--');
      return { args: dashes < 0 ? [] : args.slice(dashes + 1), reason: wraps(`with the secrets ${name} ${verb} puts in its environment`, 'high') };
    }
    case 'conda':
    case 'mamba':
    case 'micromamba':
    case 'pixi':
    case 'hatch': {
      if (args[0]?.text !== 'run' || args[0].dynamic) return null;
      const rest = args.slice(1);
      let i = 0;
      while (i < rest.length && rest[i]!.text.startsWith('-') && rest[i]!.text !== '--') i += /^(-n|--name|-p|--prefix|--cwd|-e|--environment|--manifest-path|--env)$/.test(rest[i]!.text) ? 2 : 1;
      if (rest[i]?.text === '--') i++;
      // `conda run --cwd DIR` runs in DIR: no pattern for that (the argv is judged where it is).
      return { args: rest.some((a) => a.text === '--cwd' || a.text.startsWith('--cwd=')) ? [] : rest.slice(i), reason: wraps(`in the environment ${name} run makes`) };
    }
    case 'direnv': {
      if (args[0]?.text !== 'exec' || args[0].dynamic) return null;
      // `direnv exec DIR CMD` first runs DIR's .envrc (bash): only the working directory's own
      // (a protected file) is no program of the line's choosing.
      const dir = args[1];
      if (!dir || dir.dynamic || !/^\.\/?$/.test(dir.text)) return { args: [], reason: wraps("with the environment another directory's .envrc makes (direnv runs that file)", 'high') };
      return { args: args.slice(2), reason: wraps("with the environment the project's .envrc makes") };
    }
    case 'nix': {
      if (!/^(develop|shell)$/.test(args[0]?.text ?? '') || args[0]!.dynamic) return null;
      const c = args.findIndex((a) => a.text === '-c' || a.text === '--command');
      return { args: c < 0 ? [] : args.slice(c + 1), reason: wraps(`in the environment nix ${args[0]!.text} builds`) };
    }
    case 'gosu':
    case 'su-exec':
    case 'setuidgid':
    case 'envdir':
      return { args: args.slice(1), reason: wraps(name === 'envdir' ? "with the environment a directory's files set" : 'as another user', name === 'envdir' ? 'medium' : 'high') };
    case 'eatmydata':
      return { args: skipOpts(new Set()), reason: wraps('without fsync') };
    case 'dotenv':
      return { args: skipOpts(new Set(['-e', '-v', '-c', '-p'])), reason: wraps('with the variables a .env file sets') };
    // These take the command as shell text, or run it where a grant cannot follow: no pattern.
    case 'entr':
    case 'watchexec':
    case 'machinectl':
    case 'tmux':
      return name === 'machinectl' && args[0]?.text !== 'shell' ? null : name === 'tmux' && !/^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|run-shell|run)$/.test(args[0]?.text ?? '') ? null : { args: [], reason: wraps(name === 'machinectl' ? 'in another machine or container' : name === 'tmux' ? 'in a terminal multiplexer' : 'again whenever files change') };
    case 'systemd-run': {
      // --working-directory DIR runs the command in DIR (-d: here); its relative paths are there.
      const rest = skipOpts(WRAPPER_VALUES[name]!);
      const opts = args.slice(0, args.length - rest.length);
      const k = opts.findIndex((a) => /^--working-directory(=|$)/.test(a.text));
      const joined = k >= 0 ? /^--working-directory=(.*)$/s.exec(opts[k]!.text) : null;
      const chdir = k < 0 ? undefined : joined ? { text: joined[1]!, dynamic: opts[k]!.dynamic } : opts[k + 1] ?? { text: '(systemd-run\'s directory)', dynamic: true };
      return { args: rest, reason: wraps('as a transient systemd unit'), ...(chdir ? { chdir } : {}) };
    }
    case 'setpriv':
    case 'prlimit':
    case 'cpulimit':
    case 'aa-exec':
    case 'sshpass':
    case 'valgrind':
    case 'cgexec':
    case 'systemd-inhibit':
    case 'dbus-run-session':
    case 'numactl':
    case 'unbuffer':
    case 'chronic':
    case 'caffeinate':
    case 'strace':
    case 'ltrace':
    case 'torsocks':
    case 'proxychains':
    case 'proxychains4':
    case 'firejail':
    case 'fakeroot':
    case 'catchsegv':
    case 'xvfb-run':
    case 'dbus-launch':
    case 'sg':
    case 'ssh-agent':
      return { args: skipOpts(WRAPPER_VALUES[name] ?? new Set(['-o', '-e', '-p', '-s', '-u', '-f', '-c'])), reason: wraps(`under ${name}`) };
    case 'unshare':
    case 'nsenter': {
      // Both can run the command in another directory or root (`unshare -r --wd=.git/hooks
      // touch pre-commit` wrote the hook, judged as ./pre-commit): its relative paths are under
      // that directory, or nowhere known (a root, nsenter's bare -w: the target's directory).
      const values = name === 'unshare'
        ? new Set(['-w', '--wd', '-R', '--root', '-S', '--setuid', '-G', '--setgid', '--map-user', '--map-group', '--map-users', '--map-groups', '--propagation', '--setgroups'])
        : new Set(['-t', '--target', '-S', '--setuid', '-G', '--setgid']);
      const rest = skipOpts(values);
      const opts = args.slice(0, args.length - rest.length);
      const unknown: Arg = { text: `(${name}'s directory)`, dynamic: true };
      let chdir: Arg | undefined;
      for (let k = 0; k < opts.length; k++) {
        const t = opts[k]!.text;
        if (t === '--') break;
        // Abbreviated as getopt_long takes them: `unshare -r --w=.git/hooks touch pre-commit` wrote the hook.
        const sep = name === 'unshare' && (t === '-w' || /^--wd?$/.test(t));
        const joined = /^(?:-w|--wd?=)(.+)$/s.exec(t);
        if (sep) chdir = opts[k + 1] ?? unknown;
        else if (joined) chdir = { text: joined[1]!, dynamic: opts[k]!.dynamic };
        else if (/^--(?:wd|root)|^--(?:w|r|ro|roo)(=|$)/.test(t) || (/^-[a-zA-Z]+$/.test(t) && (name === 'unshare' ? /[wR]/ : /[wr]/).test(t))) chdir = unknown;
      }
      return { args: rest, reason: wraps(`under ${name}`), ...(chdir ? { chdir } : {}) };
    }
    case 'flock': {
      const c = args.findIndex((a) => a.text === '-c' || a.text === '--command');
      if (c >= 0 && args[c + 1]) return { args: [], reason: wraps('while holding a lock'), script: args[c + 1] };
      return { args: skipOpts(new Set(['-w', '-E', '--timeout', '--conflict-exit-code'])).slice(1), reason: wraps('while holding a lock') };
    }
    case 'watch': {
      // watch joins its arguments and runs them with `sh -c`, again and again.
      const rest = skipOpts(new Set(['-n', '--interval', '-d', '-q', '--equexit', '--chgexit']));
      return { args: [], reason: wraps('again and again, through sh -c'), script: { text: rest.map((a) => a.text).join(' '), dynamic: rest.some((a) => a.dynamic) } };
    }
    case 'script': {
      const c = args.findIndex((a) => a.text === '-c' || a.text === '--command');
      return { args: [], reason: wraps('in a recorded terminal, writing a typescript file'), ...(c >= 0 && args[c + 1] ? { script: args[c + 1] } : {}) };
    }
    default:
      return null;
  }
}

/** GNU parallel's options known to change neither what runs nor where (`-j 4`, `-k`, `--bar` …). */
const PARALLEL_SWITCH = /^(-[kvq]+|--keep-order|--verbose|--bar|--progress|--eta|--will-cite|--no-notice|--line-buffer|--lb|--tag|--quote|--dry-run|-[jnNP]\d+%?|--(jobs|max-args|max-procs|halt|delay|retries)=\S+)$/;
const PARALLEL_VALUE = new Set(['-j', '-n', '-N', '-P', '--jobs', '--max-args', '--max-procs', '--halt', '--delay', '--retries']);
const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * GNU parallel joins its command words with blanks and runs the line through a shell, once
 * for each argument (after `:::`, quoted), `{}` replaced by it or it appended: that shell text
 * is what runs (`parallel rm ::: a` was an unknown program, and `{parallel,parallel *}` ran
 * anything). Arguments from standard input or a file (`::::`) stand as `"$ARG"`, a word known
 * only at run time; an option not known to be harmless leaves only the exact command.
 */
function parallel(args: Arg[]): { args: Arg[]; reason: RiskReason; script?: Arg } {
  const reason: RiskReason = { level: 'medium', reason: 'parallel runs a command line through a shell for each of its arguments' };
  let i = 0;
  for (; i < args.length && args[i]!.text.startsWith('-'); i++) {
    const t = args[i]!.text;
    if (t === '--') {
      i++;
      break;
    }
    if (args[i]!.dynamic) return { args: [], reason };
    if (PARALLEL_VALUE.has(t)) i++;
    else if (!PARALLEL_SWITCH.test(t)) return { args: [], reason: { level: 'medium', reason: `parallel runs a command with ${clipText(t, 40)}, an option not known to be harmless` } };
  }
  const marker = (a: Arg) => /^::::?\+?$/.test(a.text);
  const end = args.findIndex((a, k) => k >= i && marker(a));
  const command = args.slice(i, end < 0 ? args.length : end);
  if (command.length === 0) return { args: [], reason };
  const values: string[] = [];
  let unknownInput = end < 0;
  for (let k = end; k >= 0 && k < args.length; k++) {
    if (marker(args[k]!)) {
      if (args[k]!.text.startsWith('::::')) unknownInput = true;
      continue;
    }
    if (!args[k - 1] || !args[k - 1]!.text.startsWith('::::')) values.push(shQuote(args[k]!.text));
  }
  if (unknownInput) values.push('"$ARG"');
  const line = command.map((a) => a.text).join(' ');
  const lines = values.slice(0, 64).map((v) => (/\{[./#%]*\}/.test(line) ? line.replace(/\{[./#%]*\}/g, v) : `${line} ${v}`));
  return { args: [], reason, script: { text: lines.join('\n'), dynamic: args.some((a) => a.dynamic) } };
}

/**
 * The options that take a value, for wrappers whose flags the generic set gets wrong:
 * `strace -f cp x .git/hooks/pre-commit` took -f's value for `cp`, and showed a program
 * named x (GTFOBins corpus). Long options are written `--opt=value` by these.
 */
const WRAPPER_VALUES: Record<string, Set<string> | undefined> = lookupTable({
  strace: new Set(['-a', '-b', '-e', '-E', '-I', '-o', '-O', '-p', '-P', '-s', '-S', '-u', '-X', '-U']),
  ltrace: new Set(['-a', '-A', '-D', '-e', '-F', '-l', '-n', '-o', '-p', '-s', '-u', '-w', '-x']),
  fakeroot: new Set(['-l', '-s', '-i', '-b', '--lib', '--faked']),
  firejail: new Set(),
  setpriv: new Set(['--reuid', '--regid', '--ruid', '--euid', '--rgid', '--egid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--pdeathsig', '--selinux-label', '--apparmor-profile', '--landlock-access', '--landlock-rule', '--reset-env']),
  // prlimit's limits take their value attached only (`--nofile=10`, `-n10`).
  prlimit: new Set(['-p', '--pid', '-o', '--output']),
  cpulimit: new Set(['-l', '--limit', '-p', '--pid', '-e', '--exe', '-m', '--monitor-forks']),
  'aa-exec': new Set(['-p', '--profile', '-n', '--namespace']),
  // sshpass gives the program a password: -p PASS, -f FILE, -d FD, -P PROMPT.
  sshpass: new Set(['-p', '-f', '-d', '-P']),
  // valgrind takes `--opt=value` only.
  valgrind: new Set(),
  cgexec: new Set(['-g']),
  'systemd-inhibit': new Set(['--what', '--who', '--why', '--mode']),
  // `systemd-run --unit x rm /x` and `numactl -N 0 rm /x` were judged as programs named x and 0.
  'systemd-run': new Set(['-u', '--unit', '-p', '--property', '--description', '--slice', '--uid', '--gid', '--nice', '-E', '--setenv', '-H', '--host', '-M', '--machine', '--service-type', '--working-directory', '--on-active', '--on-boot', '--on-startup', '--on-unit-active', '--on-unit-inactive', '--on-calendar', '--timer-property', '--path-property', '--socket-property']),
  numactl: new Set(['-i', '--interleave', '-p', '--preferred', '-m', '--membind', '-N', '--cpunodebind', '-C', '--physcpubind', '-w', '--weighted-interleave']),
  'dbus-run-session': new Set(['--config-file', '--dbus-daemon']),
});

/**
 * Where the command a wrapper runs starts among a command line's words (`timeout 60 npm
 * test` → 2; `env FOO=1 make` → 2): undefined when the first word is no wrapper, null when
 * it is one but what it runs is not a plain argv (`watch 'x'`, `flock -c 'x'`, `env -S`).
 * For the suggested grant (core/suggest.ts), which must name what runs: `{timeout,timeout *}`
 * offered for `timeout 60 npm test` covered `timeout 5 python3 -c …` (GTFOBins corpus).
 */
export function wrappedStart(words: readonly string[]): number | null | undefined {
  const name = path.basename(words[0] ?? '');
  const args: Arg[] = words.slice(1).map((text) => ({ text, dynamic: false }));
  if (name === 'env') {
    const e = envArgs(args);
    return e.split || e.unknown || e.chdir || e.args.length === 0 ? null : words.length - e.args.length;
  }
  const u = unwrap(name, args);
  if (!u) return undefined;
  // A command the wrapper makes up (`su bob x.sh` runs `sh x.sh`) is not among the words: no pattern.
  const made = u.args.length > 0 && u.args[0] !== args[args.length - u.args.length];
  return u.script || u.chdir || u.root || made || u.args.length === 0 ? null : words.length - u.args.length;
}

/**
 * Whether the first of `words` is a program the classifier does not know (or a file outside
 * the system directories): for the suggested grant (core/suggest.ts), since `{X,X *}` for such
 * a program allows every use of it, and it may be a wrapper that runs its arguments
 * (`{valgrind,valgrind *}` ran anything).
 */
export function unknownProgram(words: readonly string[]): boolean {
  return classifyArgv(words.slice(0, 2).map((text) => ({ text, dynamic: false })), { cwd: undefined }).unknown === true;
}

// GNU xargs: -e, -i, -l (and --eof, --replace, --max-lines) take their value only when
// it is attached (`-eEND`, `--eof=END`); alone, the next word is the command:
// `xargs -e rm` runs rm. --process-slot-var is judged apart (it sets a variable).
const XARGS_VALUE = new Set(['-I', '-L', '-n', '-P', '-d', '-E', '-s', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file']);
const XARGS_SWITCH = new Set(['-0', '-r', '-t', '-x', '-p', '-o', '-e', '-i', '-l', '--eof', '--replace', '--max-lines', '--null', '--no-run-if-empty', '--verbose', '--exit', '--interactive', '--open-tty']);

/** GNU env's long options (any unambiguous prefix is the option: `env --ch=DIR`). */
const ENV_LONG = ['--ignore-environment', '--null', '--unset', '--chdir', '--split-string', '--block-signal', '--default-signal', '--ignore-signal', '--list-signal-handling', '--debug', '--help', '--version'];

/**
 * `env [-i] [-u X] [-0] [-C DIR] [VAR=x …] [cmd …]`: null args when nothing runs. `chdir`:
 * the directory -C/--chdir runs the command in (`-CDIR`, `-iC DIR`, `--ch=DIR` too).
 */
function envArgs(args: Arg[]): { args: Arg[]; assigns: Arg[]; split: Arg | null; unknown: string | null; chdir: Arg | null } {
  const assigns: Arg[] = [];
  let split: Arg | null = null;
  let chdir: Arg | null = null;
  const out = (i: number, unknown: string | null = null) => ({ args: args.slice(i), assigns, split, unknown, chdir });
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const a = w.text;
    if (a === '--') return out(i + 1);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
      assigns.push(w);
      continue;
    }
    if (a === '-') continue; // -i
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      const hits = ENV_LONG.filter((o) => o.startsWith(name));
      const opt = hits.includes(name) ? name : hits.length === 1 ? hits[0] : null;
      if (!opt || w.dynamic) return out(i, a);
      const value = (): Arg => (eq > 0 ? { text: a.slice(eq + 1), dynamic: w.dynamic } : (args[++i] ?? { text: '', dynamic: false }));
      if (opt === '--split-string') {
        split = value();
        return out(i + 1);
      }
      if (opt === '--chdir') chdir = value();
      else if (opt === '--unset') value();
      else if (opt === '--help' || opt === '--version' || opt === '--list-signal-handling') return out(args.length);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      if (w.dynamic) return out(i, a);
      // Short options may be bundled (`-iC DIR`, `-CDIR`); -u, -C and -S take a value.
      for (let j = 1; j < a.length; j++) {
        const o = a[j];
        if (o === 'i' || o === '0' || o === 'v') continue;
        if (o !== 'u' && o !== 'C' && o !== 'S') return out(i, a);
        const rest = a.slice(j + 1);
        const v: Arg = rest ? { text: rest, dynamic: false } : (args[++i] ?? { text: '', dynamic: false });
        if (o === 'S') {
          split = v;
          return out(i + 1);
        }
        if (o === 'C') chdir = v;
        break;
      }
      continue;
    }
    return out(i);
  }
  return out(args.length);
}

/** Builtins that define or change how later commands run: never a read. */
const BEHAVIOUR_BUILTINS: Record<string, string | undefined> = lookupTable({
  enable: 'enable turns builtins on or off or loads new ones from a shared library',
  complete: 'complete defines completions that run commands',
  compopt: 'compopt changes completion behaviour',
  unset: 'unset removes variables or functions that later commands rely on',
  readarray: 'readarray sets shell variables from input',
  mapfile: 'mapfile sets shell variables from input',
  let: 'let evaluates arithmetic on variables, which can run commands through array subscripts',
  getopts: 'getopts sets shell variables',
  bind: 'bind changes key bindings, which can run commands',
  fc: 'fc edits and re-runs commands from the history',
  kill: 'kill sends a signal to processes',
  fg: 'fg resumes a job',
  bg: 'bg resumes a job',
  disown: 'disown detaches a job',
  suspend: 'suspend stops the shell',
  logout: 'logout ends the shell',
  export: 'export changes the environment of later commands',
  declare: 'declare sets variables or their attributes',
  typeset: 'typeset sets variables or their attributes',
  local: 'local sets variables',
  readonly: 'readonly sets variables',
  autoload: 'autoload defines functions from files',
  noglob: 'noglob runs a command',
});

/** Where version managers keep their shims (asdf, pyenv, rbenv, nodenv, goenv, jenv, mise, volta). */
const SHIM_DIR = /(^|\/)(\.(asdf|pyenv|rbenv|nodenv|goenv|jenv)\/shims|mise\/shims|\.volta\/bin)$/;

/** Where a program named by a path may live and still be the program its name says. */
const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/sbin', '/usr/sbin']);

/**
 * Classifies one argv (already expanded as far as possible). `depth` bounds wrappers
 * nested in wrappers (`sudo env nice sudo …`).
 */
export function classifyArgv(argv: Arg[], ctx: CmdContext, depth = 0): CmdResult {
  if (argv.length === 0) return result('other');
  if (depth > 16) return result('execute', [], { reasons: [{ level: 'medium', reason: 'too many nested command wrappers' }] });
  const head = argv[0];
  const args = argv.slice(1);
  if (head.dynamic || head.mayBeOption) {
    return result('execute', [head.text], { reasons: [{ level: 'medium', reason: `runs a command whose name is computed at run time (${head.text.slice(0, 80)})` }] });
  }
  const full = head.text;
  const name = path.posix.basename(full);
  if (full.includes('/')) {
    // `/tmp/x/cat` or `./ls` is whatever that file is, not cat or ls.
    const dir = path.posix.dirname(path.posix.normalize(full));
    if (!SYSTEM_DIRS.has(dir)) {
      const runs = resolvePath(full, ctx.cwd);
      // A version manager's shim (`~/.asdf/shims/python x.py`) runs the program it is named
      // after: that program's arguments are judged as its own (x.py was listed nowhere), and the
      // shim stays what runs (a file outside the system directories, execute).
      if (SHIM_DIR.test(dir)) {
        const inner = classifyArgv([{ text: name, dynamic: false }, ...args], ctx, depth + 1);
        return wrapped({ level: 'medium', reason: `runs ${clipText(full)}, a version manager's shim for ${clipText(name, 40)} outside the system directories` }, { ...inner, resources: [runs, ...inner.resources] }, { runs });
      }
      return result('execute', [runs], { runs, unknown: true, reasons: [{ level: 'medium', reason: `runs ${clipText(full)}, a program outside the system directories (/bin, /usr/bin, /sbin, /usr/sbin)` }] });
    }
  }
  const classified = classifyNamed(name, args, ctx, depth);
  // `grep -r X ~`, `tar c /`: a read of a tree holding the home directory names its keys too (sh-trees.ts).
  const { trees, secrets } = treeSecrets(name, args, classified.resources);
  if (secrets.length) {
    classified.resources.push(...secrets);
    classified.reasons.push({ level: 'medium', reason: `${clipText(name, 20)} reads every file under ${clipText(trees.join(', '), 60)}, the keys in ${secrets[0]} too` });
  }
  return classified;
}

const clipText = (s: string, n = 80) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** Wraps an inner argv's result: execute, with the inner's resources and reasons. */
/**
 * The command `args` as run in `chdir` (env -C DIR, sudo -D DIR) or where it is: its relative
 * paths are under DIR (`env -C .git/hooks touch pre-commit` was judged as ./pre-commit and
 * covered by a grant on the task's directory; the write fuzzer). A DIR known only at run time
 * leaves them anywhere: that asks each time.
 */
function classifyIn(chdir: Arg | null, how: string, args: Arg[], ctx: CmdContext, depth: number): CmdResult {
  if (!chdir) return classifyArgv(args, ctx, depth + 1);
  const dir = chdir.dynamic ? null : resolvePath(chdir.text, ctx.cwd);
  const known = dir !== null && (dir.startsWith('/') || isHomePath(dir));
  const inner = classifyArgv(args, { ...ctx, cwd: known ? dir : undefined }, depth + 1);
  if (!known && inner.resources.length && !inner.unlisted) inner.unlisted = `${how} ${clipText(chdir.text, 60)} runs the command in a directory known only at run time, where relative paths lead anywhere`;
  return inner;
}

/**
 * The command `args` as `chroot ROOT` (`sudo -R ROOT`) runs it: in ROOT's `/`, so `/etc/x` is
 * ROOT/etc/x and `x` is ROOT/x (`chroot /x rm -rf y` was judged as deleting the task's ./y, and
 * `chroot /other rm /repo/a` as deleting /repo/a, covered by a grant there). A root known only at
 * run time leaves every path anywhere: that asks each time.
 */
function classifyUnderRoot(root: Arg, name: string, args: Arg[], ctx: CmdContext, depth: number): CmdResult {
  const dir = root.dynamic ? null : resolvePath(root.text, ctx.cwd);
  const inner = classifyArgv(args, { ...ctx, cwd: '/' }, depth + 1);
  if (dir === null || !(dir.startsWith('/') || isHomePath(dir))) {
    return { ...inner, unlisted: inner.unlisted ?? `${name} ${clipText(root.text, 60)} runs the command under a root known only at run time, where its paths lead anywhere` };
  }
  const under = (p: string) => (p.startsWith('/') ? path.posix.join(dir, p) : p);
  return { ...inner, resources: inner.resources.map(under), ...(inner.runs ? { runs: under(inner.runs) } : {}), ...(inner.writes ? { writes: inner.writes.map(under) } : {}) };
}

function wrapped(reason: RiskReason, inner: CmdResult | null, extra: Partial<CmdResult> = {}): CmdResult {
  const r = result('execute', inner ? [...inner.resources] : [], extra);
  r.reasons.push(reason, ...(inner?.reasons ?? []));
  if (inner?.download) r.download = true;
  if (inner?.runsStdin) r.runsStdin = inner.runsStdin;
  if (inner?.runs) r.runs = inner.runs;
  // What the command writes beyond its words (tar -x, unzip, patch, env -C $d …) still holds
  // under a wrapper: `nice tar -xf a.tar` wrote the hook the archive held under a grant on the
  // task's directory (the write fuzzer).
  if (inner?.unlisted) r.unlisted = inner.unlisted;
  if (inner?.aliases) r.aliases = inner.aliases;
  if (inner?.plantsLinks) r.plantsLinks = inner.plantsLinks;
  return r;
}

function classifyNamed(name: string, args: Arg[], ctx: CmdContext, depth: number): CmdResult {
  // `command -v x` / `command -V x` only looks a name up.
  if (name === 'command' && (args[0]?.text === '-v' || args[0]?.text === '-V') && args.length <= 2) return result('read');
  if (name === 'env') {
    const e = envArgs(args);
    const reasons: RiskReason[] = [];
    for (const a of e.assigns) {
      const eq = a.text.indexOf('=');
      const v = prefixVerdict(a.text.slice(0, eq), a.text.slice(eq + 1), a.dynamic);
      if (v) reasons.push(v);
    }
    if (e.unknown) return result('execute', [], { reasons: [{ level: 'medium', reason: `unknown flag ${e.unknown} for env: not known to be read-only` }] });
    if (e.split) return result('execute', [], { reasons: [{ level: 'high', reason: 'env -S runs a command given as one string' }, ...reasons], script: e.split, scriptOpaque: true });
    if (e.args.length === 0) return result('read'); // prints the environment
    const inner = classifyIn(e.chdir, 'env -C', e.args, ctx, depth);
    return wrapped({ level: 'medium', reason: 'env runs a command (with a changed environment)' }, { ...inner, reasons: [...reasons, ...inner.reasons] });
  }
  const w = unwrap(name, args);
  if (w) {
    if (w.script) return wrapped(w.reason, null, { script: { text: w.script.text, dynamic: w.script.dynamic }, scriptOpaque: true });
    if (w.args.length === 0) return name === 'time' || name === 'exec' || name === 'command' || name === 'nice' ? result('read') : result('execute', [], { reasons: [w.reason] });
    if (w.root) return wrapped(w.reason, classifyUnderRoot(w.root, name, w.args, ctx, depth));
    return wrapped(w.reason, classifyIn(w.chdir ?? null, name === 'sudo' ? 'sudo -D' : `${name} --wd`, w.args, ctx, depth));
  }
  if (name === 'xargs') {
    let i = 0;
    // -a/--arg-file FILE: xargs reads its words from FILE (a secret read is remembered).
    const argFiles: string[] = [];
    const argFile = (w: Arg | undefined, text = w?.text) => {
      if (w && text !== undefined) argFiles.push(resolvePath(text, ctx.cwd, w.dynamic));
    };
    while (i < args.length && args[i].text.startsWith('-')) {
      const t = args[i].text;
      if (t === '--') {
        i++;
        break;
      }
      // --process-slot-var=NAME sets NAME in the environment of the program it runs:
      // `--process-slot-var=PATH cat` looked cat up in ./0/ (judged as `NAME=0 cmd`).
      const slot = /^--process-slot-var(?:=(.*))?$/s.exec(t);
      if (slot) {
        const v = args[i + (slot[1] === undefined ? 1 : 0)];
        const verdict = v ? prefixVerdict(slot[1] ?? v.text, '0', v.dynamic) : null;
        if (!v || verdict) return result('execute', [], { reasons: [verdict ?? { level: 'medium', reason: 'xargs --process-slot-var without a name' }] });
        i += slot[1] === undefined ? 2 : 1;
        continue;
      }
      if (t === '-a' || t === '--arg-file') argFile(args[i + 1]);
      else if (t.startsWith('--arg-file=')) argFile(args[i], t.slice('--arg-file='.length));
      if (XARGS_VALUE.has(t)) i += 2;
      else if (XARGS_SWITCH.has(t) || /^-[0rtxpo]+$/.test(t) || /^-[nPLsIdEeil]./.test(t) || /^--(max-args|max-procs|delimiter|arg-file|replace|max-lines|eof)=/.test(t)) i++;
      else return result('execute', [], { reasons: [{ level: 'medium', reason: `unknown flag ${t} for xargs: not known to be read-only` }] });
    }
    const pos = args.slice(i);
    if (pos.length === 0) return result('read', argFiles); // runs echo
    // xargs appends words from its input to the command: only a program none of whose
    // options can write or run (a `closed` form) stays a read whatever gets appended.
    return { ...result('read', argFiles), argv: pos, argvMode: 'wrapper' };
  }

  if (name === 'busybox') {
    if (args[0] && !args[0].text.startsWith('-')) return wrapped({ level: 'medium', reason: `busybox runs its ${args[0].text} applet` }, classifyArgv(args, ctx, depth + 1));
    return result('execute', [], { reasons: [{ level: 'medium', reason: 'busybox with options is not known to be read-only' }] });
  }
  if (SHELLS.has(name)) return shell(name, args, ctx);
  if (name === 'eval') {
    return result('execute', [], { reasons: [{ level: 'medium', reason: 'eval runs text as shell code' }], script: { text: args.map((a) => a.text).join(' '), dynamic: args.some((a) => a.dynamic) }, scriptOpaque: true });
  }
  if (name === 'source' || name === '.') {
    const p = args[0] ? resolvePath(args[0].text, ctx.cwd, args[0].dynamic) : '';
    return result('execute', p ? [p] : [], { runs: p || undefined, reasons: [{ level: 'medium', reason: `${name} runs a file as shell code in this shell` }] });
  }
  const builtin = BEHAVIOUR_BUILTINS[name];
  if (builtin) return result('execute', [], { reasons: [{ level: 'medium', reason: builtin }] });
  const interp = interpreterName(name);
  if (interp) return interpreter(interp, args, ctx);

  if (name === 'cd' || name === 'pushd') {
    // `cd -` is OLDPWD and `pushd +N`/`-N` rotate the directory stack: where they lead is not
    // known (`cd -` was taken for `cd` alone, the home directory; `pushd +1` for a directory
    // named `+1`). A destination that is neither absolute nor `~` (`cd ~-`, `cd ~alice`) is
    // not known either (blackbox9).
    const operands = args.filter((a) => a.text !== '--' && !/^-[LPe@]+$/.test(a.text));
    if (operands.some((a) => a.text === '-' || (name === 'pushd' && /^[+-]\d+$/.test(a.text)))) return result('read', [], { cd: null });
    const target = operands[0];
    const dest = !target ? (name === 'pushd' ? null : '~') : target.dynamic ? null : resolvePath(target.text, ctx.cwd);
    return result('read', [], { cd: dest !== null && (dest.startsWith('/') || dest === '~' || dest.startsWith('~/')) ? dest : null });
  }
  if (name === 'popd') return result('read', [], { cd: null });
  if (name === 'find') return find(args, ctx);

  // make and cmake (sh-build.ts), but for a version query.
  if ((name === 'make' || name === 'gmake' || name === 'cmake') && !(args.length === 1 && /^(--version|-v|--help|-h)$/.test(args[0]!.text))) {
    const b = name === 'cmake' ? cmake(args, ctx, (argv, c) => classifyArgv(argv, { ...ctx, cwd: c.cwd }, depth + 1)) : make(name, args, ctx);
    return result(b.action, b.resources, { reasons: b.reasons, ...(b.unlisted ? { unlisted: b.unlisted } : {}) });
  }
  // The allowlist (sh-readonly.ts): a read only in a form it lists.
  const check = checkRead(name, args, ctx.cwd);
  if (check.known) {
    if (!check.action) return result('read', check.resources);
    // A write or delete that names no file (`awk 'BEGIN{print > ".git/hooks/x"}'`) is placed
    // nowhere: a grant on the task's directory or on the command must not cover it.
    const blind = (check.action === 'write' || check.action === 'delete') && check.resources.length === 0;
    return result(check.action, check.resources, { reasons: [{ level: check.level ?? 'medium', reason: check.reason ?? `${name}: not known to be read-only` }], ...(check.action === 'write' && check.resources.length ? { writes: check.resources } : {}), ...(blind ? { unlisted: `the file ${clipText(name, 40)} ${check.action === 'write' ? 'writes' : 'deletes'} is not named on the command line` } : {}) });
  }
  const runsFlag = commandFlag(name, args);
  if (runsFlag) {
    // The program the option names is on the command line, not in the grant: a command grant
    // (`{ssh build.example.com,… *}`, `{git difftool,… *}`) covered `ssh build.example.com
    // -oProxyCommand='curl …|sh' make` and ran it here (blackbox16). Placed nowhere, it asks.
    const r = classifyWriters(name, args, ctx);
    return { ...r, action: 'execute', reasons: [{ level: 'high', reason: runsFlag }, ...r.reasons], unlisted: r.unlisted ?? runsFlag };
  }
  return classifyWriters(name, args, ctx);
}

function classifyWriters(name: string, args: Arg[], ctx: CmdContext): CmdResult {

  if (DELETE_CMDS[name]) {
    const { pos, opts } = positionals(args, DELETE_CMDS[name]);
    const targets = namesWithDash(pos, ctx);
    const r = result('delete', targets);
    const recursive = opts.has('-r') || opts.has('-R') || [...opts.keys()].some((k) => longOpt(k, '--recursive'));
    const dangerous = targets.filter((t) => t === '/' || t === '~' || t === '/*' || t === '~/*' || /^\/[a-z]+\/?$/.test(t) && ['/usr', '/etc', '/bin', '/home', '/var', '/boot', '/lib'].includes(t.replace(/\/$/, '')));
    if (name === 'rm' && recursive && dangerous.length) r.reasons.push({ level: 'critical', reason: `recursively deletes ${dangerous.join(', ')}` });
    return r;
  }
  if (MODE_FIRST[name]) {
    // chmod's mode may start with a dash (`chmod -w f`): it is the mode, not an option.
    // chmod takes every word made of mode letters as the mode (`chmod 0 -o f`: mode -o, files 0 and f; seed 13).
    // `--` ends the options and is no mode (`chmod -- 777 f` listed 777 as a file); a word after
    // it is a mode or a file by its place, which positionals() tells.
    const dashes = args.findIndex((a) => a.text === '--');
    const modeArg = name === 'chmod' ? args.findIndex((a, i) => (dashes < 0 || i < dashes) && a.text !== '--' && /^-[rwxXstugoa0-7,+=-]+$/.test(a.text)) : -1;
    const parsed = positionals(modeArg >= 0 ? args.filter((_, i) => i !== modeArg) : args, MODE_FIRST[name]);
    const pos = modeArg >= 0 ? [args[modeArg]!, ...parsed.pos] : parsed.pos;
    // With --reference the mode (owner) comes from that file: every word is a file.
    const fromFile = [...parsed.opts.keys()].some((k) => k === '--reference');
    // setfacl takes its ACL as an option's value (-m ACL, --set=ACL): every word is a file (the
    // first was dropped as a "mode", so `setfacl -m u:x:rwx ~/.ssh/authorized_keys` named no file
    // and a command grant for setfacl covered it anywhere).
    const allFiles = fromFile || name === 'setfacl';
    const mode = allFiles ? '' : (pos[0]?.text ?? '');
    const files = paths(allFiles ? pos : pos.slice(1), ctx);
    const r = result('write', files);
    // -R changes everything under each file named, .git/ and its hooks included (the write
    // fuzzer, seed 77: `chmod -R a-w .` under a project grant changed .git/HEAD's mode).
    if (args.some((a) => /^-[a-zA-Z]*R/.test(a.text) && !a.text.startsWith('--') || longOpt(a.text, '--recursive'))) r.unlisted = `${name} -R changes everything under ${clipText(files.join(' '), 60)}, .git and its hooks included`;
    if (name === 'chmod' && /(^|[,ugoa])[ugoa]*\+[rwX]*x|^[0-7]*[1357][0-7]{0,2}$/.test(mode) && /x|[1357]/.test(mode)) r.makesExecutable = files;
    return r;
  }
  if ((WRITE_CMDS[name] || LIST_ONLY[name]) && listsOnly(name, args)) return result('read', paths(args.filter((a) => !a.text.startsWith('-')), ctx));
  if (WRITE_CMDS[name]) {
    const { pos, opts } = positionals(args, WRITE_CMDS[name], WRITE_LONG_FLAGS);
    const targetDir = opts.get('-t') ?? opts.get('--target-directory');
    // `-` is a file name to these (tee -p - f, mkdir -- -; seed 13), or standard input/output: named either way.
    const all = namesWithDash(pos, ctx);
    if (targetDir && targetDir !== true) all.push(resolvePath(targetDir.text, ctx.cwd, targetDir.dynamic));
    // An option's value that a glob or an unquoted variable may split into several words gives
    // the option its first word only; the rest are files the command writes (`touch -r *.txt`
    // takes a.txt as the reference and touches b.txt, which was listed nowhere).
    for (const v of opts.values()) if (v !== true && v !== targetDir && (v.glob || v.split)) all.push(resolvePath(v.text, ctx.cwd, v.dynamic));
    const r = result('write', all);
    // unzip and patch write the paths the archive or the diff holds (`patch -p1 < p.diff`
    // created .git/hooks/post-checkout; the write fuzzer): not on the command line.
    if (name === 'unzip') r.unlisted = 'unzip extracts the files the archive holds, wherever they say (.git/hooks too)';
    if (name === 'patch') r.unlisted = 'patch writes the files the diff names, wherever they say (.git/hooks too)';
    // `zip k.zip -@ < list` archives the files a list on standard input names: ~/.ssh among
    // them, under a grant for the project, and the archive is then an upload away.
    if (name === 'zip' && args.some((a) => /^-[a-zA-Z0-9]*@/.test(a.text) || (a.text.length >= 4 && '--names-stdin'.startsWith(a.text)))) r.unlisted = 'zip -@ archives the files named on its standard input, not on the command line';
    const spill = name === 'cp' ? contentsCopy(args, pos, true) : null;
    if (spill) r.unlisted = `cp copies everything ${clipText(spill, 60)} holds into the destination, wherever its tree says (.git/hooks too)`;
    // gzip, gunzip and zip write names derived from the ones given (`gzip f` writes f.gz,
    // `gunzip f.gz` writes f, `zip x f` writes x.zip): those are resources too.
    r.resources.push(...derivedOutputs(name, pos, opts, ctx));
    if (name === 'ln' || name === 'link' || name === 'cp' || name === 'mv') {
      // What the link, copy or move makes stands for its source in the parts after it (sh-links.ts).
      const words = pos.filter((a) => a.text !== '' && a.text !== '-');
      const symbolic = name === 'ln' ? opts.has('-s') || [...opts.keys()].some((k) => longOpt(k, '--symbolic')) : opts.has('-s') || [...opts.keys()].some((k) => longOpt(k, '--symbolic-link'));
      const relative = name === 'ln' && (opts.has('-r') || [...opts.keys()].some((k) => longOpt(k, '--relative')));
      const dir = targetDir && targetDir !== true ? resolvePath(targetDir.text, ctx.cwd, targetDir.dynamic) : null;
      r.aliases = aliasesOf(name, words.map((a) => a.text), words.map((a) => resolvePath(a.text, ctx.cwd, a.dynamic)), { symbolic, relative, targetDir: dir, cwd: ctx.cwd });
    }
    if (name === 'tee' || name === 'touch') r.writes = all;
    else if ((name === 'cp' || name === 'mv' || name === 'install' || name === 'ln') && all.length) r.writes = [all[all.length - 1]];
    return r;
  }
  return classifyNamedPlain(name, args, ctx);
}

/**
 * A recursive copy of a directory's contents (`cp -r t/. .`, `cp -rT t .`, `rsync -a t/ .`)
 * writes whatever that tree holds under the destination: a `t/.git/hooks/pre-commit` the agent
 * made lands in `./.git/hooks` though no word names it (lead's red team, after the write
 * fuzzer's tar -x). Returns the source so spilled, or null. A copy of the directory itself
 * (`cp -r t dst`) writes under `dst/t` or a new `dst`: its paths follow the names given.
 */
function contentsCopy(args: Arg[], pos: Arg[], cp: boolean): string | null {
  const recursive = args.some((a) => /^-[a-zA-Z]*[rRa]/.test(a.text) && !a.text.startsWith('--') || longOpt(a.text, '--recursive') || longOpt(a.text, '--archive'));
  if (!recursive) return null;
  const targetDir = args.some((a) => a.text === '-t' || longOpt(a.text, '--target-directory') || (/^-[a-zA-Z]*t/.test(a.text) && !a.text.startsWith('--')));
  const sources = cp && targetDir ? pos : pos.slice(0, -1);
  const noTarget = cp && args.some((a) => /^-[a-zA-Z]*T/.test(a.text) && !a.text.startsWith('--') || longOpt(a.text, '--no-target-directory'));
  const spill = sources.find((a) => a.dynamic || /(^|\/)\.\/?$/.test(a.text) || (!cp && a.text.endsWith('/')) || (noTarget && sources.length === 1));
  return spill ? spill.text : null;
}

/** The files gzip/gunzip/zip write under names derived from their arguments (see classifyWriters). */
function derivedOutputs(name: string, pos: Arg[], opts: Map<string, Arg | true>, ctx: CmdContext): string[] {
  const files = pos.filter((a) => a.text !== '-' && a.text !== '');
  if (name === 'split') {
    // split IN PREFIX writes PREFIXaa, PREFIXab … (x by default); IN may be `-` (standard input).
    const prefix = pos[1];
    // A glob may match several files: the second is the prefix (`split *.txt` with a.txt and
    // b.txt writes b.txtaa; seed 21).
    const globbed = pos.slice(0, 2).filter((a) => a.glob).map((a) => resolvePath(`${a.text}*`, ctx.cwd, a.dynamic));
    return [prefix ? resolvePath(`${prefix.text}*`, ctx.cwd, prefix.dynamic) : resolvePath('x*', ctx.cwd), ...globbed];
  }
  if (name === 'ln' && (opts.has('-s') || opts.has('--symbolic'))) {
    // A relative symbolic link's target is relative to the directory the link is in, not the
    // cwd: `mkdir -p d && ln -s ../.git d/k` makes d/k lead to ./.git, taken for ../.git (the
    // write fuzzer's create-then-use lines). Named both ways: beside DEST, and in DEST when it
    // is a directory the link goes into.
    const t = opts.get('-t') ?? opts.get('--target-directory');
    const dest = t && t !== true ? t : files.length >= 2 ? files[files.length - 1]! : null;
    const out: string[] = [];
    // `ln -s TARGET` makes the link in the working directory, under TARGET's name.
    if (!dest && files.length === 1) out.push(resolvePath(path.posix.basename(files[0]!.text.replace(/\/+$/, '')), ctx.cwd, files[0]!.dynamic));
    if (dest && !dest.dynamic) {
      for (const f of t && t !== true ? files : files.slice(0, -1)) {
        if (f.dynamic || f.text.startsWith('/') || f.text.startsWith('~')) continue;
        out.push(resolvePath(path.posix.join(path.posix.dirname(dest.text), f.text), ctx.cwd), resolvePath(path.posix.join(dest.text, f.text), ctx.cwd));
      }
    }
    return out;
  }
  if (name === 'ln' && files.length === 1 && !opts.has('-t') && !opts.has('--target-directory')) {
    // `ln TARGET` makes the link in the working directory, under TARGET's name.
    return [resolvePath(path.posix.basename(files[0]!.text), ctx.cwd, files[0]!.dynamic)];
  }
  if ((name === 'cp' || name === 'mv' || name === 'ln' || name === 'install') && (opts.has('-b') || [...opts.keys()].some((k) => /^--(backup|suffix)$/.test(k)) || opts.has('-S'))) {
    // A backup of what is replaced: DEST~ (or DEST + --suffix), or DIR/NAME~ for a directory.
    const s = opts.get('-S') ?? opts.get('--suffix');
    const suffix = s && s !== true ? s.text : '~';
    const t = opts.get('-t') ?? opts.get('--target-directory');
    const dest = t && t !== true ? t : files[files.length - 1];
    if (!dest) return [];
    const dyn = dest.dynamic || (s !== undefined && s !== true && s.dynamic);
    const inDir = resolvePath(`${dest.text.replace(/\/+$/, '')}/*${suffix}`, ctx.cwd, dyn);
    if (dest.text.endsWith('/')) return [inDir];
    // A suffix with a `/` in it is refused for the default `~` (ln --suffix=../x a b wrote b~; seed 13).
    const plain = suffix.includes('/') ? [resolvePath(`${dest.text}~`, ctx.cwd, dest.dynamic)] : [];
    return [resolvePath(`${dest.text}${suffix}`, ctx.cwd, dyn), inDir, resolvePath(`${dest.text}.~*~`, ctx.cwd, dyn), ...plain];
  }
  if (name === 'zip') {
    // The archive is the first word that is not an option's value, and zip's options are
    // many and odd (-n SUFFIXES, -tt DATE, -x and -i lists): `zip -n x A f` writes A.zip.
    // Any word may be it, so each name without an extension names its .zip.
    return files.filter((a) => !path.posix.basename(a.text).includes('.')).map((a) => resolvePath(`${a.text}.zip`, ctx.cwd, a.dynamic));
  }
  if (name !== 'gzip' && name !== 'gunzip') return [];
  const s = opts.get('-S') ?? opts.get('--suffix');
  const suffix = s && s !== true ? s.text : '.gz';
  const decompress = name === 'gunzip' || [...opts.keys()].some((k) => /^-[a-zA-Z0-9]*d|^--(decompress|uncompress)$/.test(k));
  return files.flatMap((f) => {
    if (!decompress) return [resolvePath(f.text + suffix, ctx.cwd, f.dynamic || (s !== undefined && s !== true && s.dynamic))];
    const m = /^(.*?)(\.tgz|\.taz)$/.exec(f.text);
    if (m) return [resolvePath(`${m[1]}.tar`, ctx.cwd, f.dynamic)];
    for (const x of [suffix, '.gz', '-gz', '.z', '-z', '_z']) if (x && f.text.endsWith(x) && f.text.length > x.length) return [resolvePath(f.text.slice(0, -x.length), ctx.cwd, f.dynamic)];
    return [];
  });
}

/**
 * `gzip -l`, `unzip -l`, `gzip -dc`, `xz -l`: archivers that only list, test or print to stdout, with these
 * options and literal file names only (`unzip -l a.zip -d x` still goes on as a write).
 */
const LIST_ONLY: Record<string, { modes: RegExp; ok: RegExp } | undefined> = lookupTable({
  gzip: { modes: /^-[a-zA-Z0-9]*[ltc]|^--(list|test|stdout|to-stdout)$/, ok: /^(-[lLtvqfrNndck1-9]+|--list|--test|--verbose|--quiet|--force|--recursive|--name|--no-name|--stdout|--to-stdout|--decompress|--uncompress|--keep)$/ },
  gunzip: { modes: /^-[a-zA-Z0-9]*[ltc]|^--(list|test|stdout|to-stdout)$/, ok: /^(-[lLtvqfrNnck]+|--list|--test|--verbose|--quiet|--force|--recursive|--name|--no-name|--stdout|--to-stdout|--keep)$/ },
  unzip: { modes: /^-[a-zA-Z]*[lvtZ]/, ok: /^-[lvtZqz1hmsTM2]+$/ },
  // -c (--stdout) writes only to standard output, whatever else it does (`xz -dc f.xz`).
  xz: { modes: /^-[a-zA-Z0-9]*[ltc]|^--(list|test|stdout|to-stdout)$/, ok: /^(-[lLtvqfdckQ0-9]+|--list|--test|--stdout|--to-stdout|--decompress|--uncompress|--keep|--verbose|--quiet|--force|--robot|--no-warn)$/ },
  bzip2: { modes: /^-[a-zA-Z0-9]*[tc]|^--(test|stdout)$/, ok: /^(-[tvqfdcksL1-9]+|--test|--stdout|--decompress|--keep|--verbose|--quiet|--force|--small)$/ },
  zstd: { modes: /^-[a-zA-Z0-9]*[ltc]|^--(list|test|stdout)$/, ok: /^(-[lLtvqfdck0-9]+|--list|--test|--stdout|--decompress|--uncompress|--keep|--verbose|--quiet|--force)$/ },
});

function listsOnly(name: string, args: Arg[]): boolean {
  const spec = LIST_ONLY[name];
  if (!spec || !args.some((a) => spec.modes.test(a.text))) return false;
  if (!args.every((a) => !a.dynamic && !a.mayBeOption && (a.text.startsWith('-') ? spec.ok.test(a.text) : true))) return false;
  // Decompressing is a read only to standard output (`gzip -dc`); `-d` beside a list or test
  // without `-c` is left to the write rules.
  const decompress = args.some((a) => /^-[a-zA-Z0-9]*d|^--(decompress|uncompress)$/.test(a.text));
  return !decompress || args.some((a) => /^-[a-zA-Z0-9]*c|^--(stdout|to-stdout)$/.test(a.text));
}

/**
 * Options of write/transfer programs that make them run a program of the caller's
 * choosing: the command is then execute whatever else it does.
 */
/** tar options a listing may carry. */
const TAR_LIST_OK = /^(-[tvfzjJaO]+|--list|--verbose|--file=.*|--gzip|--gunzip|--bzip2|--xz|--zstd|--lzma|--lzip|--auto-compress|--wildcards|--no-wildcards|--anchored|--no-anchored|--numeric-owner|--full-time|--utc|--force-local|--to-stdout|--ignore-case|--occurrence(=\d+)?|--)$/;

const SSH_RUNS_OPTION = /^-o(ProxyCommand|LocalCommand|KnownHostsCommand|PermitLocalCommand|ProxyUseFdpass|PKCS11Provider|SecurityKeyProvider)/i;
/**
 * A long option as getopt_long, argp, libarchive and git's parse-options take it: the full
 * name or any abbreviation of it from `min` characters on (`--to-c`, `--to-com` … for
 * `--to-command`). `tar xf a.tar --to-comm='sh'` ran sh, judged a write (GTFOBins corpus).
 * `min` is the shortest prefix no other option of the program shares; a shorter word that
 * is still a prefix only makes the program refuse it as ambiguous.
 */
function abbrev(full: string, min: number): string {
  let tail = '';
  for (let i = full.length - 1; i >= min; i--) tail = `(?:${full[i]}${tail})?`;
  return full.slice(0, min) + tail;
}
const longOptions = (...names: string[]) => `^(?:${names.join('|')})(?:=|$)`;
const COMMAND_FLAGS: Record<string, RegExp | readonly RegExp[] | undefined> = lookupTable<RegExp | readonly RegExp[]>({
  tar: new RegExp(`${longOptions(abbrev('--to-command', 6), abbrev('--checkpoint-action', 13), abbrev('--use-compress-program', 5), abbrev('--info-script', 5), abbrev('--new-volume-script', 6), abbrev('--rsh-command', 4), abbrev('--rmt-command', 4), abbrev('--index-file', 5))}|^-[a-zA-Z]*[IF]`),
  bsdtar: new RegExp(`${longOptions(abbrev('--use-compress-program', 5), abbrev('--to-command', 6))}|^-[a-zA-Z]*I`),
  // GNU cpio opens an archive named host:file through the remote shell these name (GTFOBins).
  cpio: new RegExp(longOptions(abbrev('--rsh-command', 4), abbrev('--rmt-command', 4))),
  // aria2c runs the program a download event names (`--on-download-complete=/bin/sh`);
  // --conf-path reads such options from a file that is not shown (GTFOBins).
  aria2c: new RegExp(longOptions('--on-(?:bt-)?download-[a-z]+', '--conf-path')),
  rsync: new RegExp(`${longOptions('-e', abbrev('--rsh', 4), abbrev('--rsync-path', 4))}|^-[a-zA-Z]*e`),
  // OpenSSH's clients: a program to run (-S, sftp -D, the *Command options), a config file to
  // take options from (-F: ProxyCommand, `Match exec`, LocalCommand), a library to load (-I,
  // PKCS11Provider, SecurityKeyProvider). Only a cluster of the client's own switches may come
  // before the letter (`-oStrictHostKeyChecking` is -o, not -S).
  // Letters are case-sensitive, -o names are not (ssh reads `-oproxycommand=` too).
  scp: [/^-[346ABCOpqRrsTv]*[SF]/, SSH_RUNS_OPTION],
  sftp: [/^-[46AaCfNpqrv]*[SDF]/, SSH_RUNS_OPTION],
  ssh: [/^-[46AaCfGgKkMNnqsTtVvXxYy]*[FI]/, SSH_RUNS_OPTION],
  // zip takes abbreviations too: `zip --unzip-c=CMD -T a.zip f` ran CMD.
  zip: new RegExp(`^-TT|${longOptions(abbrev('--unzip-command', 5))}`),
  split: new RegExp(longOptions(abbrev('--filter', 3))),
  // install -s runs the strip program it is told to (found by the write fuzzer).
  install: new RegExp(longOptions(abbrev('--strip-program', 8))),
  // wget -e runs a .wgetrc command (use_askpass=PROG runs PROG), --use-askpass runs a
  // program, --config reads such commands from a file that is not shown.
  wget: /^(--exe(c(u(te?)?)?)?|--use-a[a-z]*|--conf[a-z]*)(=|$)|^-[a-zA-Z]*e/,
  // curl -K reads its options (output files, uploads, hosts) from a file that is not shown;
  // --engine loads an OpenSSL engine, a shared library of the caller's choosing (GTFOBins).
  // curl takes no abbreviations.
  curl: /^(-K|--config|--engine)(=|$)|^-[a-zA-Z]*K/,
  // go run/test -exec and every build's -toolexec run a program for each step; cargo --config
  // sets build.rustc-wrapper, target runners and aliases (blackbox16).
  go: /^--?(toolexec|exec)(=|$)/,
  cargo: /^--config(=|$)/,
  // git's parse-options takes abbreviations: `git rebase --exe='sh'` ran sh (GTFOBins corpus).
  git: new RegExp(longOptions(abbrev('--exec', 3), abbrev('--upload-pack', 3), abbrev('--receive-pack', 3), abbrev('--extcmd', 4), '--tree-filter', '--index-filter', '--msg-filter', '--env-filter', '--commit-filter', '--parent-filter', '--tag-name-filter', '--subdirectory-filter')),
});

/** The reason a command-running option is used, or null. `-o ProxyCommand=…` is looked for in the following word too. */
function commandFlag(name: string, args: Arg[]): string | null {
  if (name === 'git') {
    // `git rebase -x CMD` and `git difftool -x CMD` are --exec and --extcmd spelled short (`-x` is
    // a plain switch elsewhere: cherry-pick's "(cherry picked from …)").
    const sub = gitSubcommand(args);
    if (sub && (sub.name === 'rebase' || sub.name === 'difftool')) {
      const x = args.slice(sub.at + 1).find((a) => /^-[a-zA-Z]*x/.test(a.text) && !a.text.startsWith('--'));
      if (x) return `git ${sub.name} ${clipText(x.text, 20)} runs a program of the caller's choosing`;
    }
  }
  if (name === 'go') {
    // -ldflags '-extld=PROG' (or -extar) names the linker go runs.
    const i = args.findIndex((a) => /^--?ldflags(=|$)/.test(a.text));
    const v = i < 0 ? '' : args[i]!.text.includes('=') ? args[i]!.text : `${args[i]!.text}=${args[i + 1]?.text ?? ''}`;
    if (/\bext(ld|ar)\b/.test(v) || (i >= 0 && (args[i]!.dynamic || !!args[i + 1]?.dynamic))) return `go -ldflags ${clipText(v, 40)} may name the linker go runs`;
  }
  const entry = COMMAND_FLAGS[name];
  if (!entry) return null;
  const res: readonly RegExp[] = entry instanceof RegExp ? [entry] : entry;
  const re = { test: (s: string) => res.some((r) => r.test(s)) };
  // Old-style tar options: `tar tIf prog a.tar` is `tar -t -I prog -f a.tar`.
  if ((name === 'tar' || name === 'bsdtar') && args[0] && !args[0].text.startsWith('-') && re.test(`-${args[0].text}`)) return `${name} ${clipText(args[0].text, 20)} runs a program of the caller's choosing (-I or -F)`;
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    // No stop at `--`: it may be an option's value (`wget --hsts-file -- --use-askpass ./x`
    // ran ./x; the write fuzzer, seed 13), and a word after it that reads as such an option asks.
    const joined = t === '-o' && args[i + 1] ? `-o${args[i + 1].text}` : t;
    const braced = args[i].braced ?? (joined !== t ? args[i + 1]?.braced : undefined);
    if (name === 'rsync' && plainRsh(args, i)) continue;
    if (re.test(joined)) return `${name} ${clipText(joined.split('=')[0], 40)}${braced ? ` (from the brace expansion ${clipText(braced, 40)})` : ''} runs a program of the caller's choosing`;
    // bash expands braces before the program sees them: `wget -{e,} x=y` is `wget -e x=y`.
    if (t.includes('{')) {
      const words = expandBraces(t);
      const hit = words === null ? t : words.find((w) => re.test(w));
      if (hit !== undefined) return `${name} ${clipText(hit.split('=')[0], 40)} (from the brace expansion ${clipText(t, 40)}) runs a program of the caller's choosing`;
    }
  }
  return null;
}

/** git's subcommand and where it is, past the global options (`git -C d -c k=v rebase`). */
function gitSubcommand(args: Arg[]): { name: string; at: number } | null {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) i += /^(-C|-c|--git-dir|--work-tree|--namespace|--config-env|--exec-path|--super-prefix)$/.test(args[i]!.text) ? 2 : 1;
  return args[i] && !args[i]!.dynamic ? { name: args[i]!.text, at: i } : null;
}

/**
 * `rsync -e ssh`, `--rsh='ssh -p 2222'`: the remote shell is plain ssh (a port, a user, a key),
 * the common form, which a grant may cover; any other program, or ssh with other options
 * (`-o ProxyCommand=…`), is a program of the caller's choosing.
 */
function plainRsh(args: Arg[], i: number): boolean {
  const t = args[i]!.text;
  const m = /^--rsh?=(.*)$/s.exec(t) ?? /^-[a-zA-Z]*e(.+)$/s.exec(t);
  const v = m ? { text: m[1]!, dynamic: args[i]!.dynamic } : /^(-[a-zA-Z]*e|--rsh?)$/.test(t) ? args[i + 1] : undefined;
  return !!v && !v.dynamic && /^ssh(\s+-[pl]\s*[\w.-]+)*$/.test(v.text);
}

/** GNU cpio's short options that take a value (the next word, or the rest of the word: `-Farchive`). */
const CPIO_VALUE_LETTERS = 'FOIEHRCMD';

/**
 * cpio -i extracts the files its archive holds and -p copies the files named on its
 * standard input into a directory: neither list is on the command line (.git/hooks may be
 * among them), like tar -x. An archive named host:file is opened on that host (rsh/ssh).
 */
function cpio(args: Arg[], ctx: CmdContext): CmdResult {
  let mode = '';
  let archive: Arg | undefined;
  let dir: Arg | undefined;
  const pos: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    const long = /^--([a-z-]+)(?:=(.*))?$/s.exec(t);
    if (long) {
      const [, key, value] = long;
      const val = (): Arg | undefined => (value !== undefined ? { text: value, dynamic: args[i]!.dynamic } : args[++i]);
      if ('extract'.startsWith(key!) && key!.length >= 2) mode ||= 'i';
      else if ('create'.startsWith(key!) && key!.length >= 2) mode ||= 'o';
      else if ('pass-through'.startsWith(key!) && key!.length >= 2) mode ||= 'p';
      else if ('file'.startsWith(key!) && key!.length >= 3) archive = val();
      else if ('directory'.startsWith(key!) && key!.length >= 3) dir = val();
      else if (/^(format|owner|block-size|io-size|message|pattern-file|rename-batch-file)$/.test(key!) && value === undefined) i++;
      continue;
    }
    if (/^-[a-zA-Z0-9]/.test(t)) {
      for (let k = 1; k < t.length; k++) {
        const ch = t[k]!;
        if (CPIO_VALUE_LETTERS.includes(ch)) {
          const value: Arg | undefined = k + 1 < t.length ? { text: t.slice(k + 1), dynamic: args[i]!.dynamic } : args[i + 1];
          if (k + 1 >= t.length) i++;
          if (ch === 'F' || ch === 'O' || ch === 'I') archive = value;
          if (ch === 'D') dir = value;
          break;
        }
        if ((ch === 'i' || ch === 'o' || ch === 'p') && !mode) mode = ch;
      }
      continue;
    }
    pos.push(args[i]!);
  }
  const archivePath = archive ? resolvePath(archive.text, ctx.cwd, archive.dynamic) : null;
  if (archive && /^[^/]*:/.test(archive.text) && !args.some((a) => a.text === '--force-local')) {
    return result('transfer', [archive.text.split(':')[0]!.replace(/^[^@]*@/, '')], { reasons: [{ level: 'high', reason: `cpio opens the archive ${clipText(archive.text, 60)} on another host (rsh/ssh)` }] });
  }
  const where = dir ? resolvePath(dir.text, ctx.cwd, dir.dynamic) : resolvePath('.', ctx.cwd);
  if (mode === 'i') return result('write', [where, ...(archivePath ? [archivePath] : [])], { unlisted: `cpio extracts the files the archive holds into ${clipText(where, 80)}, wherever they say (.git/hooks too)` });
  if (mode === 'p') {
    const dest = pos[0] ? resolvePath(pos[0].text, dir ? where : ctx.cwd, pos[0].dynamic) : where;
    return result('write', [dest], { unlisted: `cpio -p copies the files named on its standard input into ${clipText(dest, 80)}, wherever their names say (.git/hooks too)` });
  }
  // -o (the default) archives the files named on its standard input: `cpio -o < list > k`
  // copied whatever list named (~/.ssh too) into the project under a grant for it.
  return result('write', archivePath ? [archivePath] : [], { unlisted: 'cpio -o archives the files named on its standard input, not on the command line' });
}

/** tar options with which `tar -c` to standard output (`tar czf - dir`) only reads. */
const TAR_STDOUT_OK = /^(-[cfzjJavhp]+|--create|--file=-|--gzip|--bzip2|--xz|--zstd|--verbose|--dereference|--exclude=.*|--exclude-vcs|--exclude-caches|-C|--directory(=.*)?|--)$/;

/**
 * `tar -c`: it reads every file named after the archive (under each -C directory), and they
 * were listed nowhere: `tar czf out.tgz ~/.ssh` was a write of out.tgz alone, so a grant on
 * the task's directory copied the keys into it. To standard output (`tar czf - dir`) it writes
 * no file (`-` was listed as one): a read, with the allowlisted options only.
 */
function tarCreate(args: Arg[], first: string, pos: Arg[], archiveArg: Arg | undefined, archive: string | null, ctx: CmdContext): CmdResult {
  const dirs: string[] = [];
  // Each -C (`-C d`, `-Cd`, `-cvC d`, `--directory=d`, `--dir d`) moves where later names are read.
  args.forEach((a, i) => {
    const m = /^--dir[a-z]*(?:=(.*))?$/s.exec(a.text) ?? (a.text.startsWith('--') ? null : /^-[a-zA-Z]*?C(.*)$/s.exec(a.text));
    if (!m || (/^-[a-zA-Z]*[fTX][a-zA-Z]*C/.test(a.text) && !a.text.startsWith('--'))) return;
    const v = m[1] ? { text: m[1], dynamic: a.dynamic } : args[i + 1];
    if (v) dirs.push(resolvePath(v.text, ctx.cwd, v.dynamic));
  });
  const inputs = pos.filter((a) => a !== archiveArg && a.text !== '');
  const read = inputs.flatMap((a) => (a.text.startsWith('/') || a.text.startsWith('~') || dirs.length === 0 ? [resolvePath(a.text, ctx.cwd, a.dynamic)] : dirs.map((d) => resolvePath(a.text, d, a.dynamic))));
  const list = args.find((a, i) => /^--files-from/.test(a.text) || /^-[a-zA-Z]*T/.test(a.text) || (i === 0 && !a.text.startsWith('-') && a.text.includes('T')));
  const extra: Partial<CmdResult> = list ? { unlisted: 'tar -T reads the files a list names, not on the command line, into the archive' } : {};
  const toStdout = archiveArg?.text === '-' && !archiveArg.dynamic;
  const options = args.filter((a, i) => (i === 0 && !/^-/.test(first) ? false : a.text.startsWith('-') && a !== archiveArg));
  const oldStyleOk = /^-/.test(first) || /^[cfzjJavhp]+$/.test(first);
  // --remove-files deletes each file once it is in the archive.
  if (args.some((a) => /^--rem/.test(a.text))) return result('delete', [...(archive && !toStdout ? [archive] : []), ...read], extra);
  if (toStdout && !list && oldStyleOk && options.every((a) => !a.dynamic && TAR_STDOUT_OK.test(a.text))) return result('read', read);
  return result('write', [...(archive && !toStdout ? [archive] : []), ...read], extra);
}

/** rsync options whose value is a file or directory it writes besides the destination. */
const RSYNC_WRITES = ['--log-file', '--write-batch', '--only-write-batch', '--backup-dir', '--partial-dir', '--temp-dir', '-T'];

function classifyNamedPlain(name: string, args: Arg[], ctx: CmdContext): CmdResult {
  if (name === 'tar' || name === 'bsdtar') {
    const first = args[0]?.text ?? '';
    const create = /^-?[a-zA-Z]*[crua]/.test(first) || args.some((a) => a.text === '--create' || a.text === '--append');
    const { pos, opts } = positionals(args.slice(/^-/.test(first) ? 0 : 1), new Set(['-f', '-C', '--file', '--directory', '-T', '-X', '--files-from', '--exclude-from']));
    const f = opts.get('-f') ?? opts.get('--file');
    // Old-style options (`tar cf a.tar x`, `tar xzf a.tgz`): the word after them is the archive.
    const oldStyleFile = !/^-/.test(first) && first.includes('f') ? args[1] : undefined;
    const archiveArg = f && f !== true ? f : oldStyleFile;
    const archive = archiveArg ? resolvePath(archiveArg.text, ctx.cwd, archiveArg.dynamic) : null;
    const list = /^-?[a-zA-Z]*t/.test(first) || args.some((a) => a.text === '--list');
    if (list) {
      // Listing reads, with these options only. An archive named host:path is opened
      // over rsh/ssh (unless --force-local).
      const odd = args.find((a, i) =>
        a.text.startsWith('-')
          ? !TAR_LIST_OK.test(a.text)
          // After -f one word is the archive name, so a quoted "$x" there stays one name;
          // a glob or an unquoted $x may expand to several words, and the ones after
          // the first are options to tar (`tar -tf *` with a file named
          // `--use-compress-program=sh` in the directory runs it).
          : (a.dynamic || a.mayBeOption) && (!!a.split || !!a.glob || !/^-?[a-zA-Z]*f$|^--file$/.test(args[i - 1]?.text ?? '')));
      if (odd) return result('execute', archive ? [archive] : [], { reasons: [{ level: 'medium', reason: `tar option ${clipText(odd.text, 40)} is not known to be read-only` }] });
      const file = f && f !== true ? f : !/^-/.test(first) && first.includes('f') ? args[1] : undefined;
      if (file && /^[^/]*:/.test(file.text) && !args.some((a) => a.text === '--force-local')) return result('transfer', [file.text.split(':')[0]], { reasons: [{ level: 'high', reason: `tar opens the archive ${clipText(file.text, 60)} on another host (rsh/ssh)` }] });
      return result('read', archive ? [archive] : []);
    }
    const dir = opts.get('-C') ?? opts.get('--directory');
    const dest = dir && dir !== true ? resolvePath(dir.text, ctx.cwd, dir.dynamic) : resolvePath('.', ctx.cwd);
    if (create) return tarCreate(args, first, pos, archiveArg, archive, ctx);
    // Extracting writes the paths the archive holds (a .git/hooks/pre-commit among them,
    // the write fuzzer saw it), which the command line does not show.
    return result('write', [dest, ...(archive ? [archive] : [])], { unlisted: `${name} extracts the files ${archiveArg ? clipText(archiveArg.text, 60) : 'the archive'} holds into ${clipText(dest, 80)}, wherever they say (.git/hooks too)` });
  }
  if (name === 'cpio') return cpio(args, ctx);
  if (name === 'dd') {
    // The last of= (if=) is the one dd uses (`of={a,b}.new` wrote b.new; the write fuzzer, seed 12): each is named.
    const ofs = args.filter((a) => a.text.startsWith('of='));
    const ifs = args.filter((a) => a.text.startsWith('if='));
    const res = [...ifs, ...ofs].map((a) => resolvePath(a.text.slice(3), ctx.cwd, a.dynamic));
    const r = result(ofs.length ? 'write' : 'read', res);
    const device = ofs.find((of) => /^\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(of.text.slice(3)));
    if (device) {
      r.action = 'delete';
      r.reasons.push({ level: 'critical', reason: `overwrites a device (${device.text.slice(3)})` });
    }
    return r;
  }
  if (DISK_DESTROYERS.has(name) || name.startsWith('mkfs.')) {
    return result('delete', paths(args.filter((a) => a.text.startsWith('/dev/')), ctx), { reasons: [{ level: 'critical', reason: `formats or repartitions a disk (${name})` }] });
  }
  if (name === 'crontab') {
    if (args.some((a) => a.text === '-l')) return result('read', ['crontab']);
    if (args.some((a) => a.text === '-r') && !args.some((a) => a.text === '-e')) return result('write', ['crontab'], { reasons: [{ level: 'high', reason: 'changes scheduled jobs (crontab)' }] });
    // Installing a crontab schedules its commands to run later, unattended; -e runs $EDITOR.
    return result('execute', ['crontab'], { reasons: [{ level: 'high', reason: 'installs scheduled jobs: the commands they name run later, unattended (crontab)' }] });
  }

  if (name === 'curl') return curl(args, ctx);
  if (name === 'wget') return wget(args, ctx);
  if (name === 'http' || name === 'https' || name === 'xh' || name === 'httpie' || name === 'aria2c' || name === 'fetch') {
    const { pos, opts } = positionals(args, new Set(['-o', '--output', '-a', '--auth', '-i', '--input-file', '-d', '--dir']));
    const hosts = pos.map((a) => hostOf(a.text)).filter((h): h is string => !!h);
    const r = result('transfer', hosts, { download: true });
    const input = name === 'aria2c' ? (opts.get('-i') ?? opts.get('--input-file')) : undefined;
    if (input) r.unlisted = `aria2c fetches the URLs listed in ${input === true ? 'a file' : clipText(input.text, 60)}, not on the command line, and saves them where that file says`;
    return r;
  }
  if (name === 'scp') return scpLike(args, ctx, new Set(['-c', '-F', '-i', '-J', '-l', '-o', '-P', '-S']));
  if (name === 'rsync') {
    const r = scpLike(args, ctx, new Set(['-e', '--rsh', '--exclude', '--include', '--filter', '-f', '--exclude-from', '--include-from', '--files-from', '--chmod', '--rsync-path', '--port', '--password-file', '--log-file', '-T', '--temp-dir', '--partial-dir', '--backup-dir', '--suffix', '--bwlimit', '--max-size', '--min-size', '--timeout']));
    if (args.some((a) => a.text.startsWith('--delete') || a.text === '--remove-source-files')) r.reasons.push({ level: 'medium', reason: 'deletes files at the destination (rsync --delete)' });
    const spill = r.action === 'write' ? contentsCopy(args, args.filter((a) => !a.text.startsWith('-')), false) : null;
    if (spill) r.unlisted = `rsync copies everything ${clipText(spill, 60)} holds into the destination, wherever its tree says (.git/hooks too)`;
    // Files rsync writes besides the destination: its log, batch files, and the directories it
    // keeps backups, partial and temporary files in (`--log-file=/etc/cron.d/x` was not listed).
    const { opts } = positionals(args, new Set(RSYNC_WRITES));
    for (const o of RSYNC_WRITES) {
      const v = opts.get(o);
      if (v && v !== true) r.resources.push(resolvePath(v.text, ctx.cwd, v.dynamic));
    }
    if (args.some((a) => a.text === '--daemon')) return result('execute', r.resources, { reasons: [{ level: 'medium', reason: 'rsync --daemon serves files to the network' }] });
    return r;
  }
  if (name === 'ssh') {
    const { pos } = positionals(args, SSH_VALUE);
    const host = pos[0] ? pos[0].text.replace(/^[^@]*@/, '').replace(/^ssh:\/\//, '').toLowerCase() : '';
    // A command after the host, or a login shell reading the agent's input, runs there: that is
    // execute on the host, not a transfer a host grant would cover (`ssh host rm -rf /`). Only
    // -N (no command: forwarding) and the switches that never reach a shell (-G prints the
    // config, -V the version, -O talks to a master) stay transfers.
    const noShell = args.some((a) => /^-[46AaCfgKkMnqsTtVvXxYy]*[NGVO]/.test(a.text) && !a.text.startsWith('-o'));
    if (!host || noShell) return result('transfer', host ? [host] : []);
    const remote = args.slice(args.indexOf(pos[0]!) + 1).map((a) => a.text).join(' ');
    return result('execute', [host], { reasons: [{ level: 'medium', reason: remote ? `runs ${clipText(remote, 60)} on ${clipText(host, 60)}` : `opens a shell on ${clipText(host, 60)} (what it is sent runs there)` }] });
  }
  if (NETCAT.has(name)) {
    const { pos } = positionals(args, new Set(['-p', '-s', '-w', '-e', '-c', '-i', '-q', '-x', '-X', '-t', '-W', '-c', '-b']));
    const hosts = pos.filter((a) => !/^\d+$/.test(a.text) && !a.text.startsWith('-')).map((a) => hostOf(a.text) ?? a.text);
    const r = result('transfer', name === 'openssl' ? hosts.filter((h) => h.includes('.') || h.includes(':')) : hosts);
    if (name === 'socat') return socat(args, r, ctx);
    if (name === 'openssl') return openssl(args, r, ctx);
    // nc -e/-c, ncat --exec/--sh-exec/--lua-exec run a program with its input and output on the connection.
    if ((name === 'nc' || name === 'ncat' || name === 'netcat') && args.some((a) => /^-[a-zA-Z0-9]*[ec]$/.test(a.text) || /^--(sh-|lua-)?exec(=|$)/.test(a.text))) {
      return { ...r, action: 'execute', reasons: [{ level: 'critical', reason: `connects a program to the network (${name} -e/-c runs it)` }] };
    }
    // These read commands (standard input, a script, -c/-e/-b) and their `!` runs a local
    // shell: `echo '!sh' | ftp` ran sh under a grant for `ftp` (GTFOBins). mosh, like ssh,
    // opens a shell on the host (--server and --ssh name programs it runs).
    const interactive = INTERACTIVE_CLIENTS[name];
    if (interactive) return { ...r, action: 'execute', reasons: [{ level: 'high', reason: interactive }] };
    return r;
  }
  if (name === 'git') return git(args, ctx);
  if (name === 'gh' || name === 'glab') {
    const sub = args[0]?.text ?? '';
    const verb = args[1]?.text ?? '';
    if (['list', 'view', 'status', 'diff', 'checks'].includes(verb) || sub === 'auth' && verb === 'status') return result('transfer', ['github.com']);
    return result('transfer', [name === 'gh' ? 'github.com' : 'gitlab.com'], { reasons: verb === 'delete' ? [{ level: 'high', reason: `${name} ${sub} delete` }] : [] });
  }
  if (name === 'aws' || name === 'gsutil' || name === 'gcloud' || name === 'az' || name === 'rclone' || name === 's3cmd') {
    const verbs = args.map((a) => a.text);
    if (verbs.includes('rm') || verbs.includes('delete') || verbs.includes('rb')) return result('delete', [name]);
    return result('transfer', [name]);
  }
  if (name === 'docker' || name === 'podman') {
    const sub = args.find((a) => !a.text.startsWith('-'))?.text ?? '';
    const form = args[0]?.text === sub ? DOCKER_READ[sub] : undefined;
    if (form && !checkForm(`${name} ${sub}`, form, args.slice(1), ctx.cwd).action) return result('read', [name]);
    if (['push', 'pull', 'login'].includes(sub)) return result('transfer', [name]);
    if (['rm', 'rmi', 'prune', 'kill'].includes(sub)) return result('delete', [name]);
    return result('execute', [name]);
  }
  if (name === 'kubectl' || name === 'helm') {
    const sub = args.find((a) => !a.text.startsWith('-'))?.text ?? '';
    // Only the subcommand first: --kubeconfig/--server/--token before it name another
    // cluster or a credential plugin (exec: runs a program).
    const form = name === 'kubectl' && args[0]?.text === sub ? KUBECTL_READ[sub] : undefined;
    if (form) {
      const v = checkForm(`kubectl ${sub}`, form, args.slice(1), ctx.cwd);
      if (!v.action) return result('read', [name]);
      return result('execute', [name], { reasons: [{ level: v.level ?? 'medium', reason: v.reason ?? 'kubectl: not known to be read-only' }] });
    }
    if (name === 'helm' && ['list', 'status', 'version'].includes(sub) && args[0]?.text === sub && args.every((a) => !a.dynamic && !/^--(kubeconfig|kube-|registry-config|repository-config|post-renderer)/.test(a.text))) return result('read', [name]);
    if (['delete', 'uninstall'].includes(sub)) return result('delete', [name]);
    return result('execute', [name]);
  }
  const proxy = TOOLCHAIN_PROXY[name];
  if (proxy) {
    const r = PKG_MANAGERS.has(name) ? packageManager(name, args, ctx) : result('execute', [name]);
    r.reasons.push({ level: 'medium', reason: proxy });
    return r;
  }
  if (PKG_MANAGERS.has(name)) return packageManager(name, args, ctx);
  if (name === 'npx' || name === 'pnpx' || name === 'bunx' || name === 'uvx') return result('execute', args[0] ? [`package ${args[0].text}`] : [], { reasons: [{ level: 'medium', reason: `${name} may download and run a package` }] });

  // Unknown program: it can do anything.
  return result('execute', [name], { unknown: true, reasons: [{ level: 'low', reason: `${clipText(name, 60)} is not a known read-only program` }] });
}
