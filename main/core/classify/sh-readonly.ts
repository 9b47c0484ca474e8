// THE ALLOWLIST: the read-only forms of programs, as data. A command is `read` only when
// its program is here and every option it uses is in `flags`; an option in `danger`
// makes it what the danger says (with that reason in the prompt); any other option, or
// a positional the form does not allow, makes it execute. Read it as a table:
//   program: { flags (safe options and how they take values), danger, args, … }
// See sh-flags.ts for what each field means. Sources: the GNU coreutils/grep/sed/findutils
// manuals, ripgrep/fd/git docs, Codex CLI's is_safe_command and Claude Code's read-only
// Bash validation (both allowlists of program → safe flags).
// Over 400 lines on purpose: it is a data table (one entry per program), read as a table.
import type { Action } from '../../contract/common';
import { awkVerdict } from './sh-awk';
import { checkForm, file, opt, paths, sw, val, type Danger, type ParsedArgs, type ReadForm, type Verdict } from './sh-flags';
import { sedEffects } from './sh-sed';
import { resolvePath, type WordValue } from './sh-words';

const WRITES_OUTPUT: Danger = { action: 'write', reason: 'writes its output to a file', takesValue: true };
const runs = (what: string): Danger => ({ action: 'execute', level: 'high', reason: what });
const no = (reason: string, action: Action = 'execute'): Verdict => ({ action, level: action === 'execute' ? 'high' : 'medium', reason, resources: [] });

/** Options are words to these (`echo -----`): only the listed dangers matter. */
const ANY: Readonly<Record<string, never>> = Object.freeze({});
const anyFlags = (form: Omit<ReadForm, 'flags' | 'anyFlags'>): ReadForm => ({ ...form, flags: ANY, anyFlags: true });

export type Form = ReadForm;

function lookup<T>(entries: Record<string, T>): Record<string, T | undefined> {
  return Object.assign(Object.create(null) as Record<string, T | undefined>, entries);
}

// --- shared option sets ------------------------------------------------------------------

const GREP: Form = {
  flags: {
    ...sw('-E -F -G -P -i -y -v -w -x -c -L -l -o -q -s -b -H -h -n -T -Z -z -a -I -r -R -U --extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp --count --files-without-match --files-with-matches --only-matching --quiet --silent --no-messages --byte-offset --with-filename --no-filename --line-number --initial-tab --null --null-data --text --recursive --dereference-recursive --binary --line-buffered --no-group-separator'),
    ...opt('--color --colour'),
    ...val('-m -A -B -C -d -D -e --max-count --after-context --before-context --context --label --binary-files --devices --directories --include --exclude --exclude-dir --group-separator --regexp'),
    ...file('-f --file --exclude-from'),
  },
  args: 'pattern-paths',
  numeric: true,
  closed: true,
};

const LS: Form = {
  flags: {
    ...sw('-a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 -@ -e -O -P -T -W -%'),
    ...sw('--all --almost-all --author --escape --ignore-backups --directory --dired --file-type --full-time --group-directories-first --no-group --human-readable --si --dereference-command-line --dereference-command-line-symlink-to-dir --inode --kibibytes --dereference --literal --numeric-uid-gid --hide-control-chars --show-control-chars --quote-name --reverse --recursive --size --context --zero --help --version'),
    ...opt('--color --colour --classify --hyperlink --indicator-style'),
    ...val('-I -w --block-size --format --hide --ignore --quoting-style --sort --time --time-style --tabsize --width'),
  },
  args: 'paths',
  closed: true,
};

const HEADTAIL_FLAGS = { ...sw('-q -v -z --quiet --silent --verbose --zero-terminated'), ...val('-n -c --lines --bytes') };

const SUMS: Form = {
  flags: { ...sw('-b -t -c -z -w --binary --text --check --tag --zero --ignore-missing --quiet --status --strict --warn --untagged --base64 --raw'), ...val('-l --length -a --algorithm') },
  args: 'paths',
  closed: true,
};

const SHELL_LOCAL = /^[a-z_][a-z0-9_]*$/;
const ENV_READ_LOWER = /^(https?_proxy|all_proxy|no_proxy|ftp_proxy|npm_config_.*)$/;

function readCheck(a: ParsedArgs): Verdict | null {
  const names = [...a.pos, ...a.opts.filter((o) => o.flag === '-a' && o.value).map((o) => o.value as WordValue)];
  const bad = names.find((w) => w.dynamic || !SHELL_LOCAL.test(w.text) || ENV_READ_LOWER.test(w.text));
  return bad ? no(`read sets ${bad.text.slice(0, 40)}, which is not a plain shell variable (it may change how later commands run)`) : null;
}

function waitCheck(a: ParsedArgs): Verdict | null {
  const bad = a.opts.filter((o) => o.flag === '-p').map((o) => o.value).find((w) => !w || w.dynamic || !SHELL_LOCAL.test(w.text) || ENV_READ_LOWER.test(w.text));
  return bad === undefined ? null : no(`wait -p sets ${bad?.text.slice(0, 40) ?? 'a variable'}, which is not a plain shell variable (it may change how later commands run)`);
}

const DNS_DATABASES = new Set(['hosts', 'ahosts', 'ahostsv4', 'ahostsv6', 'networks']);
function getentCheck(a: ParsedArgs): Verdict | null {
  const i = a.pos.findIndex((w) => DNS_DATABASES.has(w.text));
  // localhost is answered from /etc/hosts (nsswitch's `files` comes first), not DNS.
  const keys = i < 0 ? [] : a.pos.slice(i + 1).filter((w) => !w.text.startsWith('-') && (w.dynamic || !/^(localhost|ip6-localhost|ip6-loopback)$/i.test(w.text)));
  if (i < 0 || keys.length === 0) return null;
  return { action: 'transfer', level: 'medium', reason: `getent ${a.pos[i].text} looks names up through DNS (a lookup reaches the network)`, resources: keys.map((k) => k.text.toLowerCase()) };
}

/**
 * ss FILTER: the words of its filter grammar, states, numeric addresses and ports are
 * looked at locally; any other word is a host name ss resolves through DNS before it
 * filters (`ss x.example` sent x.example to the resolver: found by the differential
 * fuzzer), the same channel as `getent hosts NAME`.
 */
