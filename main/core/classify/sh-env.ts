// Which variable assignments leave a command what it was. `VAR=value cmd` puts VAR in
// cmd's environment, and a plain `VAR=value` line changes it for every later command
// when VAR is already exported. Many variables change what a program runs: PATH, LD_*,
// BASH_ENV, GIT_* (GIT_CONFIG_COUNT/KEY/VALUE set any config, core.fsmonitor runs a
// program), PAGER/EDITOR, TAR_OPTIONS, RIPGREP_CONFIG_PATH, LESSOPEN, GCONV_PATH … so the
// rule is an allowlist: only the names below are harmless; any other is execute.
import type { RiskLevel } from '../../contract/common';

/** Prefix assignments that only change formatting, locale or time zone. */
const HARMLESS_EXACT = new Set([
  'LANG', 'LANGUAGE', 'TZ', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS', 'LINES', 'TERM',
  'COLORTERM', 'LS_COLORS', 'GREP_COLOR', 'GREP_COLORS', 'TIME_STYLE', 'QUOTING_STYLE', 'BLOCK_SIZE',
]);
// Not POSIXLY_CORRECT: GNU programs then stop reading options at the first file, so an
// "option" after it is a file name: `POSIXLY_CORRECT=1 uniq a.txt -c` writes a file named
// -c (uniq IN OUT), though the allowlist read -c as an option (differential fuzzer).
/** Locale names: a slash would make glibc load locale data from a path. */
const LOCALE_VALUE = /^[A-Za-z0-9_.@-]*$/;

/** Names that change what runs or how: named in the reason and given a high risk. */
const CODE_INJECTING = /^(PATH|LD_.*|DYLD_.*|BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|GIT_.*|.*PAGER.*|.*EDITOR.*|VISUAL|BROWSER|GCONV_PATH|LOCPATH|HOSTALIASES|PYTHON.*|NODE_OPTIONS|NODE_PATH|PERL5.*|PERLLIB|RUBYOPT|RUBYLIB|TAR_OPTIONS|RIPGREP_CONFIG_PATH|LESSOPEN|LESSCLOSE|LESSKEY.*|MANOPT|MANPATH|GROFF_.*|HOME|XDG_.*|SHELL|TMPDIR|CDPATH|GLOBIGNORE|MAIL.*|HIST.*|INPUTRC|TERMINFO.*|SSH_.*|KUBECONFIG|DOCKER_.*|npm_config_.*|NPM_CONFIG_.*)$/;
/** Lower-case names programs do read from the environment. */
const LOWER_ENV = /^(https?_proxy|all_proxy|no_proxy|ftp_proxy|npm_config_.*)$/i;

export interface EnvVerdict {
  level: RiskLevel;
  reason: string;
}

/**
 * A pager switched off: `GIT_PAGER=cat git log`, `PAGER= man ls` (prompt economy; agents
 * write these to keep output out of less). Only the plain names: `cat` is looked up along
 * PATH, which any PATH change asks about anyway; a path or any other value names a program.
 */
const PAGER_VARS = new Set(['PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER']);
const PAGER_OFF = new Set(['', 'cat', '/bin/cat', '/usr/bin/cat']);

function harmlessPrefix(name: string, value: string, dynamic: boolean): boolean {
  if (PAGER_VARS.has(name)) return !dynamic && PAGER_OFF.has(value);
  if (name === 'LANG' || name === 'LANGUAGE' || name.startsWith('LC_')) return /^LC_[A-Z]+$/.test(name) || name === 'LANG' || name === 'LANGUAGE' ? !dynamic && LOCALE_VALUE.test(value) : false;
  return HARMLESS_EXACT.has(name);
}

/** `VAR=value cmd`: null when harmless, else why it is not. */
export function prefixVerdict(name: string, value: string, dynamic: boolean): EnvVerdict | null {
  if (harmlessPrefix(name, value, dynamic)) return null;
  if (CODE_INJECTING.test(name)) return { level: 'high', reason: `VAR prefix ${name} changes what runs` };
  return { level: 'medium', reason: `VAR prefix ${name} is not known to be harmless (it may change what the program runs)` };
}

/**
 * A plain `VAR=value` statement: lower-case shell variables are local (nothing reads them
 * from the environment unless exported); anything else may already be exported and then
 * changes every later command.
 */
export function assignVerdict(name: string, value: string, dynamic: boolean): EnvVerdict | null {
  if (harmlessPrefix(name, value, dynamic)) return null;
  if (/^[a-z_][a-z0-9_]*$/.test(name) && !LOWER_ENV.test(name)) return null;
  if (CODE_INJECTING.test(name) || LOWER_ENV.test(name)) return { level: 'high', reason: `sets ${name}, which changes how later commands run` };
  return { level: 'medium', reason: `sets ${name}, which later commands may read from their environment` };
}
