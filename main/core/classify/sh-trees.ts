// A read of a whole tree that holds the home directory's secrets. `grep -r PRIVATE ~ > notes.txt`
// reads every key in ~/.ssh, but its only path was `~`, which holds no secret by name: silent by
// the default policy, and the task never remembered a secret read, so a later upload of
// notes.txt under a grant for that host went without a prompt (black box 16; `cat ~/.ssh/id_x >
// notes.txt` makes that upload critical). A program that reads every file under a directory it
// is given (grep -r, rg, tar c, zip -r, cp -r, find … -exec) and is given the home directory, `/`
// or a directory of homes also names ~/.ssh there, so risk and the chain rules see it. Pure.
import type { WordValue } from './sh-words';

/** Whether `name ARGS` reads the contents of every file under the directories it names. */
function readsTree(name: string, args: readonly WordValue[]): boolean {
  const short = (letters: string) => args.some((a) => new RegExp(`^-[a-zA-Z0-9]*[${letters}]`).test(a.text) && !a.text.startsWith('--'));
  const long = (re: RegExp) => args.some((a) => re.test(a.text));
  switch (name) {
    case 'rg':
    case 'ag':
    case 'ack':
    case 'rgrep':
    case 'tar':
    case 'bsdtar':
      return true;
    case 'grep':
    case 'egrep':
    case 'fgrep':
      return short('rR') || long(/^--(recursive|dereference-recursive|directories=recurse)$/) || args.some((a, i) => a.text === '-d' && args[i + 1]?.text === 'recurse');
    case 'zip':
      return short('r') || long(/^--recurse-paths$/);
    case 'cp':
    case 'scp':
      return short('rRa') || long(/^--(recursive|archive)$/);
    case 'rsync':
      return short('ra') || long(/^--(recursive|archive)$/);
    case 'find':
      return long(/^-(exec|execdir|ok|okdir)$/);
    default:
      return false;
  }
}

/** The home directory (`~`), the root, or a directory of homes, as the classifier writes them. */
const HOLDS_HOMES = /^(~|\/|\/home|\/Users|\/root|\/home\/[^/]+|\/Users\/[^/]+)\/?$/;

/** What else such a read names (`DIR/.ssh` for each tree that holds a home; `/`: the user's), and those trees. */
export function treeSecrets(name: string, args: readonly WordValue[], resources: readonly string[]): { trees: string[]; secrets: string[] } {
  const trees = readsTree(name, args) ? resources.filter((r) => HOLDS_HOMES.test(r)) : [];
  const secrets: string[] = [];
  for (const r of trees) {
    const dir = r.replace(/\/+$/, '');
    const ssh = `${dir === '' || dir === '/home' || dir === '/Users' ? '~' : dir}/.ssh`;
    if (!secrets.includes(ssh) && !resources.includes(ssh)) secrets.push(ssh);
  }
  return { trees, secrets };
}
