import type { Command } from 'commander';
import { EXIT } from '../exit-codes';
import { CliError } from '../util';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('stdio MCP proxy: runs SERVER and asks Airlock before every tools/call (denied → isError result)')
    .argument('[server...]', 'the MCP server command, after --')
    // As with sudo: everything from the command's name on is the command's, so `airlock exec ls -d /tmp`
    // works without `--` (options go before the command).
    .passThroughOptions()
    .option('--task <id>', 'join this task instead of starting one for the session', process.env.AIRLOCK_TASK)
    .option('--name <name>', 'label of this server in requests and grants (NAME/TOOL); default: from the command')
    .addHelpText(
      'after',
      `
Example (an MCP client's server entry):
  "filesystem": { "command": "airlock", "args": ["mcp", "--name", "filesystem", "--",
                  "npx", "-y", "@modelcontextprotocol/server-filesystem", "/work"] }

Every session is a task named "mcp: NAME" that ends with the session (so "allow for this
task" lasts as long as the session); --task joins an existing task instead.
Actions come from the tool annotations in tools/list: readOnlyHint → read; not read-only →
write; delete only when the tool's name or description says it removes something;
openWorldHint with a URL/recipient/host argument → transfer; destructiveHint on a write
raises the risk. What the proxy learns is kept, so the Claude Code hook's mcp__NAME__TOOL
calls get the same action. Pin a tool's action with the mcpToolActions setting.
Exits with the server's exit code.`,
    )
    .action(async (server: string[], o: { task?: string; name?: string }) => {
      if (server.length === 0) throw new CliError('no server command: airlock mcp [--name NAME] -- SERVER [ARGS…]');
      if (o.name !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(o.name)) throw new CliError(`bad --name "${o.name}": letters, digits, _ . - (at most 64)`);
      const { McpProxy } = require('../../integrations/mcp/proxy') as typeof import('../../integrations/mcp/proxy');
      const { AirlockClient, defaultRequestSocket } = require('../../client') as typeof import('../../client');
      let client: import('../../client').AirlockClient | null = null;
      const withClient = async <T>(fn: (c: import('../../client').AirlockClient) => Promise<T>): Promise<T> => {
        for (let attempt = 0; ; attempt++) {
          try {
            client ??= await AirlockClient.connect(defaultRequestSocket());
            return await fn(client);
          } catch (e) {
            // A dropped connection is retried once on a fresh one; a real answer error is not.
            const dropped = /closed|ECONNRESET|EPIPE/.test((e as Error).message);
            if (dropped) {
              client?.close();
              client = null;
            }
            if (!dropped || attempt > 0) throw e;
          }
        }
      };
      const task = o.task || undefined;
      if (task) {
        // Joining a task that does not exist (or has ended, or whose token is not ours) would
        // start the server and fail only at its first tools/call: check before starting it.
        // task.network changes nothing; it answers only for a live task we may act as. A
        // daemon that is not running is left to the proxy (every call then answers so).
        const { AirlockRpcError } = require('../../client') as typeof import('../../client');
        try {
          await withClient((c) => c.taskNetwork(task));
        } catch (e) {
          if (e instanceof AirlockRpcError) {
            (client as import('../../client').AirlockClient | null)?.close();
            throw new CliError(`--task ${task.split('.')[0]}: ${e.message.replace(/^invalid params: (task: )?/, '')}; the MCP server was not started`, EXIT.usage);
          }
        }
      }
      // Each call asks on a connection of its own, so a call the MCP client cancels (or a client
      // that goes away) can withdraw its prompt: closing the connection is what the daemon
      // answers as "the requester disconnected" (denied, recorded, gone from the queue).
      // At most ASK_CONNECTIONS at once (the daemon takes 128 connections from one process); a
      // burst of calls waits for a slot. The session's prompts are capped per task (20), so
      // waiting prompts never hold every slot.
      const ASK_CONNECTIONS = 32;
      let open = 0;
      const slotFreed: (() => void)[] = [];
      const ask: import('../../integrations/mcp/proxy').McpProxyOptions['ask'] = async (req, signal) => {
        while (open >= ASK_CONNECTIONS) await new Promise<void>((r) => slotFreed.push(r));
        open++;
        try {
          if (signal?.aborted) throw new Error('the MCP client cancelled the call before it was asked');
          const c = await AirlockClient.connect(defaultRequestSocket());
          const withdraw = () => c.close();
          signal?.addEventListener('abort', withdraw, { once: true });
          try {
            return await c.ask(req);
          } finally {
            signal?.removeEventListener('abort', withdraw);
            c.close();
          }
        } finally {
          open--;
          slotFreed.shift()?.();
        }
      };
      // Every session is a task (`mcp: NAME`), ended with the session; --task joins one instead.
      const session: import('../../integrations/mcp/proxy').McpSessionHooks = {
        startTask: (name, cwd) => withClient((c) => c.startTask({ name, cwd })),
        endTask: async (task) => {
          await withClient((c) => c.endTask(task));
        },
        learn: async (server, tools) => {
          await withClient((c) => c.rpc.call('mcp.tools', { server, tools }));
        },
      };
      const proxy = new McpProxy({
        serverArgv: server,
        name: o.name,
        task,
        cwd: process.cwd(),
        env: process.env,
        input: process.stdin,
        output: process.stdout,
        ask,
        session,
        log: (line) => process.stderr.write(`airlock mcp: ${line}\n`),
      });
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => proxy.signal(sig));
      const exit = await proxy.run();
      (client as import('../../client').AirlockClient | null)?.close();
      const { exitLike } = require('../../integrations/exec/run') as typeof import('../../integrations/exec/run');
      // Flush what the server said before leaving.
      process.stdout.write('', () => exitLike('signal' in exit ? { kind: 'signal', signal: exit.signal } : { kind: 'exit', code: exit.code }));
    });
}
