// The MCP servers waiting for someone to authorize HubOS (OAuth): a notice with a link per server.
// Following the link signs in at the server's authorization server, which sends the browser back
// to HubOS's loopback callback; the server then connects and the notice goes away.
(() => {
  // Set only when the server uses MCP servers (the mcp plugin mounts their status route).
  const SERVERS = document.querySelector('meta[name="hubos-mcp-servers"]')?.getAttribute('content');
  const EVERY_MS = 5_000;
  const notice = document.getElementById('mcp-auth');
  if (!notice || !SERVERS) return;

  const safeUrl = (text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
    } catch {
      return undefined;
    }
  };

  function render(servers) {
    const waiting = servers.filter((server) => server.state === 'authorizing' && server.authorization);
    const items = [];
    for (const server of waiting) {
      const href = safeUrl(server.authorization.url);
      if (!href) continue;
      const link = document.createElement('a');
      link.href = href;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.textContent = `Authorize HubOS at “${server.name}”`;
      const item = document.createElement('li');
      item.append(link);
      items.push(item);
    }
    const list = document.createElement('ul');
    list.append(...items);
    const lead = document.createElement('p');
    lead.textContent = 'MCP servers wait for you to sign in before their tools can be used:';
    notice.replaceChildren(lead, list);
    notice.hidden = items.length === 0;
  }

  async function check() {
    const key = localStorage.getItem('hubos.apiKey');
    const headers = { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    try {
      const response = await fetch(SERVERS, { headers });
      // Not allowed (another key's page, say): nothing to show.
      if (!response.ok) return render([]);
      const { servers } = await response.json();
      render(Array.isArray(servers) ? servers : []);
    } catch {
      // The server is away for a moment: keep what is shown.
    }
  }

  void check();
  setInterval(check, EVERY_MS);
})();
