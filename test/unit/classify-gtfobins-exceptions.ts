// GTFOBins lines (classify-gtfobins-corpus.ts ids, at GTFOBINS_COMMIT) the oracle flags
// that cannot do harm through Airlock, each with why. A line listed here that the oracle
// no longer flags fails the test, so the list cannot go stale.
export const GTFO_EXCEPTIONS: Record<string, string> = {
  'getent:privilege-escalation:0': 'getent shadow reads the shadow database: a read, judged as one; the privilege it escalates with is sudo, which is judged apart (runs as another user: high)',
  'less:command:0': 'the write of ~/.lessfilter asks (outside the task, and a file a tool runs: risk.ts); less runs it only through the LESSOPEN the user set, as any program reads its own configuration',
};

/** Lines whose invocation alone (the last line naming the program, sent as its own command) is not execute, and why that is right. */
export const GTFO_LINE_EXCEPTIONS: Record<string, string> = {
  'git:shell:1': 'git commit alone runs the hooks already there; the line that writes the hook asks every time (no grant covers .git/hooks), and in one command with the commit it is execute',
  'less:command:0': 'less runs ~/.lessfilter only through the LESSOPEN the user set; writing ~/.lessfilter asks (a file a tool runs)',
  'less:shell:0': "less's !command is typed at its prompt on a terminal; an agent's command has none, and less then copies the file out like cat",
  'more:shell:0': "more's !command is typed at its prompt on a terminal; an agent's command has none, and more then copies the file out like cat",
  'nohup:command:0': 'the line picked is `cat nohup.out`, reading what nohup wrote; `nohup CMD` itself is execute',
  'top:shell:0': "top runs its toprc pipe commands on a key press at its terminal (none for an agent); writing ~/.config/procps/toprc asks (a file a tool runs)",
};

/** Lines whose suggested grant covers the same line running `rm -rf ~` in place of /bin/sh, and why that is right. */
export const GTFO_SIBLING_EXCEPTIONS: Record<string, string> = {
  'kubectl:shell:0': "the payload is in the kubeconfig the line writes, not on kubectl's command line: `kubectl get --kubeconfig F` is execute (its exec plugin runs), and a grant for it is a grant to run what F names, as the prompt says",
  'ssh:shell:0': 'the suggestion keeps the host (ssh localhost *): a grant to run commands on a host allows any command there, and the prompt says it runs the command on localhost',
};