const SS_KEYWORDS = new Set(['state', 'exclude', 'all', 'connected', 'synchronized', 'bucket', 'big', 'established', 'syn-sent', 'syn-recv', 'fin-wait-1', 'fin-wait-2', 'time-wait', 'closed', 'close-wait', 'last-ack', 'listening', 'listen', 'closing', 'dst', 'src', 'dport', 'sport', 'and', 'or', 'not', 'eq', 'neq', 'gt', 'lt', 'ge', 'le', '==', '!=', '>=', '<=', '>', '<', '=', '!', '(', ')', '&&', '||', '&', '|', 'autobound', 'dev', 'fwmark', 'cgroup']);
// Not `.` alone: ss looked `.` up too (the fuzzer's smoke run, on the first version of this rule).
const SS_ADDRESS = /^(\*|\[[0-9a-fA-F:.%*]*\]|\d+(\.\d+){0,3}|[0-9a-fA-F]*:[0-9a-fA-F:]*:[0-9a-fA-F:.]*)?(\/\d+)?(:(\*|\d+|[a-z][\w-]*))?$/;
function ssCheck(a: ParsedArgs): Verdict | null {
  const names: WordValue[] = [];
  a.pos.forEach((w, i) => {
    const prev = a.pos[i - 1]?.text;
    if (!w.dynamic && (SS_KEYWORDS.has(w.text) || SS_ADDRESS.test(w.text) || prev === 'dev' || prev === 'fwmark' || prev === 'cgroup')) return;
    names.push(w);
  });
  if (names.length === 0) return null;
  return { action: 'transfer', level: 'medium', reason: `ss looks ${names[0].text.slice(0, 60)} up through DNS to filter by it (a lookup reaches the network)`, resources: names.map((w) => w.text.toLowerCase()) };
}

/** A toolchain asked for its version: exactly one of these flags, no arguments. */
function versionOnly(flags: string): Form {
  return { flags: sw(flags), args: 'none', check: (a) => (a.opts.length === 1 ? null : no(`${a.name} without a version flag runs or builds something`)) };
}

const IP_OBJECTS = new Set(['addr', 'address', 'a', 'link', 'l', 'route', 'r', 'ro', 'neigh', 'neighbour', 'n', 'rule', 'ru', 'maddr', 'm', 'netconf', 'ntable', 'tunnel', 'tuntap', 'mroute']);
const IP_LIST = new Set(['show', 'list', 'ls', 'lst', 'sh', 'get']);

function ipCheck(a: ParsedArgs): Verdict | null {
  const [obj, verb] = a.pos;
  if (!obj || obj.dynamic || !IP_OBJECTS.has(obj.text)) return no(`ip ${obj?.text.slice(0, 20) ?? ''}: not known to be read-only`);
  if (verb && (verb.dynamic || !IP_LIST.has(verb.text))) return no(`ip ${obj.text} ${verb.text.slice(0, 20)} changes the network configuration or runs a command`);
  if (a.pos.some((p) => p.dynamic || p.mayBeOption)) return no('ip: a word computed at run time');
  return null;
}

// --- the table -----------------------------------------------------------------------------

