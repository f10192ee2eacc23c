// The HubOS chat page: vanilla JS, no build step. Talks to the REST + SSE API of the server that serves it.

const API = document.querySelector('meta[name="hubos-api"]')?.getAttribute('content') || '/api';
const KEY_STORAGE = 'hubos.apiKey';
const AGENT_STORAGE = 'hubos.agent';
const CHAT_STORAGE = 'hubos.chat.';
const SHOWN_LIMIT = 100_000;
const STORED_LIMIT = 20_000;

const $ = (id) => document.getElementById(id);
const el = {
  agent: $('agent'),
  newChat: $('new-chat'),
  keyButton: $('key-button'),
  loadError: $('load-error'),
  log: $('log'),
  empty: $('empty'),
  main: document.querySelector('main'),
  form: $('composer'),
  message: $('message'),
  send: $('send'),
  stop: $('stop'),
  status: $('status'),
  keyDialog: $('key-dialog'),
  keyForm: $('key-form'),
  keyReason: $('key-reason'),
  keyInput: $('key-input'),
  keyCancel: $('key-cancel'),
};

const state = { agents: [], agent: undefined, chat: undefined, controller: undefined, view: 'chat' };

// ---------------------------------------------------------------- helpers

function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  node.append(...children.filter((child) => child !== undefined && child !== null));
  return node;
}

