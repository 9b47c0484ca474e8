// The grant set and the request of test/bench/conditions.bench.ts, shared with
// test/unit/conditions-bench-shape.test.ts, which checks that the plain baseline's grants are
// really looked at (the index cannot skip them, their resource globs run) and that each
// request is allowed by the grant the bench expects.
//
// The request is an MCP payment as `airlock mcp` sends it: its `url` argument gives the
// request its resource (the host, classify/mcp.ts mcpResources). Every grant is on the
// payments server; in each pair the conditional grant and the plain grant differ only in what
// keeps them from matching: a condition, or a resource pattern for another host
// (`*.nopeN.example`: no literal first directory, so the index keeps it and its glob runs).

export const GRANTS = 1000;
export const PAY_OK = 'args.amount <= 50 && args.to in ["alice@example.com", "bob@example.com"]';
export const PAY_HOST = 'pay.example.com';

/** The grant the bench expects to allow every request (created first). */
export function payGrant(conditional: boolean): Record<string, unknown> {
  return { source: 'mcp', tool: 'payments/pay', action: 'transfer', resource: '**', effect: 'allow', note: 'bench', ...(conditional ? { when: PAY_OK } : {}) };
}

/** The plain baseline's look-alike: the same tool and action, a payment host that is not this one. */
export const lookAlike = (i: number) => `*.nope${i}.example`;

/** Grant i (1 ≤ i < GRANTS) of one run. */
export function grantOf(i: number, conditional: boolean): Record<string, unknown> {
  const base = { source: 'mcp', resource: '**' };
  switch (i % 4) {
    case 0: // checked on every request
      return conditional
        ? { ...base, tool: 'payments/pay', action: 'transfer', effect: 'deny', when: `args.to == "blocked${i}@evil.example" || args.amount > ${100_000 + i}` }
        : { ...base, tool: 'payments/pay', action: 'transfer', effect: 'deny', resource: lookAlike(i) };
    case 1: // allow grants that do not hold (checked only when no better allow holds)
      return conditional
        ? { ...base, tool: 'payments/pay', action: 'transfer', effect: 'allow', when: `args.amount <= ${i % 10} && args.to == "p${i}@example.com"` }
        : { ...base, tool: 'payments/pay', action: 'transfer', effect: 'allow', resource: lookAlike(i) };
    default: // other tools
      return { ...base, tool: `payments/tool_${i}`, action: 'transfer', effect: 'allow', ...(conditional ? { when: `args.amount <= ${i}` } : {}) };
  }
}

/** Request i: a payment of 1–50 to one of the two payees the allowing grant names. */
export const request = (i: number) => ({
  source: 'mcp',
  tool: 'payments/pay',
  action: 'transfer',
  summary: `pay ${i}`,
  resource: PAY_HOST,
  resources: [PAY_HOST],
  args: {
    arguments: { to: i % 2 ? 'alice@example.com' : 'bob@example.com', amount: 1 + (i % 50), memo: `bench ${i}`, url: `https://${PAY_HOST}/v1/transfers` },
    annotations: { openWorldHint: true },
  },
});