export const READ_FORMS: Record<string, Form | undefined> = lookup<Form>({
  // Files and directories.
  cat: { flags: sw('-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends --show-tabs --show-nonprinting'), args: 'paths', closed: true },
  tac: { flags: { ...sw('-b -r --before --regex'), ...val('-s --separator') }, args: 'paths', closed: true },
  nl: { flags: { ...sw('-p --no-renumber'), ...val('-b -d -f -h -i -l -n -s -v -w --body-numbering --section-delimiter --footer-numbering --header-numbering --line-increment --join-blank-lines --number-format --number-separator --starting-line-number --number-width') }, args: 'paths', closed: true },
  head: { flags: HEADTAIL_FLAGS, args: 'paths', numeric: true, closed: true },
  tail: {
    flags: { ...HEADTAIL_FLAGS, ...sw('-f -F -r --retry'), ...opt('--follow'), ...val('-s --sleep-interval --pid --max-unchanged-stats') },
    args: 'paths',
    numeric: true,
    plus: /^\+\d+[bcl]?$/,
    closed: true,
  },
  ls: LS,
  ll: LS,
  la: LS,
  dir: LS,
  vdir: LS,
  stat: { flags: { ...sw('-L -f -t --dereference --file-system --terse'), ...val('-c --format --printf --cached') }, args: 'paths', closed: true },
  file: {
    flags: { ...sw('-b -i -L -h -z -Z -k -r -s -N -p -E -0 -S --brief --mime --mime-type --mime-encoding --dereference --no-dereference --uncompress --uncompress-noreport --keep-going --raw --special-files --no-pad --preserve-date --print0 --no-sandbox --extension --apple'), ...val('-F -e -P --separator --exclude --exclude-quiet --parameter'), ...file('-m --magic-file -f --files-from') },
    danger: { '-C': { action: 'write', reason: 'writes a compiled magic file' }, '--compile': { action: 'write', reason: 'writes a compiled magic file' } },
    args: 'paths',
  },
  wc: { flags: { ...sw('-c -m -l -L -w --bytes --chars --lines --words --max-line-length'), ...opt('--total'), ...file('--files0-from') }, args: 'paths', closed: true },
  du: {
    flags: { ...sw('-a -b -c -D -h -H -k -L -l -m -P -s -S -x -0 --all --apparent-size --bytes --total --human-readable --si --summarize --one-file-system --separate-dirs --count-links --dereference --dereference-args --no-dereference --null --inodes'), ...opt('--time'), ...val('-d -B -t --max-depth --block-size --threshold --time-style --exclude'), ...file('-X --exclude-from --files0-from') },
    args: 'paths',
    closed: true,
  },
  df: { flags: { ...sw('-a -h -H -i -k -l -P -T --all --human-readable --si --inodes --local --portability --print-type --total --sync --no-sync'), ...opt('--output'), ...val('-B -t -x --block-size --type --exclude-type') }, args: 'paths', closed: true },
  tree: {
    flags: { ...sw('-a -d -l -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -i -A -S -n -C -X -J --noreport --dirsfirst --filesfirst --du --si --prune --inodes --device --ignore-case --matchdirs --gitignore --info --metafirst --fflinks'), ...val('-L -P -I -H -T --charset --filelimit --sort --timefmt --hintro --houtro'), ...file('--fromfile --gitfile --infofile') },
    danger: { '-o': WRITES_OUTPUT, '-R': { action: 'write', reason: 'writes 00Tree.html files into directories' } },
    args: 'paths',
  },
  realpath: { flags: { ...sw('-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero'), ...val('--relative-to --relative-base') }, args: 'paths', closed: true },
  readlink: { flags: sw('-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero'), args: 'paths', closed: true },
  basename: { flags: { ...sw('-a -z --multiple --zero'), ...val('-s --suffix') }, args: 'words', closed: true },
  dirname: { flags: sw('-z --zero'), args: 'words', closed: true },
  md5sum: SUMS, sha1sum: SUMS, sha224sum: SUMS, sha256sum: SUMS, sha384sum: SUMS, sha512sum: SUMS, b2sum: SUMS, cksum: SUMS, sum: SUMS, shasum: SUMS,
  md5: { flags: sw('-q -r -s -n'), args: 'paths', closed: true },
  strings: { flags: { ...sw('-a -d -f -w -S --all --data --print-file-name --include-all-whitespace'), ...val('-n -t -e -T -s --bytes --radix --encoding --target --output-separator') }, args: 'paths', numeric: true, closed: true },
  od: { flags: { ...sw('-b -c -d -f -i -l -o -s -v -x -D -O -X --output-duplicates --traditional'), ...val('-A -j -N -t -w -S --address-radix --skip-bytes --read-bytes --format --width --strings --endian') }, args: 'paths', closed: true },
  hexdump: { flags: { ...sw('-b -c -C -d -o -v -x --canonical --no-squeezing'), ...val('-e -n -s --format --length --skip --color'), ...file('-f --format-file') }, args: 'paths', closed: true },
  hd: { flags: { ...sw('-b -c -C -d -o -v -x'), ...val('-e -n -s') }, args: 'paths', closed: true },
  xxd: {
    // xxd's long options are single-dash words (-ps, -cols); `xxd IN OUT` writes OUT.
    // xxd reads options only before the input file: in `xxd -u IN -bits` the word -bits
    // is the output file it creates (found by the differential fuzzer).
    stopAtPositional: true,
    flags: { ...sw('-a -b -C -e -E -i -p -ps -plain -postscript -u -d -autoskip -bits -capitalize -EBCDIC -include -h -help -v -version'), ...val('-c -g -l -n -o -s -R -cols -groupsize -len -name -seek') },
    danger: { '-r': { action: 'write', reason: 'reverses a hex dump into binary (writes a file)' }, '-revert': { action: 'write', reason: 'reverses a hex dump into binary (writes a file)' } },
    args: 'paths',
    maxArgs: 1,
    tooMany: { action: 'write', reason: 'is a second file: xxd writes its output there' },
  },
  base64: { flags: { ...sw('-d -i -D --decode --ignore-garbage'), ...val('-w -b --wrap --break') }, danger: { '-o': WRITES_OUTPUT, '--output': WRITES_OUTPUT }, args: 'paths' },
  base32: { flags: { ...sw('-d -i --decode --ignore-garbage'), ...val('-w --wrap') }, args: 'paths', closed: true },
  cmp: { flags: { ...sw('-b -l -s --print-bytes --verbose --quiet --silent'), ...val('-i -n --ignore-initial --bytes') }, args: 'paths', closed: true },
  diff: {
    flags: {
      ...sw('-i -E -Z -b -w -B -a -c -u -e -n -y -t -T -l -r -N -P -s -q -d -p -H --ignore-case --ignore-tab-expansion --ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines --strip-trailing-cr --text --expand-tabs --initial-tab --recursive --new-file --unidirectional-new-file --report-identical-files --brief --minimal --speed-large-files --suppress-common-lines --left-column --show-c-function --suppress-blank-empty --ed --normal --rcs --no-dereference'),
      ...opt('--color --context --unified --side-by-side'),
      ...val('-C -U -W -D -I -F -x -S --width --tabsize --ifdef --ignore-matching-lines --show-function-line --label --exclude --starting-file --horizon-lines --palette --old-group-format --new-group-format --unchanged-group-format --changed-group-format --line-format --old-line-format --new-line-format --unchanged-line-format'),
      ...file('-X --exclude-from --from-file --to-file'),
    },
    args: 'paths',
    numeric: true,
    closed: true,
  },
  comm: { flags: { ...sw('-1 -2 -3 -i -z --check-order --nocheck-order --total --zero-terminated'), ...val('--output-delimiter') }, args: 'paths', closed: true },

  // Text filters (stdin or files).
  sort: {
    flags: {
      ...sw('-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --merge --stable --unique --zero-terminated --debug'),
      ...opt('--check'),
      ...val('-k -t -S -T --key --field-separator --buffer-size --parallel --batch-size --sort --temporary-directory'),
      ...file('--random-source --files0-from'),
    },
    danger: { '-o': WRITES_OUTPUT, '--output': WRITES_OUTPUT, '--compress-program': runs('runs a program to compress temporary files') },
    args: 'paths',
  },
  uniq: {
    flags: { ...sw('-c -d -D -i -u -z --count --repeated --ignore-case --unique --zero-terminated'), ...opt('--all-repeated --group'), ...val('-f -s -w --skip-fields --skip-chars --check-chars') },
    args: 'paths',
    maxArgs: 1,
    tooMany: { action: 'write', reason: 'is a second file: uniq writes its output there' },
  },
  cut: { flags: { ...sw('-n -s -z --complement --only-delimited --zero-terminated'), ...val('-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter') }, args: 'paths', closed: true },
  tr: { flags: sw('-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1'), args: 'words', closed: true },
  paste: { flags: { ...sw('-s -z --serial --zero-terminated'), ...val('-d --delimiters') }, args: 'paths', closed: true },
  join: { flags: { ...sw('-i --ignore-case --check-order --nocheck-order --header -z --zero-terminated'), ...val('-1 -2 -a -e -j -o -t -v') }, args: 'paths', closed: true },
  column: { flags: { ...sw('-t -x -n -e -J -L --table --fillrows --keep-empty-lines --json'), ...val('-s -o -c -N -l -R -E -H -W -r -d --separator --output-separator --output-width --table-columns --table-name') }, args: 'paths', closed: true },
  fold: { flags: { ...sw('-b -s --bytes --spaces'), ...val('-w --width') }, args: 'paths', numeric: true, closed: true },
  fmt: { flags: { ...sw('-c -s -t -u --crown-margin --split-only --tagged-paragraph --uniform-spacing'), ...val('-w -g -p --width --goal --prefix') }, args: 'paths', numeric: true, closed: true },
  expand: { flags: { ...sw('-i --initial'), ...val('-t --tabs') }, args: 'paths', numeric: true, closed: true },
  unexpand: { flags: { ...sw('-a --all --first-only'), ...val('-t --tabs') }, args: 'paths', numeric: true, closed: true },
  rev: { flags: sw('-0 --zero'), args: 'paths', closed: true },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    flags: {
      ...sw('-i -s -S -v -w -x -c -l -n -N -H -I -o -p -q -u -a -F -P -U -0 -. -L -b -h -V --hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global --no-ignore-exclude --no-ignore-files --ignore --ignore-case --case-sensitive --smart-case --invert-match --word-regexp --line-regexp --count --count-matches --files-with-matches --files-without-match --line-number --no-line-number --with-filename --no-filename --no-heading --heading --only-matching --pretty --quiet --files --json --no-json --no-messages --vimgrep --column --no-column --byte-offset --trim --no-trim --stats --fixed-strings --pcre2 --no-pcre2 --multiline --multiline-dotall --text --null --null-data --follow --no-follow --sort-files --passthru --passthrough --unrestricted --glob-case-insensitive --type-list --no-config --debug --trace --crlf --no-crlf --no-unicode --line-buffered --block-buffered --binary --no-binary --one-file-system --include-zero --max-columns-preview --no-require-git --help --version'),
      ...val('-e -g -t -T -m -A -B -C -M -j -r -E -d --regexp --glob --iglob --type --type-not --type-add --type-clear --max-count --after-context --before-context --context --max-columns --threads --replace --encoding --max-depth --maxdepth --sort --sortr --color --colors --max-filesize --path-separator --context-separator --field-match-separator --field-context-separator --engine --dfa-size-limit --regex-size-limit --hyperlink-format'),
      ...file('-f --file --ignore-file'),
    },
    danger: {
      '--pre': runs('runs a program on every file it searches'),
      '--pre-glob': runs('runs the --pre program on matching files'),
      '--hostname-bin': runs('runs a program to find the host name'),
      '-z': runs('runs decompression programs on compressed files'),
      '--search-zip': runs('runs decompression programs on compressed files'),
    },
    args: 'pattern-paths',
    numeric: true,
  },
  ag: {
    flags: {
      ...sw('-i -s -S -v -w -c -l -L -n -Q -u -U -a -f -z -H --hidden --nocolor --color --noheading --heading --nofilename --filename --column --literal --ignore-case --case-sensitive --smart-case --files-with-matches --files-without-matches --count --vimgrep --nobreak --break --stats --skip-vcs-ignores --unrestricted --all-types --all-text --search-zip --follow --numbers --nonumbers --only-matching --silent --word-regexp --invert-match --one-device --null --print0'),
      ...val('-G -m -A -B -C -g -p --ignore --ignore-dir --depth --file-search-regex --max-count --context --after --before --width --workers'), ...file('--path-to-ignore'),
    },
    danger: { '--pager': runs('runs a program as the pager') },
    args: 'pattern-paths',
    numeric: true,
  },
  fd: {
    flags: {
      ...sw('-H -I -u -s -i -g -F -a -l -L -p -0 -q -1 --hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-parent --unrestricted --case-sensitive --ignore-case --glob --regex --fixed-strings --absolute-path --relative-path --list-details --follow --full-path --print0 --prune --show-errors --one-file-system --quiet --has-results --no-require-git --help --version'),
      ...opt('--strip-cwd-prefix --hyperlink'),
      ...val('-d -t -e -E -c -j -S -o --max-depth --min-depth --exact-depth --type --extension --exclude --color --threads --size --changed-within --changed-before --change-newer-than --change-older-than --newer --older --owner --max-results --path-separator --format --max-buffer-time --and --batch-size'), ...file('--base-directory --search-path'),
      ...file('--ignore-file'),
    },
    danger: { '-x': runs('runs a command for every file it finds'), '--exec': runs('runs a command for every file it finds'), '-X': runs('runs a command on the files it finds'), '--exec-batch': runs('runs a command on the files it finds') },
    args: 'pattern-paths',
  },
  locate: { flags: { ...sw('-i -c -e -b -w -0 -A -S -q -P -L --ignore-case --count --existing --basename --wholename --null --all --statistics --quiet --nofollow --follow'), ...val('-l -n -r --limit --regex'), ...file('-d --database') }, args: 'words', closed: true },
  plocate: { flags: { ...sw('-i -c -e -b -w -0 -A -N --ignore-case --count --existing --basename --wholename --null --all --literal'), ...val('-l -n -r --limit --regex'), ...file('-d --database') }, args: 'words', closed: true },
  jq: {
    flags: {
      ...sw('-n -r -j -a -s -c -C -M -S -e -R -h -V -b --null-input --raw-input --slurp --compact-output --tab --color-output --monochrome-output --ascii-output --unbuffered --stream --stream-errors --seq --sort-keys --raw-output --raw-output0 --join-output --exit-status --args --jsonargs --help --version --binary'),
      ...val('--indent'),
      // -L: where `import` finds modules, files jq reads (a secret directory is a secret read).
      ...file('-f --from-file -L --library-path'),
      // Two values each (`--arg name value`); see TWO_VALUES below.
      ...val('--arg --argjson --slurpfile --rawfile'),
    },
    args: 'pattern-paths',
    closed: true,
  },
  yq: {
    flags: {
      ...sw('-P -r -e -n -N -C -M -j -0 -y -Y -S -c -h -V --prettyPrint --unwrapScalar --exit-status --null-input --no-doc --colors --no-colors --tojson --nul-output --yaml-output --yaml-roundtrip --sort-keys --help --version --raw-output --compact-output'),
      ...val('-o -p -I --output-format --input-format --indent --front-matter --expression --xml-attribute-prefix --xml-content-name --lua-prefix --properties-separator --csv-separator --arg --argjson'),
      ...file('--from-file'),
    },
    danger: {
      '-i': { action: 'write', reason: 'edits the file in place' },
      '--inplace': { action: 'write', reason: 'edits the file in place' },
      '--in-place': { action: 'write', reason: 'edits the file in place' },
      '-s': { action: 'write', reason: 'writes each result to a file' },
      '--split-exp': { action: 'write', reason: 'writes each result to a file' },
    },
    // The expression, then the files it reads (`yq e EXPR F` takes `e` as the expression and
    // EXPR as a file: more resources, never fewer).
    args: 'pattern-paths',
  },
  sed: {
    flags: {
      ...sw('-n -E -r -s -z -u -b --quiet --silent --regexp-extended --separate --null-data --unbuffered --binary --posix --debug --sandbox --follow-symlinks --help --version'),
      ...val('-l --line-length -e --expression'),
    },
    danger: {
      '-i': { action: 'write', reason: 'edits files in place', backupSuffix: true },
      '--in-place': { action: 'write', reason: 'edits files in place', backupSuffix: true },
      '-f': runs('reads its script from a file that is not shown (it could run commands)'),
      '--file': runs('reads its script from a file that is not shown (it could run commands)'),
    },
    args: 'pattern-paths',
    check: sedCheck,
  },
  awk: awkForm(),
  gawk: awkForm(),
  mawk: awkForm(),
  nawk: awkForm(),

  // Where am I, who am I, what is this machine.
  pwd: { flags: sw('-L -P'), args: 'none', closed: true },
  echo: anyFlags({ args: 'words', closed: true }),
  printf: anyFlags({ danger: { '-v': runs('assigns a shell variable (printf -v), which can run code through array subscripts') }, args: 'words' }),
  true: anyFlags({ args: 'words', closed: true }),
  false: anyFlags({ args: 'words', closed: true }),
  ':': anyFlags({ args: 'words', closed: true }),
  which: anyFlags({ args: 'words', closed: true }),
  type: { flags: sw('-a -f -p -P -t'), args: 'words', closed: true },
  whereis: { flags: { ...sw('-b -m -s -u -l'), ...val('-B -M -S -f') }, args: 'words', closed: true },
  whoami: { flags: sw('--help --version'), args: 'none', closed: true },
  id: { flags: sw('-a -Z -g -G -n -r -u -z --context --group --groups --name --real --user --zero'), args: 'words', closed: true },
  groups: { flags: sw('--help --version'), args: 'words', closed: true },
  uname: { flags: sw('-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system'), args: 'none', closed: true },
  hostname: {
    flags: sw('-a -A -d -f -i -I -s -y --alias --all-fqdns --domain --fqdn --long --ip-address --all-ip-addresses --short --yp --nis --help --version'),
    danger: { '-F': runs('sets the host name'), '--file': runs('sets the host name'), '-b': runs('sets the host name'), '--boot': runs('sets the host name') },
    args: 'words',
    maxArgs: 0,
    tooMany: { action: 'execute', level: 'high', reason: 'sets the host name' },
  },
  date: {
    flags: { ...sw('-u -R -j -n --utc --universal --rfc-email --rfc-2822 --debug'), ...opt('--iso-8601 --rfc-3339 -I'), ...val('-d --date -v -z -f'), ...file('-r --reference --file') },
    danger: { '-s': runs('sets the system clock'), '--set': runs('sets the system clock') },
    args: 'words',
    plus: /^\+/,
    maxArgs: 0,
    tooMany: { action: 'execute', level: 'high', reason: 'sets the system clock' },
  },
  printenv: anyFlags({ args: 'words', closed: true }),
  ps: anyFlags({ args: 'words', closed: true }),
  pgrep: anyFlags({ args: 'words', closed: true }),
  pidof: anyFlags({ args: 'words', closed: true }),
  lsof: anyFlags({ args: 'words', closed: true }),
  uptime: anyFlags({ args: 'none', closed: true }),
  free: anyFlags({ args: 'none', closed: true }),
  nproc: anyFlags({ args: 'none', closed: true }),
  lscpu: anyFlags({ args: 'none', closed: true }),
  lsblk: anyFlags({ args: 'words', closed: true }),
  arch: anyFlags({ args: 'none', closed: true }),
  tty: anyFlags({ args: 'none', closed: true }),
  locale: anyFlags({ args: 'words', closed: true }),
  getconf: anyFlags({ args: 'words', closed: true }),
  w: anyFlags({ args: 'words', closed: true }),
  who: anyFlags({ args: 'words', closed: true }),
  cal: anyFlags({ args: 'words', closed: true }),
  seq: anyFlags({ args: 'words', closed: true }),
  sleep: anyFlags({ args: 'words', closed: true }),
  expr: anyFlags({ args: 'words', closed: true }),
  bc: { flags: sw('-l -q -s -w --mathlib --quiet --standard --warn'), args: 'paths', closed: true },
  clear: anyFlags({ args: 'none', closed: true }),
  top: { flags: { ...sw('-b -c -H -i -S -1'), ...val('-n -d -p -u -U -o -w -O') }, args: 'none' },
  man: {
    flags: { ...sw('-a -f -k -w -W -K -l -t -Z -7 -i -I --where --where-cat --all --whatis --apropos --local-file --regex --wildcard --names-only --no-subpages --ignore-case --match-case --ascii --help --version'), ...val('-S -s -M -L -m -E -e -p --sections --manpath --locale --systems --encoding --extension --preprocessor') },
    danger: {
      '-P': runs('runs a program as the pager'),
      '--pager': runs('runs a program as the pager'),
      // man-db's -u rebuilds its index cache (/var/cache/man): a write, found by the read fuzzer (seed 101).
      '-u': { action: 'write', reason: "updates man's index cache (writes under /var/cache/man)" },
      '--update': { action: 'write', reason: "updates man's index cache (writes under /var/cache/man)" },
      '-H': runs('opens a web browser'),
      '--html': runs('opens a web browser'),
      '-C': runs('reads a configuration that can name programs to run'),
      '--config-file': runs('reads a configuration that can name programs to run'),
      '-X': runs('runs gxditview'),
      '--gxditview': runs('runs gxditview'),
      '-T': runs('runs troff for another output device'),
      '--troff-device': runs('runs troff for another output device'),
    },
    args: 'words',
    // `man ./page.1` renders a local file with groff: a file the agent may have written.
    // `man -M ./m ls` renders ./m/man1/ls.1 the same way: a page under a directory the agent chose.
    check: (a) =>
      a.pos.some((p) => p.text.includes('/') || p.dynamic) || a.opts.some((o) => o.flag === '-l' || o.flag === '--local-file')
        ? no('man renders a local file with groff')
        : a.opts.some((o) => o.flag === '-M' || o.flag === '--manpath')
          ? no('man -M renders pages from a directory the command names (the agent may have written them)')
          : null,
  },
  less: lessForm(),
  more: lessForm(),
  help: anyFlags({ args: 'words', closed: true }),
  // `closed` here because testCheck itself decides about words computed at run time.
  test: anyFlags({ args: 'words', check: testCheck, closed: true }),
  '[': anyFlags({ args: 'words', check: testCheck, closed: true }),
  history: {
    flags: {},
    danger: Object.fromEntries(['-c', '-d', '-a', '-n', '-r', '-w', '-p', '-s'].map((f) => [f, runs('changes or runs the shell history')])),
    args: 'words',
    maxArgs: 1,
  },
  // `jobs -x CMD` runs CMD.
  jobs: { flags: sw('-l -n -p -r -s'), args: 'words' },
  dirs: anyFlags({ args: 'words', closed: true }),
  // `while read -r f; do …`: sets plain lower-case shell variables only. Their values
  // reach later commands as `$f`, which the classifier treats as computed at run time
  // (arithmetic on a variable is judged where it happens, sh-hazards.ts); a name such as
  // PATH, IFS or http_proxy changes what later commands do.
  read: { flags: { ...sw('-r -s -e'), ...val('-d -n -N -p -t -u -i -a') }, args: 'words', check: readCheck },
  // Version queries of toolchains: one version flag and nothing else (`make` alone
  // builds, `gcc f.c` writes a.out, `java X` runs a class).
  // Not rustc (nor cargo, rustfmt …): where Rust is installed the usual way these are rustup's
  // proxies, which run the toolchain a workspace rust-toolchain.toml names, and its `path` key
  // names any directory (`rustc --version` ran <path>/bin/rustc; lead's red team, 2026-11-24).
  java: versionOnly('-version --version -showversion'),
  javac: versionOnly('-version --version'),
  gcc: versionOnly('--version -v -dumpversion -dumpmachine'),
  'g++': versionOnly('--version -v -dumpversion -dumpmachine'),
  cc: versionOnly('--version -v -dumpversion -dumpmachine'),
  'c++': versionOnly('--version -v -dumpversion -dumpmachine'),
  clang: versionOnly('--version -v'),
  'clang++': versionOnly('--version -v'),
  make: versionOnly('--version -v'),
  cmake: versionOnly('--version'),
  tsc: versionOnly('--version -v'),
  // Lists sockets. `-K` kills the sockets it lists, `-D FILE` dumps to a file.
  ss: {
    flags: {
      ...sw('-h -V -H -n -r -a -l -o -e -m -p -i -s -E -Z -z -b -4 -6 -0 -t -u -d -w -x -S -M --help --version --no-header --numeric --resolve --all --listening --options --extended --memory --processes --info --summary --events --context --contexts --ipv4 --ipv6 --packet --tcp --udp --dccp --raw --unix --sctp --vsock --xdp --mptcp --tipc --oneline'),
      ...val('-f -A -N --family --query --socket --net'),
    },
    args: 'words',
    check: ssCheck,
  },
  netstat: { flags: sw('-a -t -u -w -x -l -n -p -e -o -r -i -s -g -c -v -W -4 -6 --all --tcp --udp --raw --unix --listening --numeric --programs --extend --timers --route --interfaces --statistics --groups --continuous --verbose --wide --numeric-hosts --numeric-ports --numeric-users'), args: 'none' },
  // `mount` with no device or directory only lists what is mounted.
  mount: { flags: { ...sw('-l --show-labels'), ...val('-t --types') }, args: 'none' },
  // `getent hosts NAME` resolves NAME through DNS like `host NAME` (a lookup carries data out).
  getent: anyFlags({ args: 'words', closed: true, check: getentCheck }),
  // Kernel and system logs, shown only: --clear, --console-*, -n, --vacuum-*, --rotate,
  // --flush, --cursor-file (writes the cursor) … are not in the forms.
  dmesg: { flags: { ...sw('-T -H -k -u -x -r -t -w -W -P -L -e -d --ctime --human --kernel --userspace --decode --raw --notime --follow --follow-new --nopager --reltime --show-delta --json'), ...opt('--color --time-format'), ...val('-l -f -s --level --facility --buffer-size --since --until'), ...file('-F --file') }, args: 'none' },
  journalctl: {
    flags: {
      ...sw('-f -e -r -x -k -a -q -m -N -F --follow --pager-end --reverse --catalog --dmesg --all --quiet --merge --no-pager --no-tail --no-hostname --utc --user --system --list-boots --disk-usage --header --fields --list-namespaces --verify --show-cursor --full --no-full --boot --this-boot'),
      // `-n`/`--lines` and `--case-sensitive` take a value only when attached (getopt
      // optional_argument; -n also takes a following number): read as taking the next word,
      // `journalctl -n --cursor-file=F` hid --cursor-file, which writes F (differential fuzzer,
      // on git's --unified; systemd's option table has the same shape).
      ...opt('-b --lines -n --case-sensitive'),
      ...file('-D --directory --file --root'),
      ...val('-u -t -p -g -o -S -U -I -M -T --unit --user-unit --identifier --priority --grep --output --since --until --cursor --after-cursor --namespace --facility --output-fields --machine --field --invocation'),
    },
    args: 'words',
    numeric: true, // `journalctl -b -1`
  },
  stty: { flags: sw('-a -g --all --save'), args: 'none' },
  // tput prints terminal capabilities (escape sequences on standard output). Not `init` or
  // `reset`: ncurses runs the terminal's iprog capability with system(), and ~/.terminfo
  // (any file there) can name it. Not -S, which reads the capability names from input.
  tput: {
    flags: { ...sw('-x -V'), ...val('-T') },
    args: 'words',
    check: (a) => (a.pos.some((p) => p.dynamic || p.mayBeOption || /^(init|reset|iprog)$/.test(p.text)) ? no('tput init/reset run the terminal description\'s init program') : null),
  },
  yes: anyFlags({ args: 'words', closed: true }),
  zcat: { flags: sw('-f -q -v -l -t -L -V --force --quiet --verbose --list --test --license --version --help'), args: 'paths' },
  bzcat: { flags: sw('-s -q -v -L -V --small --quiet --verbose --license --version --help'), args: 'paths' },
  xzcat: { flags: sw('-q -v -Q -T0 --quiet --verbose --no-warn --version --help'), args: 'paths' },
  zipinfo: { flags: sw('-1 -2 -s -m -l -v -h -M -t -T -z'), args: 'paths' },
  // `ip OBJECT [show|list]`: only the listing verbs (`ip link set`, `ip netns exec` change or run).
  ip: { flags: sw('-4 -6 -s -d -h -j -p -o -r -c -br -brief -color -json -pretty -stats -details -human -oneline -resolve'), args: 'words', check: ipCheck },
  // `wait -p NAME` assigns NAME (with no job to wait for, it unsets it: `wait -p PATH; ls`
  // then ran ./ls): the same rule as read's names.
  wait: { flags: { ...sw('-n -f'), ...val('-p') }, args: 'words', check: waitCheck },
  exit: anyFlags({ args: 'words', closed: true }),
  return: anyFlags({ args: 'words', closed: true }),
  shift: anyFlags({ args: 'words', closed: true }),
  times: anyFlags({ args: 'none', closed: true }),
  caller: anyFlags({ args: 'words', closed: true }),

  // Shell builtins that list things when called alone and change things otherwise.
  alias: { flags: sw('-p'), args: 'words', check: (a) => (a.pos.some((p) => p.text.includes('=') || p.dynamic) ? no('alias defines a command name that later lines run as something else (dash and zsh expand aliases on later lines)') : null) },
  hash: { flags: sw('-l -t'), danger: { '-p': runs('makes a command name run another program'), '-r': runs('changes which program a name runs'), '-d': runs('changes which program a name runs') }, args: 'words', check: (a) => (a.pos.length && !a.opts.some((o) => o.flag === '-t') ? no('hash changes which program a name runs') : null) },
  trap: { flags: sw('-l -p'), args: 'words', check: (a) => (a.pos.length && !a.opts.some((o) => o.flag === '-p') ? no('trap runs a command when a signal arrives or the shell exits') : null) },
  shopt: { flags: sw('-p -q'), danger: { '-s': runs('changes how later commands are parsed and expanded (shopt -s)'), '-u': runs('changes how later commands are parsed and expanded (shopt -u)'), '-o': runs('changes shell options (shopt -o)') }, args: 'words' },
  umask: { flags: sw('-S -p'), args: 'words', maxArgs: 0, tooMany: { action: 'execute', reason: 'changes the permissions of files created later' } },
  ulimit: { flags: sw('-a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -H -S -T -P -R'), args: 'words', maxArgs: 0, tooMany: { action: 'execute', reason: 'changes resource limits' } },
  set: { flags: ANY, anyFlags: true, args: 'words', check: setCheck },
  compgen: {
    flags: { ...sw('-a -b -c -d -e -f -g -j -k -s -u -v'), ...val('-A -o -G -P -S -X') },
    danger: {
      '-C': runs('runs a command to generate completions'),
      '-F': runs('runs a shell function to generate completions'),
      '-W': runs('expands a word list, which can run command substitutions'),
      '-V': runs('assigns the completions to a shell variable'),
    },
    args: 'words',
  },
});