function clip(text, limit) {
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

function show(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function oneLine(value) {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function storage(kind) {
  try {
    return kind === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return undefined;
  }
}

function setStatus(text) {
  el.status.textContent = text;
}

/** An error with the server's `{ error: { code, message } }` shape when it sent one. */
class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function responseError(response) {
  let code = `HTTP_${response.status}`;
  let message = response.statusText || 'the request failed';
  try {
    const text = await response.text();
    try {
      const body = JSON.parse(text);
      if (body?.error?.message) ({ code = code, message } = body.error);
    } catch {
      if (text.trim()) message = text.trim().slice(0, 500);
    }
  } catch {
    // keep the status line
  }
  return new ApiError(code, message, response.status);
}

// ---------------------------------------------------------------- API key

function askKey(reason, signal) {
  return new Promise((resolve) => {
    const dialog = el.keyDialog;
    el.keyReason.textContent = reason;
    el.keyInput.value = '';
    const finish = (key) => {
      dialog.removeEventListener('close', onClose);
      signal?.removeEventListener('abort', onAbort);
      if (dialog.open) dialog.close();
      resolve(key);
    };
    const onClose = () => {
      const key = dialog.returnValue === 'ok' ? el.keyInput.value.trim() : '';
      if (key) storage('local')?.setItem(KEY_STORAGE, key);
      if (key) el.keyButton.hidden = false;
      finish(key || undefined);
    };
    const onAbort = () => finish(undefined);
    dialog.returnValue = '';
    dialog.addEventListener('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
    dialog.showModal();
    el.keyInput.focus();
  });
}

el.keyCancel.addEventListener('click', () => el.keyDialog.close(''));
el.keyButton.addEventListener('click', () => askKey('Enter a new API key for this server.'));

let keyPrompt; // the open key dialog: requests refused at the same time (agents, workflows) share it

/** fetch with the stored API key; a 401 asks for a key and tries again (until the user cancels). */
async function request(path, init = {}) {
  for (;;) {
    const headers = new Headers(init.headers);
    const key = storage('local')?.getItem(KEY_STORAGE);
    if (key) headers.set('authorization', `Bearer ${key}`);
    const response = await fetch(path, { ...init, headers });
    if (response.status !== 401) return response;
    const error = await responseError(response);
    // Another request's dialog got a key meanwhile: try that one first.
    if (storage('local')?.getItem(KEY_STORAGE) !== key) continue;
    const reason = key
      ? `The server refused the stored key (${error.message}). Enter a valid API key.`
      : 'This server asks for an API key.';
    keyPrompt ??= askKey(reason, init.signal).finally(() => {
      keyPrompt = undefined;
    });
    const entered = await keyPrompt;
    init.signal?.throwIfAborted();
    if (!entered) throw new ApiError(error.code, `${error.message} (no API key given)`, 401);
  }
}

// ---------------------------------------------------------------- conversation (kept per agent in sessionStorage)

function loadChat(agent) {
  try {
    const saved = JSON.parse(storage('session')?.getItem(CHAT_STORAGE + agent) ?? 'null');
    if (saved && typeof saved.sessionId === 'string' && Array.isArray(saved.items)) return saved;
  } catch {
    // start over
  }
  return { sessionId: randomId(), items: [] };
}

function saveChat(agent, chat) {
  const stored = (approval) =>
    approval && { ...approval, input: clip(show(approval.input), STORED_LIMIT), busy: undefined };
  const items = chat.items.map((item) => {
    if (item.kind !== 'tool') return item;
    return {
      ...item,
      args: clip(item.args ?? '', STORED_LIMIT),
      result: clip(item.result ?? '', STORED_LIMIT),
      content: storableParts(item.content, STORED_LIMIT),
      approval: stored(item.approval),
      questions: item.questions?.map(stored),
    };
  });
  try {
    storage('session')?.setItem(CHAT_STORAGE + agent, JSON.stringify({ sessionId: chat.sessionId, items }));
  } catch {
    // storage full or unavailable: the conversation still continues on the server
  }
}

// ---------------------------------------------------------------- rendering

function nearBottom() {
  const { scrollTop, scrollHeight, clientHeight } = el.main;
  return scrollHeight - scrollTop - clientHeight < 80;
}

let scrollQueued = false;
function keepScrolled(wasNearBottom) {
  if (!wasNearBottom || scrollQueued) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    el.main.scrollTop = el.main.scrollHeight;
  });
}

/** Renders one item; returns its node and an `update()` for streamed changes. */
function renderItem(item) {
  switch (item.kind) {
    case 'user':
      return {
        node: h(
          'li',
          { class: 'msg user' },
          h('span', { class: 'who' }, 'You'),
          h('div', { class: 'bubble' }, item.text),
        ),
      };
    case 'assistant': {
      const text = document.createTextNode(item.text);
      const bubble = h('div', { class: 'bubble' }, text);
      return {
        node: h('li', { class: 'msg assistant' }, h('span', { class: 'who' }, item.agent ?? 'Agent'), bubble),
        append(delta) {
          text.appendData(delta);
        },
        busy(on) {
          if (on) bubble.setAttribute('aria-busy', 'true');
          else bubble.removeAttribute('aria-busy');
        },
      };
    }
    case 'tool': {
      const preview = h('code', { class: 'preview' });
      const badge = h('span', { class: 'badge' });
      const args = h('pre', { class: 'args', tabindex: '0' });
      const result = h('pre', { class: 'result', tabindex: '0' });
      const resultTitle = h('h3', {}, 'Result');
      const parts = h('div', { class: 'parts' });
      const logTitle = h('h3', { hidden: true }, 'Log');
      const log = h('ol', { class: 'tool-log', hidden: true });
      const media = h('div', { class: 'tool-media', hidden: true });
      const details = h(
        'details',
        {},
        h(
          'summary',
          {},
          h('span', { class: 'tool-label' }, 'Tool '),
          h('code', { class: 'tool-name' }, item.name),
          preview,
          badge,
        ),
        h(
          'div',
          { class: 'tool-body' },
          h('h3', {}, 'Arguments'),
          args,
          resultTitle,
          result,
          parts,
          logTitle,
          log,
        ),
      );
      const node = h('li', { class: 'tool' }, details, media);
      let box; // the approval prompt, once the call waits for one
      const questionForms = new Map(); // each question of the call (tc.elicit): its form
      let shownParts; // the parts drawn so far (they come once, with the result)
      let shownLogs = 0;
      const update = () => {
        const asked = item.approval?.status;
        const questioning = item.status === 'running' && item.questions?.some((q) => q.status === 'pending');
        node.dataset.status = item.status;
        if (asked) node.dataset.approval = asked;
        if (questioning) node.dataset.approval = 'pending';
        else if (!asked) delete node.dataset.approval;
        preview.textContent = item.input !== undefined ? oneLine(item.input) : oneLine(item.args ?? '');
        args.textContent = clip(item.args ?? '', SHOWN_LIMIT) || '(none yet)';
        badge.textContent =
          item.status === 'running'
            ? asked === 'pending'
              ? 'needs approval'
              : questioning
                ? 'asks you'
                : 'running…'
            : item.status === 'ok'
              ? `done${item.durationMs !== undefined ? ` · ${item.durationMs} ms` : ''}`
              : asked && asked !== 'approved'
                ? asked.replace('unanswered', 'not decided')
                : 'failed';
        resultTitle.textContent = item.status === 'error' ? 'Error' : 'Result';
        result.textContent =
          item.status === 'running'
            ? asked === 'pending'
              ? 'waiting for approval…'
              : questioning
                ? 'waiting for your answer…'
                : 'waiting…'
            : clip(item.result ?? '', SHOWN_LIMIT);
        // A rich result shows its parts instead (and its structured data, when it has some).
        result.hidden = Boolean(item.content) && item.structured === undefined;
        if (item.content && shownParts !== item.content) {
          shownParts = item.content;
          const drawn = renderParts(item.content, item.name, SHOWN_LIMIT);
          parts.replaceChildren(...drawn.details);
          media.replaceChildren(...drawn.media);
          media.hidden = drawn.media.length === 0;
          if (item.structured !== undefined) result.textContent = clip(show(item.structured), SHOWN_LIMIT);
        }
        const logs = item.logs ?? [];
        if (logs.length < shownLogs) log.replaceChildren();
        for (const entry of logs.slice(log.childElementCount))
          log.append(
            h(
              'li',
              { 'data-level': entry.level },
              h('span', { class: 'level' }, entry.level),
              ' ',
              entry.message,
              entry.data !== undefined ? h('code', {}, ` ${entry.data}`) : undefined,
            ),
          );
        shownLogs = logs.length;
        log.hidden = logTitle.hidden = logs.length === 0;
        if (item.status === 'error') details.open = true;
        if (item.approval) {
          box ??= approvalView(item, update);
          if (box.node.parentNode !== node) node.append(box.node);
          box.update();
        }
        for (const approval of item.questions ?? []) {
          let form = questionForms.get(approval);
          if (!form) {
            form = approvalView({ approval }, update);
            questionForms.set(approval, form);
          }
          if (form.node.parentNode !== node) node.append(form.node);
          form.update();
        }
        // The result's media come last, after the questions that led to them.
        if (!media.hidden && node.lastElementChild !== media) node.append(media);
      };
      update();
      const focusApproval = () => {
        const waiting = [...questionForms.values()].at(-1);
        if (item.questions?.at(-1)?.status === 'pending' && waiting) waiting.focus();
        else box?.node.focus();
      };
      return { node, update, focusApproval };
    }
    case 'error':
      return {
        node: h(
          'li',
          { class: 'error', role: 'alert' },
          h('strong', {}, item.code ? `${item.code}: ` : 'Error: '),
          item.message,
        ),
      };
    default:
      return { node: h('li', { class: 'note' }, item.text ?? '') };
  }
}

// ---------------------------------------------------------------- approvals

const OUTCOMES = {
  approved: 'Approved: the tool runs.',
  denied: 'Denied: the tool was not run.',
  expired: 'Expired: nobody answered in time, so the tool was not run.',
  cancelled: 'Cancelled: the run ended while the call waited, so the tool was not run.',
  unanswered: 'Not decided: the run ended while the call waited.',
};

let approvalCount = 0;

function timeLeft(expiresAt) {
  const ms = Date.parse(expiresAt) - Date.now();
  if (!(ms > 0)) return 'now';
  const seconds = Math.ceil(ms / 1000);
  return `in ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * The prompt of a call waiting for approval: what would run, why it asks, Approve / Deny, the
 * outcome. A tool's question (an approval carrying `question`) is a form instead: questionView.
 */
function approvalView(item, refresh) {
  const approval = item.approval;
  if (approval.question) return questionView(item, refresh);
  const id = `approval-${++approvalCount}`;
  const expires = Date.parse(approval.expiresAt);
  const left = h('span', { class: 'left' });
  const reason = h('input', {
    id: `${id}-reason`,
    class: 'reason',
    type: 'text',
    maxlength: '2000',
    autocomplete: 'off',
    placeholder: 'Optional, told to the agent',
  });
  const approve = h('button', { type: 'button', class: 'approve' }, 'Approve');
  const deny = h('button', { type: 'button', class: 'danger deny' }, 'Deny');
  const controls = h(
    'div',
    { class: 'approval-controls' },
    h('label', { for: `${id}-reason`, class: 'reason-label' }, 'Reason for denying'),
    reason,
    approve,
    deny,
  );
  const title = h('span', {});
  const inputRow = [
    h('dt', {}, 'Input'),
    h('dd', {}, h('pre', { tabindex: '0' }, clip(show(approval.input), SHOWN_LIMIT) || '(none)')),
  ];
  const expiresRow = [
    h('dt', {}, 'Expires'),
    h(
      'dd',
      {},
      h(
        'time',
        { datetime: approval.expiresAt },
        Number.isNaN(expires) ? String(approval.expiresAt) : new Date(expires).toLocaleTimeString(),
      ),
      ' ',
      left,
    ),
  ];
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const error = h('p', { class: 'approval-error', role: 'alert', tabindex: '-1', hidden: true });
  const node = h(
    'section',
    { class: 'approval', 'aria-labelledby': `${id}-title`, tabindex: '-1' },
    h('h3', { id: `${id}-title` }, title, h('code', {}, approval.tool)),
    h(
      'dl',
      {},
      ...inputRow,
      h('dt', {}, 'Permissions'),
      h(
        'dd',
        {},
        ...(approval.permissions?.length
          ? approval.permissions.flatMap((name, i) => [i ? ', ' : '', h('code', {}, name)])
          : ['none declared']),
      ),
      h('dt', {}, 'Rule'),
      h('dd', {}, approval.rule ? h('code', {}, `ask '${approval.rule}'`) : 'ask'),
      ...expiresRow,
    ),
    controls,
    outcome,
    error,
  );

  const choose = async (approved) => {
    const why = reason.value.trim();
    await decide(
      item,
      approved ? { approved: true } : { approved: false, ...(why ? { reason: why } : {}) },
      refresh,
    );
    // The buttons were disabled under the focus: show the error, or go back to the message box.
    if (approval.error) error.focus();
    else if (!document.activeElement || document.activeElement === document.body) el.message.focus();
  };
  approve.addEventListener('click', () => choose(true));
  deny.addEventListener('click', () => choose(false));
  reason.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      if (!deny.disabled) choose(false);
    } else if (event.key === 'Escape' && reason.value) {
      event.stopPropagation(); // clear the reason, not stop the run
      reason.value = '';
    }
  });

  let timer;
  const update = () => {
    const pending = approval.status === 'pending';
    node.dataset.state = approval.status;
    title.textContent = pending ? 'Approval needed: ' : 'Approval: ';
    // Once decided, the input is the call's Arguments above and the expiry no longer matters.
    for (const row of [...inputRow, ...expiresRow]) row.hidden = !pending;
    controls.hidden = !pending;
    approve.disabled = deny.disabled = reason.disabled = !pending || Boolean(approval.busy);
    left.textContent = pending ? `(${timeLeft(approval.expiresAt)})` : '';
    outcome.textContent = pending
      ? approval.busy
        ? `Sending your ${approval.busy}…`
        : 'The agent waits for your decision.'
      : `${OUTCOMES[approval.status] ?? approval.status}${approval.reason ? ` Reason: ${approval.reason}` : ''}`;
    error.hidden = !approval.error;
    error.textContent = approval.error ? `${approval.error.code}: ${approval.error.message}` : '';
    if (pending && !timer) timer = setInterval(update, 1000);
    if (timer && (!pending || !node.isConnected)) timer = clearInterval(timer);
  };
  return { node, update, focus: () => node.focus() };
}

const ANSWERED = {
  approved: 'Answered.',
  denied: 'Declined: the tool was told you declined.',
  expired: 'Expired: nobody answered in time.',
  cancelled: 'Cancelled: the run ended before an answer came.',
  unanswered: 'Not answered: the run ended while the tool waited.',
};

/** A tool's question: its message, a form of the fields asked (question.js), Submit / Decline, the outcome. */
function questionView(item, refresh) {
  const approval = item.approval;
  const id = `approval-${++approvalCount}`;
  const form = questionForm(
    approval.question,
    async (content) => {
      await decide(item, { approved: true, content }, refresh);
      if (approval.error) error.focus();
    },
    async () => {
      await decide(item, { approved: false }, refresh);
      if (approval.error) error.focus();
      else if (!document.activeElement || document.activeElement === document.body) el.message.focus();
    },
  );
  const left = h('span', { class: 'left' });
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const answer = h('pre', { class: 'answer', tabindex: '0', hidden: true });
  const error = h('p', { class: 'approval-error', role: 'alert', tabindex: '-1', hidden: true });
  const title = h('span', {});
  const node = h(
    'section',
    { class: 'approval question', 'aria-labelledby': `${id}-title`, tabindex: '-1' },
    h('h3', { id: `${id}-title` }, title, h('code', {}, approval.tool), ' ', left),
    h('p', { class: 'question-message' }, clip(form.message, SHOWN_LIMIT)),
    form.node,
    outcome,
    answer,
    error,
  );
  // Typing Enter in a field submits; Escape in the form does not stop the run.
  form.node.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') event.stopPropagation();
  });

  let timer;
  const update = () => {
    const pending = approval.status === 'pending';
    node.dataset.state = approval.status;
    title.textContent = pending ? 'Question from ' : 'Question: ';
    form.node.hidden = !pending;
    form.disable(!pending || Boolean(approval.busy));
    left.textContent = pending ? `(expires ${timeLeft(approval.expiresAt)})` : '';
    outcome.textContent = pending
      ? approval.busy
        ? `Sending your ${approval.busy}…`
        : 'The tool waits for your answer.'
      : `${ANSWERED[approval.status] ?? approval.status}${approval.reason ? ` Reason: ${approval.reason}` : ''}`;
    answer.hidden = !(approval.status === 'approved' && approval.answer);
    if (!answer.hidden) answer.textContent = clip(show(approval.answer), SHOWN_LIMIT);
    error.hidden = !approval.error;
    error.textContent = approval.error ? `${approval.error.code}: ${approval.error.message}` : '';
    if (pending && !timer) timer = setInterval(update, 1000);
    if (timer && (!pending || !node.isConnected)) timer = clearInterval(timer);
  };
  return { node, update, focus: () => form.focus() };
}

/** POSTs the decision; a 409 (already decided, expired, the run gone) shows why and the recorded outcome. */
async function decide(item, decision, done) {
  const approval = item.approval;
  if (approval.status !== 'pending' || approval.busy) return;
  approval.busy = approval.question
    ? decision.approved
      ? 'answer'
      : 'decline'
    : decision.approved
      ? 'approval'
      : 'denial';
  approval.error = undefined;
  done();
  try {
    const response = await request(
      `${API}/runs/${encodeURIComponent(approval.runId)}/approvals/${encodeURIComponent(approval.callId)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(decision),
      },
    );
    const body = await response.json().catch(() => undefined);
    const record = response.ok ? body : body?.approval;
    if (record?.status && record.status !== 'pending' && approval.status === 'pending') {
      approval.status = record.status;
      approval.reason = record.reason;
      approval.answer = record.answer;
    }
    if (!response.ok)
      throw new ApiError(
        body?.error?.code ?? `HTTP_${response.status}`,
        body?.error?.message ?? (response.statusText || 'the request failed'),
        response.status,
      );
  } catch (error) {
    approval.error = {
      code: error.code ?? 'NETWORK_ERROR',
      message: error instanceof ApiError ? error.message : `could not reach the server: ${error.message}`,
    };
  } finally {
    approval.busy = undefined;
    done();
  }
}

