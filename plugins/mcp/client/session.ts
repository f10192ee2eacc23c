import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool as McpTool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../config.ts';
import type { HubosOAuthProvider } from './oauth-provider.ts';
import { descendantsOf, stopProcesses } from './process-tree.ts';
import { answerServerRequests, clientCapabilities, type ServerRequestsContext } from './server-requests.ts';
import { sleep } from './timeouts.ts';
import { type OpenedTransport, openTransport } from './transport.ts';

/** How long a stopping stdio child may take to exit (the SDK escalates to SIGKILL after 4 s). */
const EXIT_WAIT_MS = 5_000;

/** One connection attempt: its client and transport, opened and closed as a whole. */
export interface Session {
  client: Client;
  opened: OpenedTransport;
  /** Set once we close it ourselves: its close is then no news. */
  closing: boolean;
  /** Resolves once the transport closed (for stdio: the child exited). */
  closed: Promise<void>;
}

export interface SessionEvents {
  onClose(session: Session): void;
  onError(session: Session, error: Error): void;
  /** notifications/tools/list_changed */
  onToolsChanged(session: Session): void;
}

export interface SessionOptions {
  baseDir: string;
  version: string;
  events: SessionEvents;
  /** What the server may ask of HubOS (roots, sampling, elicitation) and who answers. */
  requests: ServerRequestsContext;
  /** HTTP: OAuth when the server asks for it. */
  oauth?: HubosOAuthProvider | undefined;
}

/** A fresh client on a fresh transport, not connected yet (throws for a config the transport refuses). */
export function openSession(config: McpServerConfig, options: SessionOptions): Session {
  const { events, version } = options;
  const opened = openTransport(config, options.baseDir, options.oauth);
  const client = new Client(
    { name: 'hubos', version },
    { capabilities: clientCapabilities(options.requests) },
  );
  answerServerRequests(client, options.requests);
  let markClosed!: () => void;
  const session: Session = {
    client,
    opened,
    closing: false,
    closed: new Promise<void>((done) => {
      markClosed = done;
    }),
  };
  client.onclose = () => {
    markClosed();
    events.onClose(session);
  };
  client.onerror = (error) => events.onError(session, error);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolsChanged(session));
  return session;
}

/** Every tool the server has, page after page (none when it does not offer tools). */
export async function listTools(client: Client, timeout: number): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < 10_000);
  return tools;
}

/** Closes a session: ends an HTTP session politely, and waits for a stdio child to be gone. */
export async function closeSession(session: Session): Promise<void> {
  session.closing = true;
  const { transport } = session.opened;
  if ('terminateSession' in transport && transport.sessionId !== undefined) {
    const terminate = (transport as { terminateSession(): Promise<void> }).terminateSession();
    await Promise.race([terminate, sleep(1_000)]).catch(() => undefined);
  }
  const pid = session.opened.pid();
  // Noted while the child still runs: once it exits, its children are re-parented and lost to us.
  const tree = pid === null ? [] : descendantsOf(pid);
  await session.client.close().catch(() => undefined);
  if (pid !== null) await Promise.race([session.closed, sleep(EXIT_WAIT_MS)]);
  await stopProcesses(tree);
}
