// git's read-only forms, as data: which global options and which subcommands (with
// which options) only read the repository. Everything else goes to the write/delete/
// transfer rules in sh-commands.ts, or is execute. Configuration overrides (`-c`,
// `--config-env`, GIT_* variables) are never a read: core.fsmonitor, core.pager,
// core.sshCommand, diff.external, aliases … name programs git runs.
import { checkForm, file, opt, sw, val, type Danger, type ReadForm, type Verdict } from './sh-flags';
import type { WordValue } from './sh-words';

const OUTPUT: Danger = { action: 'write', reason: 'writes its output to a file', takesValue: true };
const runs = (reason: string): Danger => ({ action: 'execute', level: 'high', reason });

/** Global options (before the subcommand). */
export const GIT_GLOBAL: ReadForm = {
  flags: {
    ...sw('--no-pager -P --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --bare --version --help -h --html-path --man-path --info-path --no-advice'),
    ...val('-C --git-dir --work-tree --namespace'),
  },
  danger: {
    '-c': runs('sets configuration for this run (core.fsmonitor, core.pager, aliases … run programs)'),
    '--config-env': runs('sets configuration for this run from the environment (it can name programs to run)'),
    '-p': runs('runs the configured pager'),
    '--exec-path': runs('runs git commands from another directory'),
    '--paginate': runs('runs the configured pager'),
    '--attr-source': runs('reads attributes from another tree (they can name filter programs)'),
  },
  args: 'words',
  stopAtPositional: true,
};

/** Diff output options shared by diff, log, show, stash show … */
const DIFF = {
  ...sw('-p -u -s --patch --no-patch --raw --patch-with-raw --patch-with-stat --numstat --shortstat --name-only --name-status --summary --compact-summary --cumulative --full-index --binary --no-renames --find-copies-harder --irreversible-delete --pickaxe-all --pickaxe-regex -R -a --text -w -b --ignore-all-space --ignore-space-change --ignore-space-at-eol --ignore-cr-at-eol --ignore-blank-lines --minimal --patience --histogram --no-ext-diff --no-textconv --function-context -W --exit-code --quiet --check --no-color --no-prefix --default-prefix --ita-invisible-in-index --ita-visible-in-index --no-relative --no-indent-heuristic --indent-heuristic -z --null --color-moved-ws --no-color-moved --no-color-moved-ws --full-diff'),
  // `--unified[=<n>]` takes its value only when attached (git's PARSE_OPT_OPTARG): read as
  // taking the next word, `git diff --unified --output=out` hid --output, which wrote out
  // (found by the differential fuzzer).
  ...opt('--stat --dirstat --color --word-diff --color-words --find-renames --find-copies --break-rewrites --abbrev --relative --submodule --ignore-submodules --color-moved -M -C -B -D -U -l --unified'),
  ...val('--inter-hunk-context --stat-width --stat-name-width --stat-graph-width --stat-count --word-diff-regex --diff-algorithm --anchored --ws-error-highlight --src-prefix --dst-prefix --line-prefix --diff-filter -S -G --find-object --output-indicator-new --output-indicator-old --output-indicator-context --rotate-to --skip-to'),
  ...file('-O --orderfile'),
};
const DIFF_DANGER: Record<string, Danger> = {
  '--output': OUTPUT,
  '--ext-diff': runs('runs the external diff program'),
  '--textconv': runs('runs textconv filter programs'),
};