function renderChat() {
  el.log.replaceChildren(...(state.chat?.items ?? []).map((item) => renderItem(item).node));
  el.empty.hidden = (state.chat?.items.length ?? 0) > 0;
  // A conversation opens at its latest message; an empty one at the top, where the agent panel is
  // (the panel is in the same scroller, so pinning to the bottom would scroll it out of sight).
  el.main.scrollTop = el.empty.hidden ? el.main.scrollHeight : 0;
}

function addItem(item) {
  const wasNearBottom = nearBottom();
  state.chat.items.push(item);
  const view = renderItem(item);
  el.log.append(view.node);
  el.empty.hidden = true;
  keepScrolled(wasNearBottom);
  return view;
}

// ---------------------------------------------------------------- agents

function selectAgent(name) {
  const agent = state.agents.find((candidate) => candidate.name === name) ?? state.agents[0];
  state.agent = agent;
  state.chat = agent ? loadChat(agent.name) : undefined;
  if (agent) {
    el.agent.value = agent.name;
    storage('local')?.setItem(AGENT_STORAGE, agent.name);
  }
  renderAgentPanel(agent);
  renderChat();
  setRunning(false);
}

async function loadAgents() {
  el.loadError.hidden = true;
  try {
    const response = await request(`${API}/agents`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await responseError(response);
    const { agents } = await response.json();
    state.agents = Array.isArray(agents) ? agents : [];
  } catch (error) {
    el.loadError.replaceChildren(
      h('strong', {}, `${error.code ?? 'Error'}: `),
      `could not list the agents: ${error.message} `,
      h('button', { type: 'button', class: 'quiet', id: 'retry' }, 'Retry'),
    );
    el.loadError.hidden = false;
    $('retry').addEventListener('click', loadAgents);
    el.agent.replaceChildren(h('option', {}, 'No agents'));
    return;
  }
  if (state.agents.length === 0) {
    el.agent.replaceChildren(h('option', {}, 'No agents'));
    el.empty.textContent = 'This server serves no agents yet.';
    return;
  }
  el.agent.replaceChildren(...state.agents.map((agent) => h('option', { value: agent.name }, agent.name)));
  const wanted =
    new URLSearchParams(location.search).get('agent') ?? storage('local')?.getItem(AGENT_STORAGE);
  selectAgent(wanted);
  el.message.focus();
}

el.agent.addEventListener('change', () => {
  selectAgent(el.agent.value);
  showView('chat');
});

el.newChat.addEventListener('click', () => {
  if (!state.agent || state.controller) return;
  state.chat = { sessionId: randomId(), items: [] };
  saveChat(state.agent.name, state.chat);
  renderChat();
  setStatus('New conversation.');
  el.message.focus();
});

// ---------------------------------------------------------------- views

/** Shows the chat or another view (workflows.js adds one); each keeps its state while hidden. */
function showView(name) {
  state.view = name;
  for (const node of document.querySelectorAll('[data-view]')) node.hidden = node.dataset.view !== name;
  for (const button of document.querySelectorAll('[data-show-view]'))
    button.setAttribute('aria-pressed', String(button.dataset.showView === name));
}

for (const button of document.querySelectorAll('[data-show-view]'))
  button.addEventListener('click', () => {
    showView(button.dataset.showView);
    if (state.view === 'chat' && !el.message.disabled) el.message.focus();
  });

// ---------------------------------------------------------------- running

function setRunning(running) {
  const ready = Boolean(state.agent);
  el.send.hidden = running;
  el.stop.hidden = !running;
  el.send.disabled = !ready || running;
  el.message.disabled = !ready;
  el.agent.disabled = !ready || running;
  el.newChat.disabled = !ready || running;
  el.log.setAttribute('aria-busy', running ? 'true' : 'false');
}

/** Server-sent events of a fetch body: yields `{ event, data }` per dispatched event. */
async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = '';
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r(?!$)|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let content = colon < 0 ? '' : line.slice(colon + 1);
          if (content.startsWith(' ')) content = content.slice(1);
          if (field === 'event') event = content;
          else if (field === 'data') data.push(content);
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** The events of a fetch body whose data is JSON: yields `{ event, data }` parsed; skips data that is not. */
async function* readJsonEvents(body) {
  for await (const { event, data } of readEvents(body)) {
    let parsed;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue;
    }
    yield { event, data: parsed };
  }
}

