// The soak (issue 6): many clients send mixed requests while the daemon is killed with
// SIGKILL and restarted, and a scripted human answers the prompts. Afterwards, from the
// database itself:
//  - every answered request is in history with the decision the client was given;
//  - no decision was wrong (granted → allow, deny-granted → deny, prompts as the human said);
//  - every answered bad request is recorded as a reject;
//  - SSH signatures handed out ≤ SSH allow events (recorded before answered);
//  - the hash chain verifies; the daemon's memory (VmRSS) stays under a bound.
// `npm run soak` runs the full size; test/integration/soak-short.test.ts a short one in CI.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AirlockRpcError, RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { RPC } from '../../main/contract/rpc';
import { verifySignature } from '../../main/ssh/key-material';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';
import { Store } from '../../main/store';
import { startDaemon, type Daemon } from '../helpers/daemon';
import { RawAgentClient } from '../helpers/ssh';
import { prng } from '../fuzz/lib';

export interface SoakOptions {
  clients: number;
  perClient: number;
  restarts: number;
  log?: (line: string) => void;
  /** Fail when the daemon's VmRSS ever exceeds this (MiB). */
  rssLimitMb?: number;
}

type Kind = 'allow' | 'deny' | 'ask' | 'bad' | 'parse' | 'ssh';

export interface SoakReport {
  ms: number;
  sent: Record<Kind, number>;
  answered: Record<Kind, number>;
  /** Requests whose connection died before an answer (a kill): no claim either way. */
  unanswered: number;
  restarts: number;
  events: number;
  chain: { ok: boolean; count: number; firstBad?: unknown };
  rssMaxMb: number;
  /** VmRSS of each daemon run, sampled at its end (MiB). */
  rssPerRun: number[];
  wrong: string[];
  missing: string[];
}

const NS = 'soak';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** What the scripted human answers: a pure function of the prompt, so clients know it. */
const humanSays = (resource: string | null): 'allow' | 'deny' => (Number(/\/(\d+)$/.exec(resource ?? '')?.[1] ?? 1) % 2 === 0 ? 'allow' : 'deny');