/** Revision walking and formatting shared by log, show, shortlog, rev-list, reflog, stash list. */
const LOG = {
  ...DIFF,
  ...sw('--oneline --graph --no-decorate --abbrev-commit --no-abbrev-commit --follow --first-parent --merges --no-merges --reverse --all --date-order --author-date-order --topo-order --left-right --cherry-pick --cherry-mark --cherry --boundary --simplify-by-decoration --full-history --dense --sparse --simplify-merges --show-signature --relative-date --walk-reflogs -g --mailmap --use-mailmap --no-mailmap --log-size --parents --children --source --do-walk --cc -c -m --remerge-diff --regexp-ignore-case -i --basic-regexp --extended-regexp -E --fixed-strings -F --perl-regexp --all-match --invert-grep --no-notes --no-expand-tabs --single-worktree --ignore-missing --stdin --no-min-parents --no-max-parents --count --objects --objects-edge --in-commit-order --no-object-names --bisect --timestamp --header --not'),
  ...opt('--decorate --pretty --branches --tags --remotes --ancestry-path --no-walk --notes --show-notes --expand-tabs --show-linear-break --diff-merges'),
  ...val('-n --max-count --skip --since --after --until --before --author --committer --grep --format --date --since-as-filter -L --min-parents --max-parents --encoding --decorate-refs --decorate-refs-exclude --exclude --glob --max-age --min-age'),
};

const logForm: ReadForm = { flags: LOG, danger: DIFF_DANGER, args: 'words', numeric: true };

