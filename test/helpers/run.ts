// Runs a process to completion with bounded time, feeding stdin and collecting output.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: SpawnOptions & { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // Own process group, so a timeout can kill grandchildren too: one left holding our
    // pipes would keep the test file alive until the runner's 10-minute timeout.
    const p = spawn(cmd, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        if (p.pid) process.kill(-p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d) => (stdout += d.toString()));
    p.stderr!.on('data', (d) => (stderr += d.toString()));
    const t = setTimeout(() => {
      killGroup();
      p.stdout!.destroy();
      p.stderr!.destroy();
      reject(new Error(`${cmd} ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 30_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    p.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    p.on('close', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, stdout, stderr });
    });
    p.stdin!.on('error', () => undefined);
    p.stdin!.end(opts.input ?? '');
  });
}