async function send(input) {
  const agent = state.agent;
  const chat = state.chat;
  const controller = new AbortController();
  state.controller = controller;
  setRunning(true);
  setStatus(`${agent.name} is working…`);
  addItem({ kind: 'user', text: input });

  const tools = new Map();
  const questions = new Map(); // a question's callId (`<call>.ask-<n>`): its call's entry and state
  let text; // the assistant item receiving text deltas (a tool call starts a new one)
  let finished = false;
  let streamed = false;
  const say = (delta) => {
    const wasNearBottom = nearBottom();
    if (!text) {
      text = { item: { kind: 'assistant', agent: agent.name, text: '' } };
      text.view = addItem(text.item);
      text.view.busy(true);
    }
    streamed = true;
    text.item.text += delta;
    text.view.append(delta);
    keepScrolled(wasNearBottom);
  };
  const endText = () => {
    text?.view.busy(false);
    text = undefined;
  };
  const tool = (id, name) => {
    let entry = tools.get(id);
    if (!entry) {
      endText();
      const item = { kind: 'tool', id, name, status: 'running', args: '' };
      entry = { item, view: addItem(item) };
      tools.set(id, entry);
    }
    return entry;
  };

  const handle = (type, event) => {
    switch (type) {
      case 'text-delta':
        say(event.delta);
        break;
      case 'tool-call-start':
        tool(event.id, event.name);
        setStatus(`${agent.name} is calling ${event.name}…`);
        break;
      case 'tool-call-args': {
        const entry = tool(event.id, '?');
        entry.item.args += event.delta;
        entry.view.update();
        break;
      }
      case 'tool-call-end': {
        const entry = tool(event.id, event.name);
        entry.item.input = event.input;
        entry.item.args = show(event.input);
        entry.view.update();
        break;
      }
      case 'approval-request': {
        if (event.question) {
          // A question belongs to the call asking it: `<callId>.ask-<n>`.
          const entry = tool(event.callId.replace(/\.ask-\d+$/, ''), event.tool);
          const approval = pendingApproval(event);
          entry.item.questions = [...(entry.item.questions ?? []), approval];
          questions.set(event.callId, { entry, approval });
          entry.view.update();
          const focused = document.activeElement;
          if (!focused || focused === document.body || (focused === el.message && !el.message.value))
            entry.view.focusApproval();
          setStatus(`${event.tool} asks you a question.`);
          break;
        }
        const entry = tool(event.callId, event.tool);
        entry.item.input = event.input;
        entry.item.args = show(event.input);
        entry.item.approval = pendingApproval(event);
        entry.view.update();
        const focused = document.activeElement;
        if (!focused || focused === document.body || (focused === el.message && !el.message.value))
          entry.view.focusApproval();
        setStatus(`${agent.name} waits for your approval to run ${event.tool}.`);
        break;
      }
      case 'approval-result': {
        const asked = questions.get(event.callId);
        const entry = asked?.entry ?? tools.get(event.callId);
        const approval = asked?.approval ?? entry?.item.approval;
        if (!approval) break;
        approval.status = event.status;
        approval.reason = event.reason;
        approval.answer = event.answer;
        entry.view.update();
        setStatus(`${agent.name} is working…`);
        break;
      }
      case 'tool-log': {
        const entry = tools.get(event.callId);
        if (!entry) break;
        // The latest lines are the ones worth keeping.
        entry.item.logs = [
          ...(entry.item.logs ?? []).slice(-49),
          {
            level: String(event.level),
            message: clip(String(event.message ?? ''), 2000),
            data: event.data === undefined ? undefined : oneLine(event.data),
          },
        ];
        entry.view.update();
        break;
      }
      case 'tool-result': {
        const { call } = event;
        const entry = tool(call.id, call.name);
        if (call.input !== undefined) {
          entry.item.input = call.input;
          entry.item.args = show(call.input);
        }
        entry.item.status = call.ok ? 'ok' : 'error';
        entry.item.durationMs = call.durationMs;
        entry.item.result = call.ok
          ? show(call.output)
          : `${call.error?.code ? `${call.error.code}: ` : ''}${call.error?.message ?? 'the tool failed'}`;
        if (call.ok && Array.isArray(call.content)) {
          entry.item.content = call.content;
          // Structured data (outputSchema) comes as `output` beside the parts; the parts' words do not.
          if (typeof call.output !== 'string') entry.item.structured = call.output;
        }
        entry.view.update();
        setStatus(`${agent.name} is working…`);
        break;
      }
      case 'run-finish': {
        finished = true;
        const { result } = event;
        if (!streamed && result.text) say(result.text);
        endText();
        if (result.status === 'cancelled') addItem({ kind: 'note', text: 'The run was cancelled.' });
        else if (result.stopReason === 'max-steps')
          addItem({ kind: 'note', text: `Stopped after ${result.steps} steps (the agent's step limit).` });
        break;
      }
      case 'run-error':
        finished = true;
        endText();
        addItem({
          kind: 'error',
          code: event.error?.code,
          message: event.error?.message ?? 'the run failed',
        });
        break;
    }
  };

  try {
    const response = await request(`${API}/agents/${encodeURIComponent(agent.name)}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input, sessionId: chat.sessionId }),
      signal: controller.signal,
    });
    if (!response.ok) throw await responseError(response);
    // The Runs view lists it at once (it refreshes when told a run started here).
    document.dispatchEvent(new CustomEvent('studio:run-started'));
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const result = await response.json();
      handle('run-finish', { result });
    } else {
      for await (const { event, data } of readJsonEvents(response.body)) handle(event, data);
      if (!finished && !controller.signal.aborted)
        throw new ApiError('STREAM_ENDED', 'the connection closed before the run finished');
    }
    setStatus('');
  } catch (error) {
    endText();
    if (controller.signal.aborted) {
      addItem({ kind: 'note', text: 'Stopped.' });
      setStatus('Stopped.');
    } else {
      const message =
        error instanceof ApiError ? error.message : `could not reach the server: ${error.message}`;
      addItem({ kind: 'error', code: error.code ?? 'NETWORK_ERROR', message });
      setStatus('The run failed.');
    }
  } finally {
    for (const { item } of tools.values()) {
      if (item.approval?.status === 'pending') item.approval.status = 'unanswered';
      for (const question of item.questions ?? [])
        if (question.status === 'pending') question.status = 'unanswered';
      if (item.status === 'running') {
        item.status = 'error';
        item.result = 'no result: the run ended first';
      }
    }
    for (const entry of tools.values()) entry.view.update();
    if (state.controller === controller) state.controller = undefined;
    saveChat(agent.name, chat);
    if (state.agent === agent) setRunning(false);
    // Back to the message box, unless the focus is on an error just shown (a decision refused).
    if (!document.activeElement?.matches('[role="alert"]')) el.message.focus();
  }
}

function stop() {
  state.controller?.abort();
}

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = el.message.value.trim();
  if (!input || !state.agent || state.controller) return;
  el.message.value = '';
  void send(input);
});

el.message.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    el.form.requestSubmit();
  }
});

el.stop.addEventListener('click', stop);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && state.view === 'chat' && state.controller && !el.keyDialog.open) stop();
});

if (storage('local')?.getItem(KEY_STORAGE)) el.keyButton.hidden = false;
void loadAgents();

/** An approval-request event as the approval prompt's state (also used by workflows.js). */
function pendingApproval(event) {
  return {
    runId: event.runId,
    callId: event.callId,
    tool: event.tool,
    input: event.input,
    permissions: event.permissions ?? [],
    rule: event.rule,
    question: event.question,
    expiresAt: event.expiresAt,
    status: 'pending',
  };
}