/** Read-only subcommands: the form each must match to be a read. */
export const GIT_READ: Record<string, ReadForm | undefined> = Object.assign(Object.create(null) as Record<string, ReadForm | undefined>, {
  status: {
    flags: { ...sw('-s --short -b --branch --long -v --verbose --show-stash --ahead-behind --no-ahead-behind --renames --no-renames -z --null --no-column'), ...opt('--porcelain --column -u --untracked-files --ignored --ignore-submodules --find-renames -M') },
    args: 'words',
  },
  log: logForm,
  whatchanged: logForm,
  show: logForm,
  shortlog: { flags: { ...LOG, ...sw('-s -e -n --summary --email --numbered'), ...opt('-w'), ...val('--group') }, danger: DIFF_DANGER, args: 'words', numeric: true },
  'rev-list': logForm,
  diff: { flags: { ...DIFF, ...sw('--cached --staged --merge-base --no-index -1 -2 -3 --base --ours --theirs -0 --cc -c') }, danger: DIFF_DANGER, args: 'words' },
  'diff-tree': { flags: { ...DIFF, ...sw('-r -t --root --stdin -m -c --cc --combined-all-paths --always -v --no-commit-id') }, danger: DIFF_DANGER, args: 'words' },
  'diff-index': { flags: { ...DIFF, ...sw('--cached -m --merge-base') }, danger: DIFF_DANGER, args: 'words' },
  'diff-files': { flags: { ...DIFF, ...sw('-0 -1 -2 -3 -c --cc -q --base --ours --theirs') }, danger: DIFF_DANGER, args: 'words' },
  blame: {
    flags: { ...sw('-b -c -f -l -n -p -s -t -w -e --root --show-stats --score-debug --show-name --show-number --show-email --porcelain --line-porcelain --incremental --minimal --progress --no-progress --color-lines --color-by-age --reverse --first-parent'), ...opt('-M -C --abbrev'), ...val('-L --since --ignore-rev --date --encoding'), ...file('-S --contents --ignore-revs-file') },
    danger: { '--textconv': runs('runs textconv filter programs') },
    args: 'words',
  },
  annotate: { flags: { ...sw('-b -c -f -l -n -p -s -t -w -e --root --porcelain --incremental'), ...opt('-M -C'), ...val('-L') }, args: 'words' },
  grep: {
    flags: {
      ...sw('-i -v -w -n -l -L -c -h -H -E -F -G -P -I -a -o -q -z -r -p -W --cached --untracked --no-index --index --recurse-submodules --only-matching --quiet --null --full-name --break --heading --show-function --function-context --no-color --all-match --and --or --not ( ) --column --line-number --count --name-only --files-with-matches --files-without-match --exclude-standard --no-exclude-standard --ignore-case --invert-match --word-regexp --text --no-textconv --extended-regexp --basic-regexp --fixed-strings --perl-regexp --recursive --no-recursive'),
      ...opt('--color'),
      ...val('-e --max-depth -A -B -C -m --max-count --threads --context --after-context --before-context'),
      ...file('-f'),
    },
    danger: { '-O': runs('opens the matching files in a program (the pager)'), '--open-files-in-pager': runs('opens the matching files in a program (the pager)'), '--textconv': runs('runs textconv filter programs') },
    args: 'words',
    numeric: true,
  },
  'ls-files': {
    flags: { ...sw('-c -d -m -o -i -s -u -k -t -v -f -z --cached --deleted --modified --others --ignored --stage --unmerged --killed --directory --no-empty-directory --exclude-standard --error-unmatch --full-name --recurse-submodules --debug --eol --resolve-undo --deduplicate --sparse'), ...opt('--abbrev'), ...val('-x --exclude --exclude-per-directory --format --with-tree'), ...file('-X --exclude-from') },
    args: 'words',
  },
  'ls-tree': { flags: { ...sw('-d -r -t -l -z --long --name-only --name-status --object-only --full-name --full-tree'), ...opt('--abbrev'), ...val('--format') }, args: 'words' },
  'cat-file': {
    flags: { ...sw('-t -s -e -p --batch-all-objects --follow-symlinks --unordered --buffer -Z --allow-unknown-type --mailmap --use-mailmap --no-mailmap'), ...opt('--batch --batch-check --batch-command'), ...val('--path') },
    danger: { '--textconv': runs('runs textconv filter programs'), '--filters': runs('runs the configured filter programs') },
    args: 'words',
  },
  // rev-parse only prints (paths, revisions, options for scripts): any option is a read.
  'rev-parse': { flags: {}, args: 'words', anyFlags: true },
  describe: { flags: { ...sw('--all --tags --long --always --exact-match --first-parent --contains --debug'), ...opt('--dirty --broken --abbrev'), ...val('--candidates --match --exclude') }, args: 'words' },
  'show-ref': { flags: { ...sw('--head --heads --branches --tags -d --dereference --verify --exists -q --quiet -s'), ...opt('--hash --abbrev --exclude-existing') }, args: 'words' },
  'for-each-ref': { flags: { ...sw('--shell --perl --python --tcl --ignore-case --omit-empty --stdin'), ...val('--format --sort --count --points-at --merged --no-merged --contains --no-contains --exclude') }, args: 'words' },
  'merge-base': { flags: sw('-a --all --octopus --independent --is-ancestor --fork-point'), args: 'words' },
  'name-rev': { flags: { ...sw('--tags --all --stdin --annotate-stdin --name-only --no-undefined --always'), ...val('--refs --exclude') }, args: 'words' },
  'count-objects': { flags: sw('-v -H --verbose --human-readable'), args: 'none' },
  'check-ignore': { flags: sw('-q -v -n -z --quiet --verbose --non-matching --no-index --stdin'), args: 'words' },
  'check-attr': { flags: { ...sw('-a --all --cached --stdin -z'), ...val('--source') }, args: 'words' },
  var: { flags: sw('-l'), args: 'words' },
  version: { flags: sw('--build-options'), args: 'none' },
  help: { flags: sw('-a -g -c -m -i --all --guides --config --man --info --verbose --no-verbose --external-commands --aliases --user-interfaces --developer-interfaces'), danger: { '-w': runs('opens a web browser'), '--web': runs('opens a web browser') }, args: 'words' },
});

