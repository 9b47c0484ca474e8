// The egress proxy's entry point for the daemon (main/api/egress-sockets.ts wires it in).
export { EgressProxy, type ProxyPeer } from './proxy';
export { NODE_PRELOAD_SOURCE } from './node-preload';
export { newPlaceholder, type TaskSecret } from './placeholders';
export { fixedDnsLookup, parseFixedHosts, Resolver } from './resolve';
export { SecretStore, type Sealer } from './secret-store';
export type { TaskCa } from './task-ca';
export { loadTrust, type Trust } from './trust';