/**
 * docker/podman and kubectl read subcommands. They talk to a local daemon or the user's
 * cluster; global options are not allowed (`-H ssh://…`, `--config` with credential
 * helpers, `--kubeconfig` with exec plugins name programs or other machines).
 */
const FORMAT = val('--format -f --filter');
export const DOCKER_READ: Record<string, ReadForm | undefined> = lookup<ReadForm>({
  ps: { flags: { ...sw('-a -q -s -l --all --quiet --size --no-trunc --latest'), ...val('-n --last --format -f --filter') }, args: 'none' },
  images: { flags: { ...sw('-a -q --all --quiet --digests --no-trunc'), ...val('--format -f --filter') }, args: 'words' },
  logs: { flags: { ...sw('-f -t --follow --timestamps --details'), ...val('-n --tail --since --until') }, args: 'words' },
  inspect: { flags: { ...sw('-s --size'), ...val('-f --format --type') }, args: 'words' },
  version: { flags: val('-f --format'), args: 'none' },
  info: { flags: val('-f --format'), args: 'none' },
  stats: { flags: { ...sw('-a --all --no-stream --no-trunc'), ...val('--format') }, args: 'words' },
  top: { flags: {}, args: 'words' },
  history: { flags: { ...sw('-H -q --human --no-trunc --quiet'), ...FORMAT }, args: 'words' },
});
const KUBE_COMMON = {
  ...sw('-A --all-namespaces -w --watch --watch-only --show-labels --no-headers --ignore-not-found --show-kind --show-managed-fields -R --recursive --output-watch-events --all-containers -p --previous --timestamps --prefix --containers --use-protocol-buffers --client --recursive'),
  ...val('-n --namespace -o --output -l --selector --field-selector --sort-by -L --label-columns --chunk-size --context -c --container --tail --since --since-time --max-log-requests --limit-bytes --api-version --template --request-timeout --subresource'),
};
export const KUBECTL_READ: Record<string, ReadForm | undefined> = lookup<ReadForm>({
  get: { flags: { ...KUBE_COMMON, ...sw('--raw') }, danger: { '-k': runs('builds a kustomization, which can fetch remote resources and run generators'), '--kustomize': runs('builds a kustomization, which can fetch remote resources and run generators') }, args: 'words' },
  describe: { flags: KUBE_COMMON, args: 'words' },
  logs: { flags: { ...KUBE_COMMON, ...sw('-f --follow') }, args: 'words' },
  top: { flags: KUBE_COMMON, args: 'words' },
  explain: { flags: KUBE_COMMON, args: 'words' },
  version: { flags: KUBE_COMMON, args: 'none' },
});

