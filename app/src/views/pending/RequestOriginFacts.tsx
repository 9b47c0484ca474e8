// Facts of a prompt that only some sources have (kept apart from PromptCard):
// - MCP (issue 14): which server, and where the action came from — the server's
//   annotations, the user's pin, or only the tool's name;
// - egress (issue 16): where the connection goes (host, port, the address when it is known
//   without a DNS query), and what the task has sent so far.
import type { Prompt } from '../../../../preload/types';
import { ACTION_ORIGIN_WORDS, bytesInWords } from '../../../../shared/request-origin';
import { V } from '../../components/Visible';

export function McpFacts({ prompt }: { prompt: Prompt }) {
  if (!prompt.actionOrigin && !prompt.mcpServer) return null;
  return (
    <section className="facts origin" data-testid="mcp-facts" aria-label="MCP server and where the action came from">
      <h3>MCP</h3>
      <dl>
        {prompt.mcpServer && (
          <>
            <dt>Server</dt>
            <dd className="mono" data-testid="mcp-server"><V text={prompt.mcpServer} /></dd>
          </>
        )}
        {prompt.actionOrigin && (
          <>
            <dt>“{prompt.action}” from</dt>
            <dd data-testid="action-origin" data-origin={prompt.actionOrigin}>{ACTION_ORIGIN_WORDS[prompt.actionOrigin]}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

export function EgressFacts({ prompt }: { prompt: Prompt }) {
  const e = prompt.egress;
  if (!e) return null;
  return (
    <section className="facts origin" data-testid="egress-facts" aria-label="Where the connection goes">
      <h3>Where to</h3>
      <dl>
        <dt>Host</dt>
        <dd className="mono strong" data-testid="egress-host"><V text={e.host} /></dd>
        <dt>Port</dt>
        <dd className="mono" data-testid="egress-port">{e.port}</dd>
        <dt>Address</dt>
        <dd className="mono" data-testid="egress-address">{e.address ? <V text={e.address} /> : <span className="muted">resolved by Airlock only once allowed (a DNS query is itself a way out)</span>}</dd>
        <dt>How</dt>
        <dd className="mono">{e.method === 'CONNECT' ? 'CONNECT (a tunnel, HTTPS untouched unless a secret needs it)' : <V text={e.method} />}</dd>
        <dt>Sent so far</dt>
        <dd data-testid="egress-sent">
          {bytesInWords(e.sentBytes)} out, {bytesInWords(e.receivedBytes)} in, to {e.destinations} destination{e.destinations === 1 ? '' : 's'}
        </dd>
        {e.secrets && e.secrets.length > 0 && (
          <>
            <dt>Secrets</dt>
            <dd className="mono" data-testid="egress-secrets"><V text={e.secrets.join(', ')} /></dd>
          </>
        )}
      </dl>
    </section>
  );
}