function sshsig(i: number): Buffer {
  const h = crypto.createHash('sha512').update(`soak ${i}`).digest();
  return Buffer.concat([Buffer.from('SSHSIG'), new Writer().string(NS).string('').string('sha512').string(h).toBuffer()]);
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => undefined);
  const t0 = Date.now();
  let d: Daemon = await startDaemon();
  const home = d.home;
  const kinds: Kind[] = ['allow', 'deny', 'ask', 'bad', 'parse', 'ssh'];
  const zero = () => Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
  const report: SoakReport = {
    ms: 0, sent: zero(), answered: zero(), unanswered: 0, restarts: 0, events: 0, chain: { ok: false, count: 0 }, rssMaxMb: 0, rssPerRun: [], wrong: [], missing: [],
  };
  const wrong = (m: string) => {
    if (report.wrong.length < 50) report.wrong.push(m);
  };

  // --- setup: grants and an SSH key, through ui.sock as a human would ---------------------
  const ui0 = await d.ui();
  const allowG = (await ui0.call<{ grant: { id: string } }>('grants.create', { action: 'write', tool: 'soak.tool', resource: '/soak/**', effect: 'allow', note: 'soak allow' })).grant.id;
  const denyG = (await ui0.call<{ grant: { id: string } }>('grants.create', { action: 'delete', tool: 'soak.tool', effect: 'deny', note: 'soak deny' })).grant.id;
  const key = (await ui0.call<{ key: { fingerprint: string; publicKey: string } }>('keys.generate', { type: 'ed25519', name: 'soak' })).key;
  await ui0.call('grants.create', { action: 'sign', source: 'ssh', resource: `sshsig:${NS}`, key: key.fingerprint, effect: 'allow', note: 'soak ssh' });
  ui0.close();
  const keyBlob = Buffer.from(key.publicKey.split(' ')[1]!, 'base64');

  // Answered requests to look up afterwards: event id → what the client was told.
  const answeredEvents = new Map<number, { decision: string; resource: string }>();
  const badMarkers = new Set<string>();
  let sshSigned = 0;
  let done = 0;
  const total = opts.clients * opts.perClient;
  let stopping = false;

  // --- the scripted human: reconnects after every kill, answers by humanSays -------------
  const decided = new Set<string>();
  const human = (async () => {
    for (let round = 0; !stopping && round < 100_000; round++) {
      let ui: RpcClient;
      try {
        ui = await RpcClient.connect(d.uiSock, 1000);
      } catch {
        await sleep(50);
        continue;
      }
      const answer = (p: Prompt) => {
        if (decided.has(p.id)) return;
        decided.add(p.id);
        ui.call('pending.decide', { id: p.id, decision: humanSays(p.resource), scope: 'once' }).catch(() => undefined);
      };
      ui.onNotification = (m, params) => {
        if (m === 'pending.added') answer(params as Prompt);
      };
      try {
        await ui.call('subscribe');
        // Notifications can be missed across a restart: look at the list as well.
        for (let i = 0; !stopping && i < 1_000_000; i++) {
          const { prompts } = await ui.call<{ prompts: Prompt[] }>('pending.list', {});
          prompts.forEach(answer);
          await sleep(200);
        }
      } catch {
        // the daemon was killed: reconnect
      }
      ui.close();
    }
  })();

  // --- the killer: SIGKILL at evenly spaced points of progress, then restart ----------------
  let rssMax = 0;
  const killer = (async () => {
    for (let k = 1; k <= opts.restarts; k++) {
      const at = Math.floor((total * k) / (opts.restarts + 1));
      for (let i = 0; done < at && !stopping && i < 10_000_000; i++) {
        rssMax = Math.max(rssMax, rssMb(d.proc.pid));
        await sleep(20);
      }
      if (stopping) return;
      report.rssPerRun.push(Math.round(rssMb(d.proc.pid)));
      await d.kill();
      d = await d.restart();
      report.restarts++;
      log(`kill -9 #${k} at ${done}/${total} requests; restarted (pid ${d.proc.pid})`);
    }
  })();

  const progress = setInterval(() => {
    const rate = Math.round(done / ((Date.now() - t0) / 1000));
    log(`${done}/${total} requests (${rate}/s), ${report.restarts}/${opts.restarts} restarts, daemon RSS ${rssMb(d.proc.pid).toFixed(0)} MiB`);
  }, 5000);

  // --- the clients ------------------------------------------------------------------------
  const client = async (c: number) => {
    const r = prng(0x50a1 + c);
    let rpc: RpcClient | null = null;
    let agent: RawAgentClient | null = null;
    const connect = async <T>(open: () => Promise<T>): Promise<T> => {
      for (let i = 0; i < 600; i++) {
        try {
          return await open();
        } catch {
          await sleep(50); // the daemon is restarting
        }
      }
      throw new Error(`client ${c}: the daemon did not come back within 30 s`);
    };
    for (let n = 0; n < opts.perClient; n++, done++) {
      const roll = r.int(100);
      const kind: Kind = roll < 45 ? 'allow' : roll < 65 ? 'deny' : roll < 75 ? 'ask' : roll < 85 ? 'bad' : roll < 92 ? 'parse' : 'ssh';
      report.sent[kind]++;
      try {
        if (kind === 'ssh') {
          agent ??= await connect(() => RawAgentClient.connect(d.agentSock));
          const data = sshsig(c * 1_000_000 + n);
          const resp = await agent.request(new Writer().byte(MSG.SIGN_REQUEST).string(keyBlob).string(data).uint32(0).toBuffer(), 30_000);
          if (resp[0] !== MSG.SIGN_RESPONSE) wrong(`client ${c} #${n}: granted signature answered with message ${resp[0]}`);
          else if (!verifySignature(keyBlob, resp.subarray(5, 5 + resp.readUInt32BE(1)), data)) wrong(`client ${c} #${n}: signature does not verify`);
          else sshSigned++;
          report.answered.ssh++;
          continue;
        }
        rpc ??= await connect(() => RpcClient.connect(d.requestSock, 1000));
        if (kind === 'parse') {
          rpc.writeRaw(`{"soak": parse error ${c}/${n}\n`);
          report.answered.parse++; // no reply to wait for; the next call is answered after it
          continue;
        }
        if (kind === 'bad') {
          const marker = `soak-bad-${c}-${n}`;
          try {
            await rpc.call('request', { source: 'nowhere', tool: 'soak.tool', action: 'write', summary: marker });
            wrong(`client ${c} #${n}: an invalid request was answered`);
          } catch (e) {
            if (!(e instanceof AirlockRpcError)) throw e;
            if (e.code !== RPC.invalidParams) wrong(`client ${c} #${n}: invalid request got ${e.code} ${e.message}`);
            badMarkers.add(marker);
            report.answered.bad++;
          }
          continue;
        }
        const action = kind === 'allow' ? 'write' : kind === 'deny' ? 'delete' : 'transfer';
        const resource = `/soak/${kind}/${c}/${n}`;
        const a = await rpc.call<AgentAnswer>('request', { source: 'api', tool: kind === 'ask' ? 'soak.ask' : 'soak.tool', action, resource, summary: `soak ${kind} ${c}/${n}` });
        const expected = kind === 'allow' ? 'allow' : kind === 'deny' ? 'deny' : humanSays(resource);
        const expectedGrant = kind === 'allow' ? allowG : kind === 'deny' ? denyG : undefined;
        if (a.decision !== expected || a.grant !== expectedGrant) wrong(`client ${c} #${n} (${kind}): got ${a.decision} by ${a.grant ?? 'no grant'} (${a.reason}), expected ${expected}`);
        answeredEvents.set(a.event, { decision: a.decision, resource });
        report.answered[kind]++;
      } catch (e) {
        if (e instanceof AirlockRpcError) {
          wrong(`client ${c} #${n} (${kind}): error ${e.code} ${e.message}`);
          continue;
        }
        // The connection died (a kill): this request has no answer; reconnect for the next.
        report.unanswered++;
        rpc?.close();
        agent?.close();
        rpc = null;
        agent = null;
      }
    }
    rpc?.close();
    agent?.close();
  };

  try {
    await Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c)));
    await killer;
  } finally {
    stopping = true;
    clearInterval(progress);
    await human;
    report.rssPerRun.push(Math.round(rssMb(d.proc.pid)));
    rssMax = Math.max(rssMax, rssMb(d.proc.pid));
    await d.stop();
  }
  report.rssMaxMb = Math.round(rssMax);

  // --- check history from the database itself ------------------------------------------------
  log(`load done in ${((Date.now() - t0) / 1000).toFixed(0)} s; checking ${answeredEvents.size} answered events, ${badMarkers.size} rejects, ${sshSigned} signatures`);
  const store = new Store(path.join(home, 'airlock.db'), { readonly: true });
  try {
    report.chain = store.verifyChain();
    report.events = report.chain.count;
    for (const [id, want] of answeredEvents) {
      const e = store.getEvent(id);
      if (!e) {
        if (report.missing.length < 50) report.missing.push(`event ${id} (${want.resource}) was answered but is not in history`);
      }
      else if (e.decision !== want.decision || e.resource !== want.resource) wrong(`event ${id}: history says ${e.decision} ${e.resource}, the client was told ${want.decision} ${want.resource}`);
    }
    let sshAllowed = 0;
    const seenBad = new Set<string>();
    for (const q of [{ decision: 'reject' as const }, { source: 'ssh', decision: 'allow' as const }]) {
      let cursor: string | null = null;
      for (let page = 0; page < 100_000; page++) {
        const res: ReturnType<Store['queryHistory']> = store.queryHistory({ ...q, limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const e of res.events) {
          if (q.decision === 'allow') sshAllowed++;
          else {
            const m = /soak-bad-\d+-\d+/.exec(typeof e.args === 'string' ? e.args : JSON.stringify(e.args));
            if (m) seenBad.add(m[0]);
          }
        }
        cursor = res.cursor;
        if (!cursor) break;
      }
    }
    for (const m of badMarkers) if (!seenBad.has(m) && report.missing.length < 50) report.missing.push(`bad request ${m} was answered with an error but is not recorded`);
    if (sshAllowed < sshSigned) report.missing.push(`${sshSigned} signatures were handed out but only ${sshAllowed} SSH allows are in history`);
  } finally {
    store.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
  if (opts.rssLimitMb && report.rssMaxMb > opts.rssLimitMb) wrong(`daemon RSS reached ${report.rssMaxMb} MiB (limit ${opts.rssLimitMb})`);
  report.ms = Date.now() - t0;
  return report;
}