/** jq/yq options that take two values (`--arg name value`): the checker reads one, so the second must not be an option. */
export const TWO_VALUES = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);
/** Of those, the ones whose second value is a file jq reads (`--rawfile name FILE`). */
const TWO_VALUE_FILES = new Set(['--slurpfile', '--rawfile']);

function lessForm(): Form {
  return {
    flags: {
      ...sw('-N -S -R -r -F -X -i -I -n -M -m -g -G -e -E -q -Q -s -f -K -w -W -a -B -c -C -d -J -L -u -U -V -~ --chop-long-lines --RAW-CONTROL-CHARS --raw-control-chars --quit-if-one-screen --no-init --ignore-case --IGNORE-CASE --LINE-NUMBERS --line-numbers --squeeze-blank-lines --long-prompt --quiet --silent --QUIT-AT-EOF --quit-at-eof --no-lessopen --help --version'),
      ...val('-x -j -y -z -b -h -p -P --tabs --jump-target --max-back-scroll --window --buffers --max-forw-scroll --pattern --prompt'),
    },
    danger: {
      '-o': { action: 'write', reason: 'copies its input to a log file', takesValue: true },
      '-O': { action: 'write', reason: 'copies its input to a log file', takesValue: true },
      '--log-file': { action: 'write', reason: 'copies its input to a log file', takesValue: true },
      '--LOG-FILE': { action: 'write', reason: 'copies its input to a log file', takesValue: true },
      '-k': runs('reads key bindings that can run commands'),
      '--lesskey-file': runs('reads key bindings that can run commands'),
      '-t': runs('uses a tags file'),
      '-T': runs('uses a tags file'),
    },
    // `+N`, `+G`, `+F`, `+/pattern`: a line, the end, follow, a search. `+!cmd` runs a shell.
    plus: /^\+(?:\d+|[GgF]|[/?][^\x00-\x1f!|]*)$/,
    args: 'paths',
  };
}

