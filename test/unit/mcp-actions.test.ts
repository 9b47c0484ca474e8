// The one annotation → action mapping the MCP proxy, the Claude Code hook and the daemon
// share (main/core/classify/mcp.ts), as a table.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpAction, nameActs, nameRemoves, outboundArgument } from '../../main/core/classify/mcp';

// server-filesystem's own annotations (node_modules/@modelcontextprotocol/server-filesystem).
const FS = {
  read_text_file: { readOnlyHint: true, openWorldHint: false },
  write_file: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
  edit_file: { readOnlyHint: false, idempotentHint: false, destructiveHint: true, openWorldHint: false },
  create_directory: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  move_file: { readOnlyHint: false, idempotentHint: false, destructiveHint: true, openWorldHint: false },
};

describe('MCP actions from annotations', () => {
  const cases: [string, string, Parameters<typeof mcpAction>[1], unknown, string, string][] = [
    // name, tool, info, args, action, origin
    ['readOnlyHint is a read', 'read_text_file', { annotations: FS.read_text_file }, { path: '/a' }, 'read', 'annotation'],
    ['write_file (destructiveHint) is a write, not a delete', 'write_file', { annotations: FS.write_file }, { path: '/a', content: 'x' }, 'write', 'annotation'],
    ['edit_file is a write', 'edit_file', { annotations: FS.edit_file }, { path: '/a' }, 'write', 'annotation'],
    ['move_file is a write (the risk says it moves)', 'move_file', { annotations: FS.move_file }, { source: '/a', destination: '/b' }, 'write', 'annotation'],
    ['create_directory is a write', 'create_directory', { annotations: FS.create_directory }, { path: '/a' }, 'write', 'annotation'],
    ['not read-only, no hints: write', 'frob', { annotations: {} }, {}, 'write', 'annotation'],
    ['null annotations of a listed tool: write', 'frob', { annotations: null }, {}, 'write', 'annotation'],
    ['only a real true counts', 'frob', { annotations: { readOnlyHint: 'yes' } }, {}, 'write', 'annotation'],
    ['delete: name says so, destructive', 'delete_message', { annotations: { destructiveHint: true } }, { id: '1' }, 'delete', 'annotation'],
    ['delete: name says so, destructiveHint absent (defaults to destructive)', 'trash_thread', { annotations: {} }, {}, 'delete', 'annotation'],
    ['delete: description says so', 'tidy', { annotations: { destructiveHint: true }, description: 'Permanently removes the given messages.' }, {}, 'delete', 'annotation'],
    ['destructiveHint false forbids delete', 'remove_label', { annotations: { destructiveHint: false } }, {}, 'write', 'annotation'],
    ['prose "empty" in a description is not a removal', 'mk', { annotations: {}, description: 'Creates a folder; it may be empty.' }, {}, 'write', 'annotation'],
    ['open world + recipient: transfer', 'send_email', { annotations: { openWorldHint: true } }, { to: 'x@evil.example', body: 'hi' }, 'transfer', 'annotation'],
    ['open world + URL value: transfer', 'post', { annotations: { openWorldHint: true } }, { target: 'https://evil.example/x' }, 'transfer', 'annotation'],
    ['open world, read-only, URL: transfer (like WebFetch)', 'fetch', { annotations: { readOnlyHint: true, openWorldHint: true } }, { url: 'https://x.example' }, 'transfer', 'annotation'],
    ['open world without an outbound argument: write', 'create_issue', { annotations: { openWorldHint: true } }, { title: 't' }, 'write', 'annotation'],
    ['read-only claim, but the name says it deletes: delete', 'get_and_delete_all_mail', { annotations: { readOnlyHint: true } }, {}, 'delete', 'annotation'],
    ['nothing known: never a read by name', 'get_mail', null, {}, 'write', 'name'],
    ['nothing known: list_* is not a read either', 'list_directory', null, {}, 'write', 'name'],
    ['nothing known, name removes: delete', 'get_and_delete_all_mail', null, {}, 'delete', 'name'],
    ['camelCase names are split', 'deleteAllMail', null, {}, 'delete', 'name'],
  ];
  for (const [name, tool, info, args, action, origin] of cases) {
    test(name, () => {
      const r = mcpAction(tool, info, args);
      assert.equal(r.action, action);
      assert.equal(r.origin, origin);
      assert.ok(r.reasons.length > 0, 'says where the action came from');
    });
  }

  test('destructiveHint on a write raises the risk instead of changing the action', () => {
    const r = mcpAction('write_file', { annotations: FS.write_file }, { path: '/a' });
    assert.equal(r.action, 'write');
    assert.ok(r.reasons.some((x) => x.level === 'medium' && /destructive/.test(x.reason)), JSON.stringify(r.reasons));
    const m = mcpAction('move_file', { annotations: FS.move_file }, {});
    assert.ok(m.reasons.some((x) => /moves or renames/.test(x.reason)), JSON.stringify(m.reasons));
    const d = mcpAction('get_and_delete_all_mail', { annotations: { readOnlyHint: true } }, {});
    assert.ok(d.reasons.some((x) => x.level === 'high'), 'a read-only claim that contradicts the name is high risk');
  });

  test('red team, fifth wave: readOnlyHint is the server\'s claim; a name that says it runs, sends or writes is not a read', () => {
    // A hostile (or sloppy) server marks every tool read-only: before this, each was a silent read.
    const hostile: [string, string][] = [
      ['run_command', 'execute'], ['execute_sql', 'execute'], ['shell_exec', 'execute'], ['bash', 'execute'], ['evalPython', 'execute'], ['npm_install', 'execute'],
      ['terminal_input', 'execute'], ['invoke_lambda', 'execute'],
      ['send_message', 'transfer'], ['quick_send', 'transfer'], ['post_message', 'transfer'], ['email_team', 'transfer'], ['pay', 'transfer'], ['upload_file', 'transfer'], ['publish_package', 'transfer'],
      ['write_file', 'write'], ['edit_file', 'write'], ['createIssue', 'write'], ['update_record', 'write'], ['set_config', 'write'], ['add_user', 'write'], ['move_file', 'write'], ['kill_process', 'write'], ['merge_pull_request', 'write'],
    ];
    for (const [tool, action] of hostile) {
      const r = mcpAction(tool, { annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } }, {});
      assert.equal(r.action, action, tool);
      assert.ok(r.reasons.some((x) => x.level === 'high' && /read-only but its name says/.test(x.reason)), `${tool}: ${JSON.stringify(r.reasons)}`);
    }
    // Read tools of real servers (server-filesystem, GitHub, the examples in docs/examples/mcp) stay reads.
    for (const tool of ['read_text_file', 'read_multiple_files', 'list_directory', 'directory_tree', 'search_files', 'get_file_info', 'list_allowed_directories', 'read_media_file',
      'get_commit', 'list_commits', 'get_workflow_run', 'list_workflow_runs', 'get_pull_request', 'search_code', 'get_issue', 'list_messages', 'read_message', 'get_balance', 'list_invoices',
      'get_post', 'read_email', 'list_orders', 'get_command_history', 'get_page', 'fetch', 'look']) {
      assert.equal(nameActs(tool), null, tool);
      assert.equal(mcpAction(tool, { annotations: { readOnlyHint: true } }, {}).action, 'read', tool);
    }
  });

  test('red team, fifth wave: openWorldHint defaults to true (MCP spec): a read-only tool that does not say it is closed and gets a URL or recipient is a transfer', () => {
    for (const [annotations, args] of [
      [{ readOnlyHint: true }, { url: 'https://evil.example/?q=secret' }],
      [{ readOnlyHint: true, destructiveHint: false }, { to: 'x@evil.example' }],
      [{ readOnlyHint: true, openWorldHint: 'no' }, { endpoint: 'https://evil.example' }],
    ] as const) {
      assert.equal(mcpAction('lookup', { annotations }, args).action, 'transfer', JSON.stringify([annotations, args]));
    }
    assert.equal(mcpAction('frob', { annotations: {} }, { webhook: 'https://evil.example' }).action, 'transfer', 'a write with an outbound argument, open world by default');
    // Only an explicit false closes it; without an outbound argument nothing changes.
    assert.equal(mcpAction('lookup', { annotations: { readOnlyHint: true, openWorldHint: false } }, { url: 'https://docs.example' }).action, 'read');
    assert.equal(mcpAction('lookup', { annotations: { readOnlyHint: true } }, { query: 'x' }).action, 'read');
    assert.equal(mcpAction('read_text_file', { annotations: FS.read_text_file }, { path: '/a' }).action, 'read');
  });

  test('words and outbound arguments', () => {
    assert.equal(nameRemoves('get_and_delete_all_mail'), true);
    assert.equal(nameRemoves('undelete'), false, 'whole words only');
    assert.equal(nameRemoves('read_file'), false);
    assert.equal(outboundArgument({ recipients: ['a@b.example'] }), 'recipients');
    assert.equal(outboundArgument({ note: 'mail bob@evil.example' }), null, 'an address inside prose is not a recipient field');
    assert.equal(outboundArgument({ path: 'file:///etc/passwd' }), null, 'file:// is local');
    assert.equal(outboundArgument('x'), null);
  });
});
