// The generator of the differential write fuzzer (classify-write.fuzz.ts): seeded shell
// lines built from the classifier's write, delete and transfer tables (WRITE_CMDS,
// DELETE_CMDS, MODE_FIRST, GIT_WRITE, GIT_NET in sh-commands.ts, sed's in-place forms),
// every redirection bash has, and downloads to the loopback address. Each program's
// options are the ones it lists in its own `--help` (so `cp --backup`, `install
// --strip-program`, `patch --output` are tried even though no table names them), spelled
// as the read fuzzer spells them (classify-read-gen.ts respell, compound lines). The
// arguments are the scene's tricky names (classify-write-oracle.ts): symbolic links into
// .git/hooks and out of the scene, `..`, globs, archives and a patch whose contents name
// the files they write. Deterministic: the same seed and installed programs give the same lines.
import { spawnSync } from 'node:child_process';
import { DELETE_CMDS, GIT_WRITE, MODE_FIRST, WRITE_CMDS } from '../../main/core/classify/sh-commands';
import type { Rng } from './lib';
import { BLANKS, TRICKY_ARGS, compoundLine, respell } from './classify-read-gen';

/** Names in the scene a write may aim at, including the traps (links, `..`, globs). */
export const WRITE_TARGETS = [
  'a.txt', 'b.json', 'dir', 'dir/c.txt', 'new.txt', 'out', 'dir/new', 'newdir', 'newdir/x', 'x.y', 'notes.md',
  'lnk-hooks/pre-commit', 'lnk-hooks', 'lnk-dir', 'lnk-dir/n', 'lnk-out', 'lnk-out/n', 'lnk-etc', 'lnk-a',
  '.git/hooks/pre-commit', '../outside/n', '../outside', 'dir/../new2', 'sub/a.txt', '~/n', '/tmp/outside/n', '.',
  '*.txt', 'dir/*', '[ab].*', '$x', '"$x"', '-rf', '--', 'a.tar', 'a.zip', 'a.gz', 'p.diff', 'x{1,2}', '{a,b}.new',
];
/** Archives and patches in the scene: what they write is named inside them, not on the line. */
const CONTAINERS = ['a.tar', 'a.zip', 'p.diff', 'a.gz', 'a.tgz'];
const MODES = ['644', '755', 'u+x', '+x', 'a-w', '0', 'go=', '-w'];
const VALUES = ['1', '0', 'x', 'out', '.bak', '~', 'a.txt', 'dir', '755', 'numbered', 'simple', 'existing', 'none', '2', '10', '-', '.', 'lnk-hooks', '../outside'];
const SED_SCRIPTS = ["'s/a/b/'", "'1d'", '"s/x/y/g"', "'$a\\\\z'", "'w out'", "'s/a/b/w out'"];
/** Local URLs only: the sandbox has no network, and a name would be looked up (the oracle accepts that for named hosts). */
const URLS = ['http://127.0.0.1:9/x.sh', 'http://localhost:9/', '127.0.0.1:9/a/b.txt', 'http://127.0.0.1:9/dir/', 'http://localhost:9/../../x'];
const CURL_OPTS = ['-o', '-O', '-J', '-D', '-c', '-b', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--output-dir', '--create-dirs', '-K', '--etag-save', '--hsts', '--alt-svc', '-w', '--remote-name-all', '-s', '-f', '-L', '--max-time'];
const WGET_OPTS = ['-O', '-o', '-a', '-P', '-x', '-nd', '-r', '-N', '-c', '-q', '--use-askpass', '--save-cookies', '--warc-file', '--rejected-log', '-e', '--hsts-file', '--config', '--backups', '-k', '-K', '--tries=1', '-T', '--no-config'];
const GIT_ARGS: Record<string, string[][]> = {
  add: [['a.txt'], ['.'], ['-A'], ['new.txt'], ['lnk-hooks/pre-commit'], ['-f', 'dir']],
  commit: [['-qm', 'x'], ['-qam', 'x'], ['--allow-empty', '-qm', 'x'], ['-q', '--amend', '--no-edit'], ['-qm', 'x', '--no-verify']],
  checkout: [['--', 'a.txt'], ['-b', 'nb'], ['HEAD', '--', '.'], ['-q', 'main'], ['--orphan', 'o']],
  switch: [['-c', 'nb'], ['main'], ['-q', '--detach']],
  restore: [['a.txt'], ['--staged', 'a.txt'], ['.'], ['-s', 'HEAD', 'dir']],
  stash: [[], ['push'], ['-u'], ['pop'], ['list']],
  mv: [['a.txt', 'new.txt'], ['dir', 'newdir'], ['a.txt', 'lnk-dir/']],
  rm: [['a.txt'], ['-r', 'dir'], ['--cached', 'a.txt'], ['-q', 'notes.md']],
  branch: [['nb'], ['-D', 'nb'], ['-m', 'x']],
  tag: [['t1'], ['-d', 't1']],
  reset: [['--hard'], ['HEAD~0'], ['-q', 'a.txt'], ['--soft', 'HEAD']],
  clean: [['-fd'], ['-fdx'], ['-n']],
  config: [['user.name', 'x'], ['core.hooksPath', 'lnk-out'], ['--unset', 'x.y'], ['alias.st', 'status']],
  init: [['newrepo'], ['-q', 'dir'], ['--bare', 'b.git']],
  apply: [['p.diff'], ['--index', 'p.diff'], ['--unsafe-paths', 'p.diff'], ['--directory=dir', 'p.diff']],
  'update-index': [['--add', 'a.txt'], ['--refresh']],
  gc: [['-q'], ['--prune=now']],
  notes: [['add', '-m', 'x']],
  'format-patch': [['-1'], ['-1', '-o', 'out'], ['--stdout', '-1']],
  worktree: [['add', 'wt'], ['list']],
  'sparse-checkout': [['init'], ['set', 'dir']],
  reflog: [['expire', '--all']],
  'symbolic-ref': [['HEAD', 'refs/heads/x']],
  'update-ref': [['refs/heads/x', 'HEAD']],
  remote: [['add', 'o', 'http://127.0.0.1:9/r'], ['remove', 'o']],
  revert: [['--no-edit', 'HEAD']],
  'cherry-pick': [['HEAD']],
};
const GIT_NET_ARGS = [['push'], ['fetch', 'http://127.0.0.1:9/r'], ['pull'], ['clone', 'http://127.0.0.1:9/r', 'cl'], ['ls-remote', 'http://127.0.0.1:9/r'], ['push', 'origin', 'main']];

/** How to spell a redirection of output to a file (bash's every form). */
const REDIRECTS = ['>', '>>', '>|', '<>', '&>', '&>>', '2>', '1>', '3>', '>&', '2>>'];

export interface WriteGenOptions {
  installed: (program: string) => boolean;
}

export interface WriteGenerator {
  line(r: Rng): string;
  /** How many programs and git subcommands the tables gave (shown in the report). */
  programs: number;
  gitSubcommands: number;
}

type OptKind = 'none' | 'value' | 'optional';

/**
 * A program's options as its `--help` lists them (`-b`, `--backup[=CONTROL]`,
 * `--suffix=SUFFIX`), and which take a value: what the tables may not know about.
 */
export function helpOptions(program: string): [string, OptKind][] {
  const r = spawnSync(program, ['--help'], { encoding: 'utf8', timeout: 3000, env: { PATH: process.env.PATH, LANG: 'C' } });
  const text = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  const out = new Map<string, OptKind>();
  for (const m of text.matchAll(/(?:^|[\s,[])(--?[A-Za-z0-9][-A-Za-z0-9]*)(\[?=[A-Za-z[\]_-]+|\s+[A-Z][A-Z_]+\b)?/g)) {
    const flag = m[1]!;
    if (flag.length > 40 || /^-\d{2,}/.test(flag)) continue;
    const v = m[2] ?? '';
    const kind: OptKind = v.startsWith('[=') ? 'optional' : v ? 'value' : 'none';
    if (!out.has(flag) || kind !== 'none') out.set(flag, kind);
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);

export function makeWriteGenerator(opts: WriteGenOptions): WriteGenerator {
  const writers = [...keys(WRITE_CMDS), ...keys(DELETE_CMDS), ...keys(MODE_FIRST), 'tar', 'dd', 'curl', 'wget', 'sed', 'rename.ul'].filter((p) => opts.installed(p)).sort();
  const optionsOf = new Map(writers.map((p) => [p, helpOptions(p)]));
  const gitSubs = [...GIT_WRITE].filter((s) => GIT_ARGS[s]).sort();

  const target = (r: Rng) => (r.chance(0.85) ? r.pick(WRITE_TARGETS) : r.pick(TRICKY_ARGS));
  const value = (r: Rng) => (r.chance(0.8) ? r.pick(VALUES) : target(r));

  function option(r: Rng, program: string): string[] {
    const list = optionsOf.get(program) ?? [];
    if (list.length === 0) return [];
    const [flag, kind] = r.pick(list);
    if (kind === 'none') return [flag];
    if (kind === 'optional') return r.chance(0.5) ? [flag] : [`${flag}=${value(r)}`];
    if (flag.startsWith('--')) return r.chance(0.5) ? [`${flag}=${value(r)}`] : [flag, value(r)];
    return r.chance(0.4) ? [`${flag}${value(r)}`] : [flag, value(r)];
  }

  function positionals(r: Rng, program: string): string[] {
    if (MODE_FIRST[program]) return [r.pick(MODES), target(r), ...(r.chance(0.3) ? [target(r)] : [])];
    if (program === 'tar') return [r.pick(['-xf', 'xf', '-xvf', '-cf', 'cf', '-rf', '-xzf', '-tf']), r.pick([...CONTAINERS, 'out.tar', 'lnk-out/t.tar']), ...(r.chance(0.4) ? ['-C', r.pick(['dir', 'lnk-hooks', '../outside', 'newdir'])] : []), ...(r.chance(0.5) ? [target(r)] : [])];
    if (program === 'dd') return [`if=${r.pick(['a.txt', 'b.json', '/dev/zero'])}`, `of=${target(r)}`, ...(r.chance(0.3) ? ['count=1'] : [])];
    if (program === 'sed') return [r.pick(['-i', '-i.bak', '--in-place', '--in-place=.orig', '-ni', '-i~', '-Ei']), r.pick(SED_SCRIPTS), target(r)];
    if (program === 'curl' || program === 'wget') return [r.pick(URLS)];
    if (program === 'patch') return r.pick([['-p0'], ['-p1'], ['-i', 'p.diff'], ['a.txt', 'p.diff'], ['-o', target(r), 'a.txt', 'p.diff']]).concat(r.chance(0.5) ? ['<', 'p.diff'] : []);
    if (program === 'unzip' || program === 'gunzip') return [r.pick(CONTAINERS), ...(r.chance(0.3) ? ['-d', r.pick(['dir', 'lnk-hooks', '../outside'])] : [])];
    const n = 1 + r.int(3);
    return Array.from({ length: n }, () => (r.chance(0.2) ? r.pick(CONTAINERS) : target(r)));
  }

  function writerCommand(r: Rng): string[] {
    const program = r.pick(writers);
    const words = [program];
    const nOpts = r.int(3);
    if (program === 'curl' || program === 'wget') {
      for (let i = 0; i < 1 + r.int(3); i++) {
        const o = r.pick(program === 'curl' ? CURL_OPTS : WGET_OPTS);
        words.push(o, ...(/^-[oDcbKPwTae]$|^--(trace|trace-ascii|stderr|libcurl|output-dir|etag-save|hsts|alt-svc|save-cookies|warc-file|rejected-log|hsts-file|config|backups|use-askpass)$/.test(o) ? [o === '--use-askpass' ? r.pick(['./cat', 'true']) : o === '-e' ? r.pick(['robots=off', 'use_askpass=./cat', 'logfile=out']) : target(r)] : []));
      }
    } else for (let i = 0; i < nOpts; i++) words.push(...option(r, program));
    const pos = positionals(r, program);
    if (r.chance(0.1)) words.push('--');
    words.push(...pos);
    // Options after the files: GNU getopt permutes them.
    if (r.chance(0.2)) words.push(...option(r, program));
    return words;
  }

  function gitCommand(r: Rng): string[] {
    if (r.chance(0.15)) return ['git', ...r.pick(GIT_NET_ARGS)];
    const sub = r.pick(gitSubs);
    return ['git', sub, ...r.pick(GIT_ARGS[sub]!)];
  }

  function redirection(r: Rng): string[] {
    const producer = r.pick([['echo', 'x'], ['printf', "'#!/bin/sh\\n'"], ['cat', 'a.txt'], [':'], ['true'], ['exec'], ['cat']]);
    const op = r.pick(REDIRECTS);
    const t = target(r);
    const glued = r.chance(0.5);
    return [...producer, ...(glued ? [`${op}${t}`] : [op, t])];
  }

  /**
   * A line that makes a path and then uses it (a link, a directory, a hard-linked copy of .git,
   * OLDPWD by a cd, a cd to a computed place), so what the use reaches exists only once the line
   * runs: the daemon resolves links and globs before it runs.
   */
  function createThenUse(r: Rng): string {
    const n = r.pick(['h', 'k', 'zz', 'd/k', 'newdir/h']);
    const maker = r.pick([
      `ln -s ${r.pick(['.git/hooks', '.git', '../outside', 'dir', '.', '..', '/tmp/outside', 'lnk-hooks', '.g*', '~', "'.git'", '.gi?'])} ${n}`,
      `mkdir -p ${n}`,
      `mkdir -p d && ln -s ${r.pick(['../.git/hooks', '../.git', '../../outside', '..'])} d/k`,
      `cp -al .git ${n}`,
      `cp -rs "$PWD/.git" ${n}`,
      `cd ${r.pick(['.git/hooks', 'dir', 'lnk-hooks', '../outside', '.git'])}; cd ${r.pick(['..', '-', '../..', '/tmp/w'])}`,
      `x=${r.pick(['.git/hooks', 'dir', '.git'])}; cd $x`,
      `pushd ${r.pick(['.git/hooks', 'dir'])} >/dev/null; cd /tmp/w`,
    ]);
    const use = r.pick([
      `cp a.txt ${n}/pre-commit`, `echo x > ${n}/config`, `cp a.txt ${n}/hooks/pre-commit`, `touch ${n.split('/')[0]}*/x`, `cp a.txt ~-/pre-commit`,
      `echo x >> ~-/config`, `cp a.txt pre-commit`, `cp ../../a.txt pre-commit`, `rm -f ${n}/n`, `tee ${n}/x < a.txt`, `echo x > ~1/n`, `mv b.json ${n}/`,
      `printf '#!/bin/sh\\n' > d/k/pre-commit`, `cp -r dir ${n}/`, `env -C ${n} touch pre-commit`,
    ]);
    return `${maker}${r.pick(['; ', ' && ', '\n'])}${use}`;
  }

  /** A writer run through a wrapper: the wrapper's own options can move it (env -C, sudo -D). */
  function wrappedCommand(r: Rng): string[] {
    const wrapper = r.pick([['nice'], ['nice', '-n', '5'], ['timeout', '5'], ['env'], ['env', '-C', r.pick(['dir', '.git/hooks', 'lnk-hooks', '$x', '..'])], ['env', `-C${r.pick(['dir', '.git'])}`], ['env', '--ch=.git/hooks'], ['env', 'X=1'], ['stdbuf', '-o0'], ['nohup'], ['setsid'], ['command']]);
    return [...wrapper, ...writerCommand(r)];
  }

  function simple(r: Rng): string {
    const roll = r.int(100);
    const words = roll < 50 ? writerCommand(r) : roll < 56 ? wrappedCommand(r) : roll < 75 ? gitCommand(r) : redirection(r);
    const parts: string[] = [];
    if (r.chance(0.08)) parts.push(r.pick(['x=a.txt', 'x=lnk-hooks/pre-commit', 'x="a b"', 'f=out', 'LC_ALL=C', 'POSIXLY_CORRECT=1', 'TMPDIR=dir', 'VERSION_CONTROL=numbered', 'SIMPLE_BACKUP_SUFFIX=.orig']));
    for (const w of words) parts.push(r.chance(0.08) ? respell(r, w) : w);
    let text = parts[0] ?? '';
    for (let i = 1; i < parts.length; i++) text += (r.chance(0.04) ? r.pick(BLANKS) : ' ') + parts[i];
    if (r.chance(0.1)) text += ' ' + r.pick(['2>/dev/null', '>/dev/null', '2>&1', `>${target(r)}`, '</dev/null']);
    return text;
  }

  return {
    line: (r) => (r.chance(0.12) ? createThenUse(r) : r.chance(0.6) ? simple(r) : compoundLine(r, simple)),
    programs: writers.length,
    gitSubcommands: gitSubs.length,
  };
}