function awkForm(): Form {
  const load = runs('loads code (gawk -i/-l/@include)');
  return {
    flags: { ...sw('-b -c -C -g -h -M -n -N -O -P -r -s -S -t -V -k --characters-as-bytes --traditional --copyright --gen-pot --help --bignum --non-decimal-data --use-lc-numeric --optimize --posix --re-interval --no-optimize --sandbox --lint-old --version --csv'), ...opt('--lint'), ...val('-F -v --field-separator --assign -e --source') },
    danger: {
      '-f': runs('runs a program file that is not shown'),
      '--file': runs('runs a program file that is not shown'),
      '-E': runs('runs a program file that is not shown'),
      '--exec': runs('runs a program file that is not shown'),
      '-i': load, '--include': load, '-l': load, '--load': load,
      '-d': { action: 'write', reason: 'writes a variable dump file' },
      '--dump-variables': { action: 'write', reason: 'writes a variable dump file' },
      '-o': { action: 'write', reason: 'writes a pretty-printed program file' },
      '--pretty-print': { action: 'write', reason: 'writes a pretty-printed program file' },
      '-p': { action: 'write', reason: 'writes a profile file' },
      '--profile': { action: 'write', reason: 'writes a profile file' },
      '-D': runs('starts the debugger'),
      '--debug': runs('starts the debugger'),
      '-W': runs('-W options of mawk are not known to be read-only'),
      '-L': runs('is not known to be read-only'),
    },
    args: 'pattern-paths',
    check: awkCheck,
  };
}