/** Subcommands whose list forms are reads and whose other forms change things. */
export const GIT_MIXED: Record<string, ((args: WordValue[], cwd: string | undefined) => Verdict) | undefined> = Object.assign(Object.create(null) as Record<string, ((args: WordValue[], cwd: string | undefined) => Verdict) | undefined>, {
  branch: (words: WordValue[], cwd: string | undefined) => {
    const args = withoutTrailingDefault(words);
    const v = checkForm('git branch', { flags: { ...sw('-a --all -r --remotes -v -vv --verbose -l --list --show-current --no-color --no-column --omit-empty -i --ignore-case'), ...opt('--color --column --abbrev'), ...val('--contains --no-contains --merged --no-merged --points-at --sort --format') }, args: 'words' }, args, cwd);
    if (v.action) return v;
    const listing = args.some((a) => a.text === '-l' || a.text === '--list');
    return listing || !args.some((a) => !a.text.startsWith('-') && !isValueOf(args, a, ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'])) ? v : { action: 'write', resources: [], reason: 'git branch NAME creates a branch' };
  },
  tag: (words: WordValue[], cwd: string | undefined) => {
    const args = withoutTrailingDefault(words);
    const v = checkForm('git tag', { flags: { ...sw('-l --list --no-column -i --ignore-case'), ...opt('-n --column --color'), ...val('--contains --no-contains --merged --no-merged --points-at --sort --format') }, args: 'words' }, args, cwd);
    if (v.action) return v;
    const listing = args.some((a) => a.text === '-l' || a.text === '--list');
    return listing || !args.some((a) => !a.text.startsWith('-') && !isValueOf(args, a, ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'])) ? v : { action: 'write', resources: [], reason: 'git tag NAME creates a tag' };
  },
  remote: (args: WordValue[], cwd: string | undefined) => {
    const pos = args.filter((a) => !a.text.startsWith('-'));
    if (pos.length === 0) return checkForm('git remote', { flags: sw('-v --verbose'), args: 'none' }, args, cwd);
    if (pos[0].text === 'get-url') return checkForm('git remote', { flags: sw('--push --all'), args: 'words' }, args, cwd);
    return { action: 'write', resources: [], reason: `git remote ${pos[0].text} is not a read` };
  },
  config: (args: WordValue[], cwd: string | undefined) => {
    const form: ReadForm = {
      flags: { ...sw('--get --get-all --get-regexp --get-urlmatch --list -l --show-origin --show-scope --name-only --global --local --system --worktree -z --null --bool --int --bool-or-int --path --expiry-date --includes --no-includes --all'), ...val('--blob --type --default --regexp --value --url'), ...file('-f --file') },
      danger: { '-e': runs('opens an editor'), '--edit': runs('opens an editor') },
      args: 'words',
    };
    const v = checkForm('git config', form, args, cwd);
    if (v.action) return v.reason?.startsWith('unknown flag') ? { action: 'write', resources: [], reason: v.reason } : v;
    const pos = args.filter((a) => !a.text.startsWith('-'));
    const mode = args.some((a) => /^--(get|get-all|get-regexp|get-urlmatch|list)$|^-l$/.test(a.text));
    if (mode || (pos.length === 1 && !/^(set|unset|edit|rename-section|remove-section)$/.test(pos[0].text)) || (pos.length >= 1 && /^(get|list)$/.test(pos[0].text))) return v;
    return { action: 'write', resources: [], reason: 'git config with a value changes configuration' };
  },
  stash: (args: WordValue[], cwd: string | undefined) => {
    const sub = args[0]?.text;
    if (sub === 'list') return checkForm('git stash list', logForm, args.slice(1), cwd);
    if (sub === 'show') return checkForm('git stash show', { flags: { ...DIFF, ...sw('-u --include-untracked --only-untracked --no-include-untracked') }, danger: DIFF_DANGER, args: 'words' }, args.slice(1), cwd);
    return { action: 'write', resources: [], reason: `git stash ${sub ?? ''} changes the working tree` };
  },
  reflog: (args: WordValue[], cwd: string | undefined) => {
    const sub = args[0]?.text;
    if (sub === undefined || sub === 'show' || sub.startsWith('-')) return checkForm('git reflog', logForm, sub === 'show' ? args.slice(1) : args, cwd);
    if (sub === 'exists') return checkForm('git reflog exists', { flags: {}, args: 'words' }, args.slice(1), cwd);
    return { action: 'write', resources: [], reason: `git reflog ${sub} changes the reflog` };
  },
  worktree: (args: WordValue[], cwd: string | undefined) => {
    if (args[0]?.text === 'list') return checkForm('git worktree list', { flags: { ...sw('--porcelain -v --verbose -z'), ...val('--expire') }, args: 'none' }, args.slice(1), cwd);
    return { action: 'write', resources: [], reason: 'git worktree changes worktrees' };
  },
  bisect: (args: WordValue[]) => {
    const sub = args[0]?.text;
    if (sub === 'log' && args.length === 1) return { action: null, resources: [] };
    if (sub === 'run') return { action: 'execute', level: 'high', resources: [], reason: 'git bisect run runs a command at every step' };
    if (sub === 'visualize' || sub === 'view') return { action: 'execute', level: 'medium', resources: [], reason: 'git bisect visualize runs gitk or git log with a pager' };
    return { action: 'write', resources: [], reason: `git bisect ${sub ?? ''} checks out commits` };
  },
  // `git apply --check/--stat/--numstat/--summary` only read the patch (without --apply,
  // --index, --cached, --3way …, which the form does not allow).
  apply: (args: WordValue[], cwd: string | undefined) => {
    const v = checkForm('git apply', { flags: { ...sw('--check --stat --numstat --summary -v --verbose -q --quiet -z -R --reverse --recount --unidiff-zero --allow-empty --inaccurate-eof --ignore-space-change --ignore-whitespace --no-add'), ...val('-p -C --exclude --include --whitespace --directory') }, args: 'words' }, args, cwd);
    if (v.action) return { action: 'write', resources: [], reason: v.reason ?? 'git apply changes files' };
    return args.some((a) => /^--(check|stat|numstat|summary)$/.test(a.text)) ? v : { action: 'write', resources: [], reason: 'git apply changes files' };
  },
  // `git clean -n` (--dry-run) only lists what it would delete.
  clean: (args: WordValue[], cwd: string | undefined) => {
    const v = checkForm('git clean', { flags: { ...sw('-n --dry-run -d -x -X -q --quiet'), ...val('-e --exclude') }, args: 'words' }, args, cwd);
    return !v.action && args.some((a) => a.text === '--dry-run' || /^-[dxXq]*n[dxXqn]*$/.test(a.text)) ? v : { action: 'delete', resources: [], reason: 'git clean deletes untracked files' };
  },
  // `git notes` (list), `git notes list`, `git notes show`: reads; add/edit/remove/prune … change notes.
  notes: (args: WordValue[], cwd: string | undefined) => {
    const sub = args.find((a, i) => !a.text.startsWith('-') && args[i - 1]?.text !== '--ref')?.text;
    if (sub === undefined || sub === 'list' || sub === 'show') return checkForm('git notes', { flags: val('--ref'), args: 'words' }, args, cwd);
    return { action: 'write', resources: [], reason: `git notes ${sub} changes notes` };
  },
  submodule: (args: WordValue[], cwd: string | undefined) => {
    if (args.length === 0 || args[0].text === 'status') return checkForm('git submodule status', { flags: sw('--cached --recursive -q --quiet'), args: 'words' }, args.slice(args.length ? 1 : 0), cwd);
    return { action: 'execute', level: 'high', resources: [], reason: `git submodule ${args[0].text} runs commands or fetches submodules` };
  },
});

/**
 * `git branch -a --merged`: these filters take a commit, HEAD when they come last (git's
 * PARSE_OPT_LASTARG_DEFAULT). The form reads them as taking the next word, so a trailing
 * one is dropped before the check (it was "no value", then a branch write: a prompt for a
 * plain listing).
 */
const LASTARG_DEFAULT = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at']);
function withoutTrailingDefault(args: WordValue[]): WordValue[] {
  const last = args[args.length - 1];
  return last && !last.dynamic && LASTARG_DEFAULT.has(last.text) ? args.slice(0, -1) : args;
}

/** Whether `a` is the value of one of `opts` (`--contains X`). */
function isValueOf(args: WordValue[], a: WordValue, opts: string[]): boolean {
  const i = args.indexOf(a);
  return i > 0 && opts.includes(args[i - 1].text);
}