function awkCheck(a: ParsedArgs): Verdict | null {
  const sandbox = a.opts.some((o) => o.flag === '--sandbox' || o.flag === '-S');
  const sources = a.opts.filter((o) => o.flag === '-e' || o.flag === '--source').map((o) => o.value!);
  const programs = sources.length ? sources : a.pos.slice(0, 1);
  if (programs.length === 0) return no(`${a.name} without a program is not known to be read-only`);
  // gawk opens a data file named /inet/tcp/LPORT/HOST/RPORT the way it opens one in a
  // redirection (devopen): `gawk 1 /inet/tcp/0/host/80` connects, whatever the program is.
  const net = (sources.length ? a.pos : a.pos.slice(1)).find((f) => /^\/inet[46]?\//.test(f.text));
  if (net) return { action: 'transfer', level: 'high', reason: `${a.name} reads ${net.text.slice(0, 80)} as a network connection (gawk's /inet special files)`, resources: [net.text.split('/')[4] ?? net.text] };
  for (const p of programs) {
    if (p.dynamic) return no(`${a.name} program computed at run time (${p.text.slice(0, 60)})`);
    const v = awkVerdict(p.text);
    // gawk --sandbox refuses system(), redirections and pipes; @load/@include still work.
    if (v && !(sandbox && a.name === 'gawk' && v.action !== 'execute')) return { action: v.action, level: v.action === 'execute' ? 'high' : 'medium', reason: `${a.name} ${v.reason}`, resources: [] };
  }
  return null;
}

function sedCheck(a: ParsedArgs): Verdict | null {
  const exprs = a.opts.filter((o) => o.flag === '-e' || o.flag === '--expression').map((o) => o.value!);
  const scripts = exprs.length ? exprs : a.pos.slice(0, 1);
  if (scripts.length === 0) return no('sed without a script is not known to be read-only');
  if (scripts.some((s) => s.dynamic)) return no(`sed script computed at run time (${scripts.find((s) => s.dynamic)!.text.slice(0, 60)})`);
  // GNU sed joins -e scripts with newlines.
  const fx = sedEffects(scripts.map((s) => s.text).join('\n'));
  const sandbox = a.opts.some((o) => o.flag === '--sandbox');
  if (fx.error) return no(`sed script could not be read safely (${fx.error})`);
  if (sandbox) return null; // GNU sed --sandbox refuses e, w and r.
  if (fx.exec) return no('sed script runs a shell command (the e command or the s///e flag)');
  if (fx.writes.length) {
    return { action: 'write', level: 'medium', reason: `sed script writes a file (w): ${fx.writes.slice(0, 3).join(', ')}`, resources: fx.writes.map((w) => resolvePath(w, a.cwd)) };
  }
  return null;
}

const TEST_UNARY = new Set(['-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-t', '-u', '-w', '-x', '-G', '-L', '-N', '-O', '-S', '-n', '-z', '!', '(']);
const TEST_BINARY = new Set(['=', '==', '!=', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef', '-a', '-o']);
/**
 * test / [: `-v NAME` and `-R NAME` evaluate array subscripts in NAME, which can run
 * `$(…)`. A quoted word computed at run time is safe where it can only be an operand:
 * right after an operator, or right before a binary one.
 */
function testCheck(a: ParsedArgs): Verdict | null {
  const words = [...a.opts.map((o) => ({ text: o.flag, dynamic: false } as WordValue)), ...a.pos];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w.text === '-v' || w.text === '-R') return no(`${a.name} -v evaluates array subscripts of a variable name, which can run commands`);
    if (!w.dynamic && !w.mayBeOption) continue;
    const prev = words[i - 1];
    const next = words[i + 1];
    const operand = (prev && !prev.dynamic && (TEST_UNARY.has(prev.text) || TEST_BINARY.has(prev.text))) || (next && !next.dynamic && TEST_BINARY.has(next.text));
    if (w.split || !operand) return no(`${a.name}: a word computed at run time (${w.text.slice(0, 40)}) could be an operator such as -v`);
  }
  return null;
}

/**
 * `set` alone lists; `set -e/-u/-v/-o pipefail` only make a script stricter or louder.
 * Not `-x`/xtrace: it expands PS4 before every later command, and bash imports PS4 from
 * the environment, so `PS4='$(cmd)'` inherited from anywhere runs cmd (sh-commands.ts).
 */
const SET_OK = /^[-+][euvC]+$/;
const SET_O_OK = new Set(['pipefail', 'errexit', 'nounset', 'verbose', 'noclobber']);
function setCheck(a: ParsedArgs): Verdict | null {
  const words = [...a.opts.map((o) => o.flag), ...a.pos.map((p) => p.text)];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (SET_OK.test(w)) continue;
    if (w === '-o' || w === '+o') {
      const next = words[i + 1];
      if (next === undefined) continue; // lists options
      if (SET_O_OK.has(next)) {
        i++;
        continue;
      }
    }
    const m = /^[-+]([euvC]*)o$/.exec(w);
    if (m && SET_O_OK.has(words[i + 1] ?? '')) {
      i++;
      continue;
    }
    return no(`set ${w} changes how later commands run`);
  }
  return null;
}

/** Whether every option of `name` is harmless (see ReadForm.closed): then xargs may append anything. */
export function isClosedRead(name: string): boolean {
  return !!READ_FORMS[name]?.closed;
}

// --- checking one argv -------------------------------------------------------------------

export interface ReadCheck extends Verdict {
  /** The form's table entry exists: the program is one the allowlist knows. */
  known: boolean;
}

/** Checks `name args…` against the table. `known: false` means the program is not in it. */
export function checkRead(name: string, args: WordValue[], cwd: string | undefined): ReadCheck {
  const form = READ_FORMS[name];
  if (!form) return { known: false, action: 'execute', resources: [] };
  // Two-value options: join the pair so the checker sees one value (the second may look like an option).
  const norm: WordValue[] = [];
  const pairFiles: WordValue[] = [];
  for (let i = 0; i < args.length; i++) {
    norm.push(args[i]);
    if (TWO_VALUES.has(args[i].text) && i + 2 < args.length) {
      norm.push({ text: `${args[i + 1].text} ${args[i + 2].text}`, dynamic: args[i + 1].dynamic || args[i + 2].dynamic });
      if (TWO_VALUE_FILES.has(args[i].text)) pairFiles.push(args[i + 2]);
      i += 2;
    }
  }
  if (form.anyFlags) {
    // Options are words; only the listed dangers and the check count.
    for (const a of norm) {
      // bash's builtins take an option's value glued on (`printf -vPATH .` is `printf -v PATH .`).
      const d = form.danger?.[a.text] ?? (/^-[^-]./.test(a.text) ? form.danger?.[a.text.slice(0, 2)] : undefined);
      if (d) return { known: true, action: d.action, level: d.level ?? 'medium', reason: `${name} ${a.text} ${d.reason}`, resources: [] };
      if (!form.closed && a.mayBeOption) return { known: true, action: 'execute', level: 'medium', reason: `${name}: an argument computed at run time (${a.text.slice(0, 60)}) could be an option`, resources: [] };
    }
    if (form.args === 'none' && norm.some((a) => !a.text.startsWith('-'))) return { known: true, action: 'execute', level: 'medium', reason: `${name} with arguments is not known to be read-only`, resources: [] };
    if (form.maxArgs !== undefined && norm.length > form.maxArgs && form.tooMany) return { known: true, action: form.tooMany.action, level: form.tooMany.level ?? 'medium', reason: `${name} ${form.tooMany.reason}`, resources: [] };
    const v = form.check?.({ name, opts: [], pos: norm, cwd });
    if (v) return { known: true, ...v };
    return { known: true, action: null, resources: form.args === 'paths' ? paths(norm, cwd) : [] };
  }
  const v = checkForm(name, form, norm, cwd);
  return { known: true, ...v, resources: pairFiles.length ? [...v.resources, ...paths(pairFiles, cwd)] : v.resources };
}
