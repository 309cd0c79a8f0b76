// minisqs console: a client of the REST API (/v1) and the test-control API
// (/_minisqs) on the same origin. No framework and nothing fetched from
// elsewhere; every value from the server goes into the page as text.
'use strict';

const TOKEN_KEY = 'minisqs.token';
const QUEUE_POLL_MS = 2000;
const HISTORY_POLL_MS = 5000;
const MESSAGES_POLL_MS = 3000;
const SERVER_POLL_MS = 3000;

const SQS_ACTIONS = ['CreateQueue', 'DeleteQueue', 'GetQueueUrl', 'ListQueues', 'GetQueueAttributes',
  'SetQueueAttributes', 'PurgeQueue', 'SendMessage', 'SendMessageBatch', 'ReceiveMessage', 'DeleteMessage',
  'DeleteMessageBatch', 'ChangeMessageVisibility', 'ChangeMessageVisibilityBatch', 'TagQueue', 'UntagQueue',
  'ListQueueTags', 'ListDeadLetterSourceQueues', 'AddPermission', 'RemovePermission', 'StartMessageMoveTask',
  'CancelMessageMoveTask', 'ListMessageMoveTasks'];
const FAULT_ERRORS = ['RequestThrottled', 'ThrottlingException', 'ServiceUnavailable', 'InternalError',
  'QueueDoesNotExist', 'OverLimit', 'KmsThrottled', 'AccessDenied'];
// The REST reads the console itself repeats; the requests list can hide them.
const CONSOLE_POLLS = new Set(['ListQueues', 'ListQueueHistories', 'GetQueueHistory', 'PeekMessages',
  'ListMoveTasks', 'ListSubscriptions', 'WhoAmI', 'GetQueue', 'GetQueueTags', 'GetOpenAPI']);

const state = {
  role: null,            // the token's role
  tokensRequired: false,
  opRoles: {},           // operationId -> roles, from the OpenAPI document
  schemas: {},           // the OpenAPI document's schemas, for ranges
  queues: [],
  history: {},           // queue id -> samples
  skewMs: 0,             // server clock minus browser clock
  timers: [],
  renderSeq: 0,
};

// ---- DOM ----

// h builds an element: h('a', {href, class, onclick}, 'text', child, ...).
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'selected') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const $ = (sel, root = document) => root.querySelector(sel);

// replaceKeepingFocus swaps container's children for fresh ones and gives
// focus back to the element with the same data-key, so that a live refresh
// never takes a button from under the keyboard.
function replaceKeepingFocus(container, children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.key : null;
  container.replaceChildren();
  append(container, [children]);
  if (key) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

function svg(tag, attrs) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

function toast(text, kind) {
  const t = h('div', { class: 'toast' + (kind === 'error' ? ' error' : '') }, text);
  $('#toasts').append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 7000 : 3500);
}

// confirmAction asks in a modal dialog and resolves to true on Confirm.
function confirmAction(title, text, okLabel) {
  const dlg = $('#confirm');
  $('#confirm-title').textContent = title;
  $('#confirm-text').textContent = text;
  $('#confirm-ok').textContent = okLabel || 'Confirm';
  return new Promise((resolve) => {
    const done = (ok) => {
      dlg.removeEventListener('close', onClose);
      resolve(ok);
    };
    const onClose = () => done(dlg.returnValue === 'ok');
    dlg.returnValue = 'cancel';
    dlg.addEventListener('close', onClose);
    dlg.showModal();
  });
}

function setupConfirm() {
  const dlg = $('#confirm');
  dlg.querySelector('form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    dlg.close(ev.submitter ? ev.submitter.value : 'cancel');
  });
}

// ---- formatting ----

function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const today = new Date(Date.now() + state.skewMs).toDateString() === d.toDateString();
  const time = d.toLocaleTimeString([], { hour12: false });
  return today ? time : `${d.toLocaleDateString()} ${time}`;
}

function fmtDuration(seconds) {
  const s = Math.abs(Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60 ? (s % 60) + ' s' : ''}`.trim();
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

// relative says how far an instant is from the server's now.
function relative(iso) {
  const secs = (Date.parse(iso) - (Date.now() + state.skewMs)) / 1000;
  if (Math.abs(secs) < 1) return 'now';
  return secs > 0 ? `in ${fmtDuration(secs)}` : `${fmtDuration(secs)} ago`;
}

function fmtNum(n) {
  return Number(n).toLocaleString();
}

// prettyBody pretty-prints a JSON object or array; other text stays as is.
function prettyBody(body) {
  const t = body.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      return { text: JSON.stringify(JSON.parse(t), null, 2), json: true };
    } catch (_) { /* not JSON */ }
  }
  return { text: body, json: false };
}

// ---- API ----

class ApiError extends Error {
  constructor(status, code, message, json) {
    super(message);
    this.status = status;
    this.code = code;
    this.json = json;
  }
  // unavailable: the path is not served here (an older or smaller build).
  get unavailable() {
    return this.status === 404 && (!this.json || this.code === 'not_found') || (this.status >= 400 && !this.json);
  }
}

async function api(method, path, body) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = 'Bearer ' + token;
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    setLive(false);
    throw new ApiError(0, 'network', 'The server does not answer.', false);
  }
  setLive(true);
  const isJSON = (res.headers.get('Content-Type') || '').startsWith('application/json');
  const text = await res.text();
  let data = null;
  if (isJSON && text) {
    try { data = JSON.parse(text); } catch (_) { data = null; }
  }
  if (!res.ok) {
    const err = data && data.error;
    const e = new ApiError(res.status, err ? err.code : '', err ? err.message : `${res.status} ${res.statusText}`, !!err);
    if (res.status === 401 && path !== '/v1/whoami') signIn('Your token is no longer accepted; give another.');
    throw e;
  }
  return data;
}

function setLive(ok) {
  const dot = $('#live-dot');
  if (dot) {
    dot.classList.toggle('stale', !ok);
    dot.title = ok ? 'Connected' : 'The server does not answer';
  }
}

// may says whether the token's role may call an operation of the REST API;
// the test-control API ("control") needs admin.
function may(op) {
  if (op === 'control') return state.role === 'admin';
  const roles = state.opRoles[op];
  return !roles || roles.includes(state.role);
}

// guard disables a control its role may not use, and says why.
function guard(el, op) {
  if (!may(op)) {
    el.disabled = true;
    el.title = `The ${state.role} role may not do this.`;
  }
  return el;
}

function range(schema, field) {
  const s = state.schemas[schema];
  const p = s && s.properties && s.properties[field];
  return p ? { min: p.minimum, max: p.maximum } : {};
}

// ---- polling and routing ----

// every runs fn now and then every ms while the page is shown.
function every(ms, fn) {
  const seq = state.renderSeq;
  const run = () => {
    if (seq !== state.renderSeq || document.hidden) return;
    Promise.resolve(fn()).catch((e) => {
      if (!(e instanceof ApiError)) console.error(e);
    });
  };
  run();
  state.timers.push(setInterval(run, ms));
}

function stopTimers() {
  state.timers.forEach(clearInterval);
  state.timers = [];
}

function route() {
  stopTimers();
  state.renderSeq++;
  const hash = location.hash.replace(/^#/, '') || '/';
  const main = $('#main');
  main.replaceChildren();
  let nav = 'queues';
  const m = hash.match(/^\/queues\/(.+)$/);
  if (m) {
    queuePage(main, decodeURIComponent(m[1]));
  } else if (hash === '/server') {
    nav = 'server';
    serverPage(main);
  } else {
    queuesPage(main);
  }
  document.querySelectorAll('[data-nav]').forEach((a) => {
    if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
}

function queueHref(name) {
  return '#/queues/' + encodeURIComponent(name);
}

async function loadQueues() {
  const out = await api('GET', '/v1/queues?limit=1000');
  state.queues = out.queues;
  return state.queues;
}

function queueByID(id) {
  return state.queues.find((q) => q.id === id);
}

// sources lists the queues whose redrive names q as their DLQ.
function sourcesOf(q) {
  return state.queues.filter((s) => s.redrive && s.redrive.deadLetterQueue === q.id);
}

function sparkline(samples, width, height, label) {
  const el = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'spark', role: 'img' });
  const depth = (s) => s.visible + s.inFlight + s.delayed;
  const title = svg('title');
  el.append(title);
  if (!samples || samples.length === 0) {
    title.textContent = `${label}: no samples yet`;
    const t = svg('text', { x: 0, y: height / 2 + 4, class: 'spark-empty' });
    t.textContent = 'collecting…';
    el.append(t);
    return el;
  }
  const t0 = Date.parse(samples[0].at);
  const t1 = Date.parse(samples[samples.length - 1].at);
  const top = Math.max(1, ...samples.map(depth));
  const x = (s) => (t1 === t0 ? width : ((Date.parse(s.at) - t0) / (t1 - t0)) * width);
  const y = (s) => height - 2 - (depth(s) / top) * (height - 4);
  let line = samples.map((s, i) => `${i ? 'L' : 'M'}${x(s).toFixed(1)},${y(s).toFixed(1)}`).join(' ');
  if (samples.length === 1) line = `M0,${y(samples[0]).toFixed(1)} L${width},${y(samples[0]).toFixed(1)}`;
  el.append(svg('path', { d: `${line} L${width},${height} L${samples.length === 1 ? 0 : x(samples[0]).toFixed(1)},${height} Z`, class: 'area' }));
  el.append(svg('path', { d: line, class: 'line' }));
  const last = samples[samples.length - 1];
  title.textContent = `${label}: ${depth(last)} now, at most ${top} over ${fmtDuration((t1 - t0) / 1000)}`;
  el.setAttribute('aria-label', title.textContent);
  return el;
}

// ---- Queues page ----

function queuesPage(main) {
  document.title = 'Queues · minisqs';
  const count = h('span', { class: 'badge' }, '…');
  const newBtn = guard(h('button', { type: 'button', id: 'new-queue', onclick: () => toggleCreate(true) }, 'New queue'), 'CreateQueue');
  const createPanel = h('section', { class: 'panel', hidden: true, 'aria-labelledby': 'create-title' });
  const filter = h('input', { type: 'search', class: 'search', id: 'filter', placeholder: 'Filter by name  ( / )', 'aria-label': 'Filter queues by name' });
  const updated = h('span', { class: 'muted', 'aria-live': 'off' });
  const body = h('tbody');
  const table = h('table', {},
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'),
      h('th', { scope: 'col', class: 'num' }, 'Visible'), h('th', { scope: 'col', class: 'num' }, 'In flight'),
      h('th', { scope: 'col', class: 'num' }, 'Delayed'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Last 15 min'),
      h('th', { scope: 'col', class: 'hide-narrow' }, 'Dead-letter queue'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Sources'),
      h('th', { scope: 'col' }, h('span', { class: 'muted' }, 'Actions')))),
    body);
  main.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Queues'), count, h('span', { class: 'spacer' }), newBtn),
    createPanel,
    h('section', { class: 'panel' },
      h('div', { class: 'toolbar' }, filter, h('span', { class: 'spacer' }), updated),
      h('div', { class: 'table-wrap' }, table)));

  function toggleCreate(show) {
    createPanel.hidden = !show;
    if (show) {
      createPanel.replaceChildren(createForm(() => toggleCreate(false)));
      $('#new-name').focus();
    } else {
      newBtn.focus();
    }
  }

  const render = () => {
    const f = filter.value.trim().toLowerCase();
    const shown = state.queues.filter((q) => q.name.toLowerCase().includes(f));
    count.textContent = f ? `${shown.length} of ${state.queues.length}` : String(state.queues.length);
    if (shown.length === 0) {
      replaceKeepingFocus(body, h('tr', {}, h('td', { colspan: 9, class: 'empty' },
        state.queues.length ? 'No queue matches the filter.' : 'No queues yet. Create one here or with any SQS client.')));
      return;
    }
    replaceKeepingFocus(body, shown.map(queueRow));
  };
  filter.addEventListener('input', render);
  every(QUEUE_POLL_MS, async () => {
    await loadQueues();
    updated.textContent = 'Updated ' + new Date().toLocaleTimeString([], { hour12: false });
    render();
  });
  if (may('ListQueueHistories')) {
    every(HISTORY_POLL_MS, async () => {
      const out = await api('GET', '/v1/history');
      state.history = Object.fromEntries(out.queues.map((x) => [x.queue, x.samples]));
      render();
    });
  }
}

function queueRow(q) {
  const dlq = q.redrive ? queueByID(q.redrive.deadLetterQueue) : null;
  const sources = sourcesOf(q);
  const del = guard(h('button', {
    type: 'button', class: 'ghost-danger small', dataset: { key: 'del:' + q.id }, 'aria-label': `Delete queue ${q.name}`,
    onclick: () => deleteQueue(q),
  }, 'Delete'), 'DeleteQueue');
  return h('tr', { dataset: { queue: q.name } },
    h('td', { class: 'name' }, h('a', { href: queueHref(q.name), dataset: { key: 'open:' + q.id } }, q.name)),
    h('td', {}, h('span', { class: 'badge ' + q.type }, q.type), sources.length ? [' ', h('span', { class: 'badge dlq' }, 'DLQ')] : null),
    h('td', { class: 'num c-visible', dataset: { count: 'visible' } }, fmtNum(q.counts.visible)),
    h('td', { class: 'num c-inflight', dataset: { count: 'inFlight' } }, fmtNum(q.counts.inFlight)),
    h('td', { class: 'num c-delayed', dataset: { count: 'delayed' } }, fmtNum(q.counts.delayed)),
    h('td', { class: 'hide-narrow' }, sparkline(state.history[q.id], 120, 28, `Depth of ${q.name}`)),
    h('td', { class: 'hide-narrow links' }, dlq ? h('a', { href: queueHref(dlq.name), title: `Dead-letters after ${q.redrive.maxReceiveCount} receives` }, '→ ' + dlq.name)
      : q.redrive ? h('span', { class: 'muted' }, 'deleted') : h('span', { class: 'muted' }, '—')),
    h('td', { class: 'hide-narrow links' }, sources.length ? sources.map((s) => h('a', { href: queueHref(s.name) }, '← ' + s.name)) : h('span', { class: 'muted' }, '—')),
    h('td', {}, del));
}

async function deleteQueue(q) {
  const ok = await confirmAction(`Delete ${q.name}?`, `The queue and its ${fmtNum(q.counts.visible + q.counts.inFlight + q.counts.delayed)} messages are deleted. This cannot be undone.`, 'Delete queue');
  if (!ok) return false;
  try {
    await api('DELETE', '/v1/queues/' + encodeURIComponent(q.id));
    toast(`Deleted ${q.name}.`);
    state.queues = state.queues.filter((x) => x.id !== q.id);
    return true;
  } catch (e) {
    toast(e.message, 'error');
    return false;
  }
}

function numberField(id, label, schema, field, value, hint) {
  const r = range(schema, field);
  return h('div', { class: 'field' },
    h('label', { for: id }, label, hint ? h('span', { class: 'hint' }, ` ${hint}`) : null),
    h('input', { id, name: field, type: 'number', min: r.min, max: r.max, step: 1, value: value === undefined ? '' : String(value), inputmode: 'numeric' }));
}

function dlqOptions(selectedID, fifo, exceptID) {
  return [h('option', { value: '' }, 'None'),
    state.queues.filter((q) => q.id !== exceptID && (q.type === 'fifo') === fifo)
      .map((q) => h('option', { value: q.id, selected: q.id === selectedID }, q.name))];
}

function createForm(close) {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const type = h('select', { id: 'new-type', name: 'type' }, h('option', { value: 'standard' }, 'Standard'), h('option', { value: 'fifo' }, 'FIFO'));
  const dlq = h('select', { id: 'new-dlq' }, dlqOptions('', false));
  type.addEventListener('change', () => dlq.replaceChildren(...dlqOptions('', type.value === 'fifo')));
  const form = h('form', { novalidate: true },
    h('h2', { id: 'create-title' }, 'New queue'),
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'new-name' }, 'Name', h('span', { class: 'hint' }, ' letters, digits, - and _')),
        h('input', { id: 'new-name', name: 'name', required: true, maxlength: 80, autocomplete: 'off', pattern: '[A-Za-z0-9_-]+' })),
      h('div', { class: 'field' }, h('label', { for: 'new-type' }, 'Type'), type),
      numberField('new-vis', 'Visibility timeout', 'CreateQueueRequest', 'visibilityTimeoutSeconds', 30, 's')),
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'new-dlq' }, 'Dead-letter queue'), dlq),
      numberField('new-mrc', 'Max receives', 'RedriveInput', 'maxReceiveCount', 5, 'before dead-lettering')),
    err,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel'),
      h('button', { type: 'submit', id: 'create-submit' }, 'Create queue')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const body = { name: $('#new-name').value.trim(), type: type.value };
    const vis = $('#new-vis').value;
    if (vis !== '') body.visibilityTimeoutSeconds = Number(vis);
    if (dlq.value) body.redrive = { deadLetterQueue: dlq.value, maxReceiveCount: Number($('#new-mrc').value || 5) };
    try {
      const q = await api('POST', '/v1/queues', body);
      toast(`Created ${q.name}.`);
      await loadQueues();
      close();
    } catch (e) {
      err.textContent = e.message;
    }
  });
  form.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') close(); });
  return form;
}

// ---- Queue page ----

function queuePage(main, name) {
  document.title = `${name} · minisqs`;
  const head = h('div');
  const cards = h('div', { class: 'cards' });
  const messages = h('section', { class: 'panel', 'aria-labelledby': 'messages-title' });
  const side = h('div');
  main.append(
    h('div', { class: 'crumbs' }, h('a', { href: '#/' }, 'Queues'), h('span', { class: 'muted' }, ' / ' + name)),
    head, cards,
    h('div', { class: 'grid' }, h('div', {}, messages), side));

  let q = null;
  let samples = [];
  let built = false;
  const view = { states: { visible: true, inFlight: true, delayed: true }, limit: 25, live: true };

  const renderCards = () => {
    replaceKeepingFocus(cards, [
      card('Visible', q.counts.visible, 'c-visible'),
      card('In flight', q.counts.inFlight, 'c-inflight'),
      card('Delayed', q.counts.delayed, 'c-delayed'),
      h('div', { class: 'card spark' }, h('div', { class: 'label' }, 'Depth, last 15 min'), sparkline(samples, 300, 40, `Depth of ${q.name}`)),
    ]);
  };

  const build = () => {
    built = true;
    const isDLQ = sourcesOf(q).length > 0;
    const dlq = q.redrive ? queueByID(q.redrive.deadLetterQueue) : null;
    const purge = guard(h('button', { type: 'button', class: 'ghost-danger', id: 'purge', onclick: purgeQueue }, 'Purge'), 'PurgeQueue');
    const del = guard(h('button', { type: 'button', class: 'ghost-danger', id: 'delete-queue', onclick: async () => {
      if (await deleteQueue(q)) location.hash = '#/';
    } }, 'Delete queue'), 'DeleteQueue');
    head.replaceChildren(
      h('div', { class: 'page-head' },
        h('h1', {}, q.name), h('span', { class: 'badge ' + q.type }, q.type), isDLQ ? h('span', { class: 'badge dlq' }, 'dead-letter queue') : null,
        h('span', { class: 'spacer' }), purge, del),
      h('p', { class: 'muted' },
        'SQS URL ', h('code', {}, q.sqsUrl), ' · ARN ', h('code', {}, q.arn),
        dlq ? [' · dead-letters to ', h('a', { href: queueHref(dlq.name) }, dlq.name), ` after ${q.redrive.maxReceiveCount} receives`] : null,
        isDLQ ? [' · dead-letter queue of ', sourcesOf(q).map((s, i) => [i ? ', ' : '', h('a', { href: queueHref(s.name) }, s.name)])] : null));
    messages.replaceChildren();
    append(messages, [messagesPanel(q, view)]);
    side.replaceChildren();
    append(side, [sendPanel(q, () => refreshMessages()), isDLQ ? redrivePanel(q) : null, settingsPanel(q), tagsPanel(q)]);
  };

  async function purgeQueue() {
    const total = q.counts.visible + q.counts.inFlight + q.counts.delayed;
    if (!await confirmAction(`Purge ${q.name}?`, `All ${fmtNum(total)} messages, in flight or not, are deleted. A queue can be purged once a minute.`, 'Purge')) return;
    try {
      await api('POST', `/v1/queues/${encodeURIComponent(q.id)}/purge`);
      toast(`Purged ${q.name}.`);
      refreshMessages();
    } catch (e) {
      toast(e.message, 'error');
    }
  }

  const refreshMessages = () => {
    const list = $('#messages-list');
    if (list) return loadMessages(q, view, list);
  };

  every(QUEUE_POLL_MS, async () => {
    await loadQueues();
    const found = state.queues.find((x) => x.name === name);
    if (!found) {
      if (!built) {
        main.replaceChildren(h('div', { class: 'panel empty' }, `No queue ${name}. `, h('a', { href: '#/' }, 'All queues')));
      }
      return;
    }
    q = found;
    if (!built) {
      build();
      refreshMessages();
    }
    renderCards();
  });
  if (may('GetQueueHistory')) {
    every(HISTORY_POLL_MS, async () => {
      const ref = q ? q.id : name;
      const out = await api('GET', `/v1/queues/${encodeURIComponent(ref)}/history`);
      samples = out.samples;
      if (q) renderCards();
    });
  }
  if (may('control')) every(10000, syncClock);
  every(MESSAGES_POLL_MS, () => { if (q && view.live) return refreshMessages(); });
  // Deadlines count down between refreshes.
  every(1000, () => document.querySelectorAll('[data-deadline]').forEach((el) => { el.textContent = relative(el.dataset.deadline); }));
}

async function syncClock() {
  try {
    const c = await api('GET', '/_minisqs/clock');
    state.skewMs = Date.parse(c.now) - Date.now();
  } catch (_) { /* without the control API the browser's clock stands in */ }
}

function card(label, value, cls) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'value ' + cls, dataset: { card: label } }, fmtNum(value)));
}

function messagesPanel(q, view) {
  const list = h('div', { id: 'messages-list', 'aria-live': 'off' }, h('p', { class: 'muted' }, 'Loading…'));
  const box = (key, label) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', checked: view.states[key], onchange: (ev) => { view.states[key] = ev.target.checked; loadMessages(q, view, list); } }), label);
  const limit = h('select', { id: 'limit', 'aria-label': 'How many messages', onchange: (ev) => { view.limit = Number(ev.target.value); loadMessages(q, view, list); } },
    [10, 25, 50, 100].map((n) => h('option', { value: n, selected: n === view.limit }, `${n} messages`)));
  return [
    h('h2', { id: 'messages-title' }, 'Messages', h('span', { class: 'hint' }, ' peeked: nothing is received or leased')),
    h('div', { class: 'toolbar' },
      box('visible', 'Visible'), box('inFlight', 'In flight'), box('delayed', 'Delayed'),
      h('span', { class: 'spacer' }), limit,
      h('label', { class: 'check' }, h('input', { type: 'checkbox', checked: view.live, onchange: (ev) => { view.live = ev.target.checked; } }), 'Live'),
      h('button', { type: 'button', class: 'secondary small', onclick: () => loadMessages(q, view, list) }, 'Refresh')),
    may('PeekMessages') ? list : h('p', { class: 'note' }, `The ${state.role} role may not peek at messages.`),
  ];
}

async function loadMessages(q, view, list) {
  if (!may('PeekMessages')) return;
  const states = Object.keys(view.states).filter((k) => view.states[k]);
  if (states.length === 0) {
    replaceKeepingFocus(list, h('p', { class: 'empty' }, 'Choose at least one state.'));
    return;
  }
  const out = await api('GET', `/v1/queues/${encodeURIComponent(q.id)}/messages?limit=${view.limit}&state=${states.join(',')}`);
  const sig = JSON.stringify(out.messages);
  if (list.dataset.sig === sig) return;
  list.dataset.sig = sig;
  if (out.messages.length === 0) {
    replaceKeepingFocus(list, h('p', { class: 'empty' }, 'No messages in the chosen states.'));
    return;
  }
  replaceKeepingFocus(list, out.messages.map((m) => messageCard(q, m, () => { list.dataset.sig = ''; loadMessages(q, view, list); })));
}

function messageCard(q, m, reload) {
  const body = prettyBody(m.body);
  const stateLabel = { visible: 'visible', inFlight: 'in flight', delayed: 'delayed' }[m.state];
  const del = guard(h('button', {
    type: 'button', class: 'ghost-danger small', dataset: { key: 'delmsg:' + m.messageId }, 'aria-label': `Delete message ${m.messageId}`,
    onclick: async () => {
      if (!await confirmAction('Delete this message?', `Message ${m.messageId} is deleted from ${q.name}, whatever its state.`, 'Delete message')) return;
      try {
        await api('DELETE', `/v1/queues/${encodeURIComponent(q.id)}/messages/${encodeURIComponent(m.messageId)}`);
        toast('Deleted the message.');
        reload();
      } catch (e) {
        toast(e.message, 'error');
      }
    },
  }, 'Delete'), 'DeleteMessage');
  const attrs = Object.entries(m.attributes || {});
  const row = (label, ...value) => [h('dt', {}, label), h('dd', {}, ...value)];
  return h('article', { class: 'msg', dataset: { message: m.messageId } },
    h('div', { class: 'msg-head' },
      h('span', { class: 'badge ' + m.state }, stateLabel), body.json ? h('span', { class: 'badge' }, 'JSON') : null,
      h('span', { class: 'id' }, m.messageId), h('span', { class: 'spacer' }), del),
    h('pre', { tabindex: 0, 'aria-label': 'Message body' }, body.text),
    h('dl', {},
      row('Sent', fmtTime(m.sentAt)),
      row('Receives', String(m.receiveCount), m.firstReceivedAt ? h('span', { class: 'muted' }, ` · first ${fmtTime(m.firstReceivedAt)}`) : null),
      m.visibleAt ? row(m.state === 'inFlight' ? 'Visible again' : 'Delivered from', fmtTime(m.visibleAt), ' (', h('span', { dataset: { deadline: m.visibleAt } }, relative(m.visibleAt)), ')') : null,
      row('Expires', fmtTime(m.expiresAt)),
      m.groupId ? row('Group', h('code', {}, m.groupId)) : null,
      m.sequenceNumber ? row('Sequence', h('code', {}, m.sequenceNumber)) : null,
      m.dedupId ? row('Dedup id', h('code', {}, m.dedupId)) : null,
      attrs.length ? row('Attributes', attrs.map(([k, v], i) => [i ? ' ' : '', h('code', {}, `${k}=${v}`)])) : null));
}

// kvEditor edits string pairs; rows() reads them back.
function kvEditor(idPrefix, pairs, keyLabel, valueLabel) {
  const rowsEl = h('div');
  let n = 0;
  const addRow = (k, v) => {
    const i = n++;
    const row = h('div', { class: 'kv' },
      h('input', { 'aria-label': `${keyLabel} ${i + 1}`, placeholder: keyLabel, value: k, class: 'k', id: `${idPrefix}-k${i}` }),
      h('input', { 'aria-label': `${valueLabel} ${i + 1}`, placeholder: valueLabel, value: v, class: 'v', id: `${idPrefix}-v${i}` }),
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${keyLabel.toLowerCase()} ${i + 1}`, onclick: () => row.remove() }, '×'));
    rowsEl.append(row);
    return row;
  };
  pairs.forEach(([k, v]) => addRow(k, v));
  const add = h('button', { type: 'button', class: 'secondary small', onclick: () => $('.k', addRow('', '')).focus() }, `Add ${keyLabel.toLowerCase()}`);
  return {
    el: h('div', {}, rowsEl, add),
    rows: () => [...rowsEl.querySelectorAll('.kv')].map((r) => [$('.k', r).value.trim(), $('.v', r).value]).filter(([k]) => k !== ''),
    clear: () => rowsEl.replaceChildren(),
  };
}

function sendPanel(q, sent) {
  const fifo = q.type === 'fifo';
  const err = h('div', { class: 'error-text', role: 'alert' });
  const attrs = kvEditor('attr', [], 'Attribute', 'Value');
  const form = h('form', { novalidate: true },
    h('h2', { id: 'send-title' }, 'Send a message'),
    h('div', { class: 'field' }, h('label', { for: 'send-body' }, 'Body'), h('textarea', { id: 'send-body', required: true, rows: 4, placeholder: '{"orderId": 42}' })),
    h('div', { class: 'field' }, h('label', {}, 'Attributes', h('span', { class: 'hint' }, ' strings, up to 10')), attrs.el),
    fifo ? h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'send-group' }, 'Group id'), h('input', { id: 'send-group', required: true, autocomplete: 'off' })),
      h('div', { class: 'field' }, h('label', { for: 'send-dedup' }, 'Deduplication id', h('span', { class: 'hint' }, q.contentBasedDedup ? ' optional' : ' required')), h('input', { id: 'send-dedup', autocomplete: 'off' })))
      : h('div', { class: 'row' },
        h('div', { class: 'field' }, h('label', { for: 'send-group', title: 'A fair-queue tenant' }, 'Group id', h('span', { class: 'hint' }, ' optional')), h('input', { id: 'send-group', autocomplete: 'off' })),
        numberField('send-delay', 'Delay', 'SendMessage', 'delaySeconds', undefined, 's')),
    err,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', id: 'send-submit' }, 'Send'), 'SendMessages')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const m = { body: $('#send-body', form).value };
    const pairs = attrs.rows();
    if (pairs.length) m.attributes = Object.fromEntries(pairs);
    const group = $('#send-group', form).value.trim();
    if (group) m.groupId = group;
    if (fifo) {
      const dedup = $('#send-dedup', form).value.trim();
      if (dedup) m.dedupId = dedup;
    } else {
      const delay = $('#send-delay', form).value;
      if (delay !== '') m.delaySeconds = Number(delay);
    }
    try {
      const out = await api('POST', `/v1/queues/${encodeURIComponent(q.id)}/messages`, { messages: [m] });
      const r = out.results[0];
      if (r.error) {
        err.textContent = r.error.message;
        return;
      }
      toast(`Sent message ${r.messageId}${r.sequenceNumber ? ' (sequence ' + r.sequenceNumber + ')' : ''}.`);
      $('#send-body', form).value = '';
      sent();
    } catch (e) {
      err.textContent = e.message;
    }
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'send-title' }, form);
}

function settingsPanel(q) {
  const fifo = q.type === 'fifo';
  const err = h('div', { class: 'error-text', role: 'alert' });
  const S = 'UpdateQueueRequest';
  const dlq = h('select', { id: 'set-dlq' }, dlqOptions(q.redrive ? q.redrive.deadLetterQueue : '', fifo, q.id));
  const cbd = h('input', { type: 'checkbox', id: 'set-cbd', checked: q.contentBasedDedup });
  const form = h('form', { novalidate: true },
    h('h2', { id: 'settings-title' }, 'Settings'),
    h('div', { class: 'row' },
      numberField('set-vis', 'Visibility timeout', S, 'visibilityTimeoutSeconds', q.visibilityTimeoutSeconds, 's'),
      numberField('set-ret', 'Retention', S, 'retentionSeconds', q.retentionSeconds, 's')),
    h('div', { class: 'row' },
      numberField('set-delay', 'Delay', S, 'delaySeconds', q.delaySeconds, 's'),
      numberField('set-wait', 'Receive wait', S, 'receiveWaitSeconds', q.receiveWaitSeconds, 's')),
    fifo ? h('div', { class: 'field' }, h('label', { class: 'check' }, cbd, 'Content-based deduplication')) : null,
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'set-dlq' }, 'Dead-letter queue'), dlq),
      numberField('set-mrc', 'Max receives', 'RedriveInput', 'maxReceiveCount', q.redrive ? q.redrive.maxReceiveCount : 5)),
    err,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', id: 'settings-save' }, 'Save settings'), 'UpdateQueue')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const patch = {};
    const num = (id, field) => {
      const v = $('#' + id, form).value;
      if (v === '') return;
      if (Number(v) !== q[field]) patch[field] = Number(v);
    };
    num('set-vis', 'visibilityTimeoutSeconds');
    num('set-ret', 'retentionSeconds');
    num('set-delay', 'delaySeconds');
    num('set-wait', 'receiveWaitSeconds');
    if (fifo && cbd.checked !== q.contentBasedDedup) patch.contentBasedDedup = cbd.checked;
    const mrc = Number($('#set-mrc', form).value || 5);
    if (dlq.value) {
      if (!q.redrive || q.redrive.deadLetterQueue !== dlq.value || q.redrive.maxReceiveCount !== mrc) {
        patch.redrive = { deadLetterQueue: dlq.value, maxReceiveCount: mrc };
      }
    } else if (q.redrive) {
      patch.redrive = null;
    }
    if (Object.keys(patch).length === 0) {
      toast('Nothing to change.');
      return;
    }
    try {
      const updated = await api('PATCH', `/v1/queues/${encodeURIComponent(q.id)}`, patch);
      Object.assign(q, updated);
      toast('Saved the settings.');
    } catch (e) {
      err.textContent = e.message;
    }
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'settings-title' }, form);
}

function tagsPanel(q) {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const holder = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  let editor = null;
  const form = h('form', { novalidate: true },
    h('h2', { id: 'tags-title' }, 'Tags'), holder, err,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', id: 'tags-save' }, 'Save tags'), 'PutQueueTags')));
  const show = (tags) => {
    editor = kvEditor('tag', Object.entries(tags).sort(), 'Key', 'Value');
    holder.replaceChildren(editor.el);
  };
  api('GET', `/v1/queues/${encodeURIComponent(q.id)}/tags`).then((out) => show(out.tags)).catch((e) => { holder.replaceChildren(h('p', { class: 'note' }, e.message)); });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    if (!editor) return;
    try {
      const out = await api('PUT', `/v1/queues/${encodeURIComponent(q.id)}/tags`, { tags: Object.fromEntries(editor.rows()) });
      show(out.tags);
      toast('Saved the tags.');
    } catch (e) {
      err.textContent = e.message;
    }
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'tags-title' }, form);
}

function redrivePanel(q) {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const sources = sourcesOf(q);
  const dest = h('select', { id: 'redrive-dest' },
    h('option', { value: '' }, `Back to their source queues (${sources.map((s) => s.name).join(', ')})`),
    state.queues.filter((x) => x.id !== q.id && x.type === q.type).map((x) => h('option', { value: x.id }, x.name)));
  const tasks = h('div', { id: 'redrive-tasks' });
  const form = h('form', { novalidate: true },
    h('h2', { id: 'redrive-title' }, 'Redrive'),
    h('p', { class: 'muted' }, 'Moves the visible messages out of this dead-letter queue. A moved message is a new message: new id, no receives.'),
    h('div', { class: 'field' }, h('label', { for: 'redrive-dest' }, 'Destination'), dest),
    numberField('redrive-rate', 'Messages a second', 'StartMoveTaskRequest', 'maxPerSecond', undefined, 'optional, at most 500'),
    err,
    h('div', { class: 'actions' }, guard(h('button', { type: 'submit', id: 'redrive-start' }, 'Start redrive'), 'StartMoveTask')),
    h('h3', {}, 'Tasks'), tasks);
  const load = async () => {
    if (!may('ListMoveTasks')) {
      tasks.replaceChildren(h('p', { class: 'note' }, `The ${state.role} role may not list move tasks.`));
      return;
    }
    const out = await api('GET', `/v1/queues/${encodeURIComponent(q.id)}/move-tasks`);
    if (out.tasks.length === 0) {
      replaceKeepingFocus(tasks, h('p', { class: 'muted' }, 'No redrive yet.'));
      return;
    }
    replaceKeepingFocus(tasks, out.tasks.map((t) => taskRow(q, t, load)));
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const body = {};
    if (dest.value) body.destination = dest.value;
    const rate = $('#redrive-rate', form).value;
    if (rate !== '') body.maxPerSecond = Number(rate);
    try {
      await api('POST', `/v1/queues/${encodeURIComponent(q.id)}/move-tasks`, body);
      toast('Started the redrive.');
      load();
    } catch (e) {
      err.textContent = e.message;
    }
  });
  every(QUEUE_POLL_MS, load);
  return h('section', { class: 'panel', 'aria-labelledby': 'redrive-title' }, form);
}

function progressBar(pct) {
  const bar = h('div');
  bar.style.width = pct + '%'; // through the CSSOM, which the page's CSP allows
  return h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': pct, 'aria-label': 'Redrive progress' }, bar);
}

function taskRow(q, t, reload) {
  const pct = t.toMove ? Math.min(100, Math.round((t.moved / t.toMove) * 100)) : 100;
  const dst = t.destination ? queueByID(t.destination) : null;
  const cls = { running: 'inFlight', completed: 'ok', cancelling: 'delayed', cancelled: '', failed: 'bad' }[t.status];
  return h('div', { class: 'task', dataset: { task: t.status } },
    h('div', { class: 'task-head' },
      h('span', { class: 'badge ' + cls }, t.status),
      h('span', {}, `${fmtNum(t.moved)} of ${fmtNum(t.toMove)} moved`),
      h('span', { class: 'muted' }, '→ ', dst ? h('a', { href: queueHref(dst.name) }, dst.name) : t.destination ? 'a deleted queue' : 'source queues'),
      h('span', { class: 'muted' }, `· ${fmtTime(t.startedAt)}`),
      t.status === 'running' ? guard(h('button', {
        type: 'button', class: 'secondary small', dataset: { key: 'cancel-task' },
        onclick: async () => {
          try {
            await api('POST', `/v1/queues/${encodeURIComponent(q.id)}/move-tasks/cancel`);
            toast('Cancelling the redrive.');
            reload();
          } catch (e) {
            toast(e.message, 'error');
          }
        },
      }, 'Cancel'), 'CancelMoveTask') : null),
    progressBar(pct),
    t.failureReason ? h('div', { class: 'error-text' }, t.failureReason) : null);
}

// ---- Server page ----

function serverPage(main) {
  document.title = 'Server · minisqs';
  const clock = h('section', { class: 'panel', 'aria-labelledby': 'clock-title' });
  const faults = h('section', { class: 'panel', 'aria-labelledby': 'faults-title' });
  const requests = h('section', { class: 'panel', 'aria-labelledby': 'requests-title' });
  const subs = h('section', { class: 'panel', 'aria-labelledby': 'subs-title' });
  main.append(h('div', { class: 'page-head' }, h('h1', {}, 'Server')),
    h('div', { class: 'grid' }, h('div', {}, faults), h('div', {}, clock)), requests, subs);

  if (!may('control')) {
    const note = h('p', { class: 'note' }, `The test-control API needs the admin role; this token is ${state.role}.`);
    clock.append(h('h2', { id: 'clock-title' }, 'Clock'), note.cloneNode(true));
    faults.append(h('h2', { id: 'faults-title' }, 'Fault rules'), note.cloneNode(true));
    requests.append(h('h2', { id: 'requests-title' }, 'Recent requests'), note);
  } else {
    clockPanel(clock);
    faultsPanel(faults);
    requestsPanel(requests);
  }
  subscriptionsPanel(subs);
}

function unavailable(panel, title, id, path, e) {
  panel.replaceChildren(h('h2', { id }, title), h('p', { class: 'note', dataset: { unavailable: path } },
    `Not available: this minisqs does not serve ${path} (${e.status === 0 ? 'no answer' : 'HTTP ' + e.status}).`));
}

function clockPanel(panel) {
  const now = h('div', { class: 'value mono', id: 'clock-now' }, '…');
  const offset = h('div', { class: 'muted', id: 'clock-offset' });
  const err = h('div', { class: 'error-text', role: 'alert' });
  const advance = async (seconds) => {
    err.textContent = '';
    try {
      const c = await api('POST', '/_minisqs/clock/advance', { seconds });
      show(c);
      toast(`Advanced the clock by ${fmtDuration(seconds)}.`);
    } catch (e) {
      err.textContent = e.message;
    }
  };
  const custom = h('input', { type: 'number', id: 'advance-seconds', min: 0.001, step: 'any', placeholder: 'seconds', 'aria-label': 'Seconds to advance' });
  const form = h('form', { class: 'row', novalidate: true },
    h('div', { class: 'field' }, custom),
    h('div', { class: 'field' }, h('button', { type: 'submit', id: 'advance' }, 'Advance')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const s = Number(custom.value);
    if (!(s > 0)) {
      err.textContent = 'Give a number of seconds above 0.';
      return;
    }
    advance(s);
  });
  const show = (c) => {
    state.skewMs = Date.parse(c.now) - Date.now();
    now.textContent = new Date(c.now).toISOString().replace('T', ' ').replace('Z', ' UTC');
    offset.textContent = c.offsetSeconds ? `${fmtDuration(c.offsetSeconds)} ahead of real time (${c.offsetSeconds} s)` : 'On real time';
  };
  panel.append(h('h2', { id: 'clock-title' }, 'Clock'),
    h('p', { class: 'muted' }, 'Every time rule runs on this clock: visibility timeouts, delays, retention, cooldowns.'),
    now, offset,
    h('div', { class: 'toolbar' },
      [[60, '+1 min'], [300, '+5 min'], [3600, '+1 hour'], [86400, '+1 day']].map(([s, label]) =>
        h('button', { type: 'button', class: 'secondary small', dataset: { advance: s }, onclick: () => advance(s) }, label))),
    form, err);
  every(SERVER_POLL_MS, async () => {
    try {
      show(await api('GET', '/_minisqs/clock'));
    } catch (e) {
      if (e.unavailable) unavailable(panel, 'Clock', 'clock-title', '/_minisqs/clock', e);
    }
  });
}

function faultsPanel(panel) {
  const body = h('tbody');
  const err = h('div', { class: 'error-text', role: 'alert' });
  const actions = [...new Set(['*', ...SQS_ACTIONS, ...Object.keys(state.opRoles)])];
  const effect = h('select', { id: 'fault-effect' },
    h('option', { value: 'error' }, 'Answer an error'), h('option', { value: 'latencyMs' }, 'Add latency'), h('option', { value: 'drop' }, 'Drop the connection'));
  const errorField = h('div', { class: 'field' }, h('label', { for: 'fault-error' }, 'Error code'),
    h('input', { id: 'fault-error', list: 'fault-errors', value: 'RequestThrottled', autocomplete: 'off' }),
    h('datalist', { id: 'fault-errors' }, FAULT_ERRORS.map((c) => h('option', { value: c }))));
  const latencyField = h('div', { class: 'field', hidden: true }, h('label', { for: 'fault-latency' }, 'Latency', h('span', { class: 'hint' }, ' ms')),
    h('input', { id: 'fault-latency', type: 'number', min: 1, value: 500 }));
  effect.addEventListener('change', () => {
    errorField.hidden = effect.value !== 'error';
    latencyField.hidden = effect.value !== 'latencyMs';
  });
  const form = h('form', { novalidate: true },
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'fault-action' }, 'Action'),
        h('input', { id: 'fault-action', list: 'fault-actions', value: 'SendMessage', autocomplete: 'off' }),
        h('datalist', { id: 'fault-actions' }, actions.map((a) => h('option', { value: a })))),
      h('div', { class: 'field' }, h('label', { for: 'fault-queue' }, 'Queue', h('span', { class: 'hint' }, ' optional')),
        h('input', { id: 'fault-queue', list: 'fault-queues', autocomplete: 'off' }),
        h('datalist', { id: 'fault-queues' }, state.queues.map((q) => h('option', { value: q.name }))))),
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'fault-effect' }, 'Effect'), effect),
      errorField, latencyField),
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'fault-probability' }, 'Probability', h('span', { class: 'hint' }, ' 0 to 1')),
        h('input', { id: 'fault-probability', type: 'number', min: 0, max: 1, step: 'any', value: 1 })),
      h('div', { class: 'field' }, h('label', { for: 'fault-count' }, 'Count', h('span', { class: 'hint' }, ' hits, empty for no limit')),
        h('input', { id: 'fault-count', type: 'number', min: 1, step: 1 }))),
    err,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', id: 'faults-clear', onclick: clear }, 'Clear all'),
      h('button', { type: 'submit', id: 'fault-add' }, 'Add fault')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const rule = { action: $('#fault-action', form).value.trim() };
    const queue = $('#fault-queue', form).value.trim();
    if (queue) rule.queue = queue;
    if (effect.value === 'error') rule.error = $('#fault-error', form).value.trim();
    else if (effect.value === 'latencyMs') rule.latencyMs = Number($('#fault-latency', form).value);
    else rule.drop = true;
    const p = $('#fault-probability', form).value;
    if (p !== '') rule.probability = Number(p);
    const c = $('#fault-count', form).value;
    if (c !== '') rule.count = Number(c);
    try {
      await api('POST', '/_minisqs/faults', rule);
      toast(`Added a fault on ${rule.action}.`);
      load();
    } catch (e) {
      err.textContent = e.message;
    }
  });
  async function clear() {
    try {
      await api('DELETE', '/_minisqs/faults');
      toast('Cleared every fault rule.');
      load();
    } catch (e) {
      err.textContent = e.message;
    }
  }
  const load = async () => {
    let out;
    try {
      out = await api('GET', '/_minisqs/faults');
    } catch (e) {
      if (e.unavailable) unavailable(panel, 'Fault rules', 'faults-title', '/_minisqs/faults', e);
      return;
    }
    if (out.faults.length === 0) {
      replaceKeepingFocus(body, h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No fault rules: every request is served.')));
      return;
    }
    replaceKeepingFocus(body, out.faults.map((f) => h('tr', { dataset: { fault: f.id } },
      h('td', {}, h('code', {}, f.action), f.queue ? h('div', { class: 'muted' }, f.queue) : null),
      h('td', {}, f.error ? h('code', {}, f.error) : f.latencyMs ? `+${f.latencyMs} ms` : f.drop ? 'drop' : '—'),
      h('td', { class: 'num' }, f.probability === undefined ? '1' : String(f.probability)),
      h('td', { class: 'num' }, f.count === undefined || f.count === null ? '∞' : String(f.count)),
      h('td', { class: 'num' }, String(f.hits || 0)),
      h('td', {}, h('button', {
        type: 'button', class: 'ghost-danger small', dataset: { key: 'fault:' + f.id }, 'aria-label': `Remove fault ${f.id}`,
        onclick: async () => {
          try {
            await api('DELETE', '/_minisqs/faults/' + encodeURIComponent(f.id));
            load();
          } catch (e) {
            toast(e.message, 'error');
          }
        },
      }, 'Remove')))));
  };
  panel.append(h('h2', { id: 'faults-title' }, 'Fault rules'),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Action'), h('th', {}, 'Effect'), h('th', { class: 'num' }, 'Prob.'),
        h('th', { class: 'num' }, 'Count'), h('th', { class: 'num' }, 'Hits'), h('th', {}, h('span', { class: 'muted' }, 'Remove')))),
      body)),
    h('h3', {}, 'Add a fault'), form);
  every(SERVER_POLL_MS, load);
}

function requestsPanel(panel) {
  const body = h('tbody');
  const proto = h('select', { id: 'requests-protocol', 'aria-label': 'Protocol' },
    h('option', { value: '' }, 'Every protocol'), ['query', 'json', 'rest'].map((p) => h('option', { value: p }, p)));
  const hide = h('input', { type: 'checkbox', id: 'requests-hide-console', checked: true });
  const limit = h('select', { id: 'requests-limit', 'aria-label': 'How many requests' },
    [25, 50, 100, 200].map((n) => h('option', { value: n, selected: n === 25 }, `Last ${n}`)));
  let last = [];
  const render = () => {
    const shown = last.filter((r) => (!proto.value || r.protocol === proto.value) &&
      !(hide.checked && r.protocol === 'rest' && CONSOLE_POLLS.has(r.action))).slice(0, Number(limit.value));
    if (shown.length === 0) {
      replaceKeepingFocus(body, h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'No requests to show.')));
      return;
    }
    replaceKeepingFocus(body, shown.map((r) => h('tr', {},
      h('td', { class: 'mono' }, fmtTime(r.time)),
      h('td', {}, h('span', { class: 'badge' }, r.protocol)),
      h('td', {}, r.action),
      h('td', {}, r.queue || h('span', { class: 'muted' }, '—')),
      h('td', { class: 'num' }, h('span', { class: 'badge ' + (r.status >= 400 || r.status === 0 ? 'bad' : 'ok') }, r.status === 0 ? 'dropped' : String(r.status))),
      h('td', {}, r.errorCode ? h('code', {}, r.errorCode) : ''),
      h('td', { class: 'num' }, `${Number(r.durationMs).toFixed(1)} ms`),
      h('td', { class: 'hide-narrow' }, r.faultId ? h('code', {}, r.faultId) : ''))));
  };
  proto.addEventListener('change', render);
  hide.addEventListener('change', render);
  limit.addEventListener('change', render);
  panel.append(h('h2', { id: 'requests-title' }, 'Recent requests'),
    h('div', { class: 'toolbar' }, proto, limit, h('label', { class: 'check' }, hide, "Hide the console's own reads")),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Protocol'), h('th', {}, 'Action'), h('th', {}, 'Queue'),
        h('th', { class: 'num' }, 'Status'), h('th', {}, 'Error'), h('th', { class: 'num' }, 'Took'), h('th', { class: 'hide-narrow' }, 'Fault'))),
      body)));
  every(SERVER_POLL_MS, async () => {
    try {
      last = (await api('GET', '/_minisqs/requests?limit=1000')).requests;
      render();
    } catch (e) {
      if (e.unavailable) unavailable(panel, 'Recent requests', 'requests-title', '/_minisqs/requests', e);
    }
  });
}

function subscriptionsPanel(panel) {
  const body = h('tbody');
  panel.append(h('h2', { id: 'subs-title' }, 'Push subscriptions'),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Queue'), h('th', {}, 'Endpoint'), h('th', { class: 'num' }, 'Batch'),
        h('th', {}, 'Last delivery'), h('th', {}, 'Status'))),
      body)));
  if (!may('ListSubscriptions')) {
    body.append(h('tr', {}, h('td', { colspan: 5, class: 'empty' }, `The ${state.role} role may not list subscriptions.`)));
    return;
  }
  every(SERVER_POLL_MS, async () => {
    if (state.queues.length === 0) await loadQueues();
    const out = await api('GET', '/v1/subscriptions');
    if (out.subscriptions.length === 0) {
      replaceKeepingFocus(body, h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No queue has a push subscription.')));
      return;
    }
    replaceKeepingFocus(body, out.subscriptions.map((s) => {
      const q = queueByID(s.queue);
      const d = s.lastDelivery;
      const ok = d && d.status >= 200 && d.status < 300;
      return h('tr', {},
        h('td', {}, q ? h('a', { href: queueHref(q.name) }, q.name) : s.queue),
        h('td', { class: 'mono' }, s.endpoint),
        h('td', { class: 'num' }, `${s.batchSize} / ${s.maxWaitSeconds} s`),
        h('td', {}, d ? `${fmtTime(d.at)} · ${d.messages} messages` : h('span', { class: 'muted' }, 'none yet')),
        h('td', {}, d ? h('span', { class: 'badge ' + (ok ? 'ok' : 'bad') }, d.status ? String(d.status) : 'no answer') : '',
          d && d.error ? h('div', { class: 'error-text' }, d.error) : null));
    }));
  });
}

// ---- session ----

function renderSession() {
  const el = $('#session');
  el.replaceChildren(h('span', { class: 'live-dot', id: 'live-dot', title: 'Connected' }));
  if (!state.role) return;
  if (state.tokensRequired) {
    el.append(h('span', { class: 'role-text' }, 'Signed in as'), h('span', { class: 'badge', id: 'role' }, state.role),
      h('button', { type: 'button', class: 'secondary small', id: 'sign-out', onclick: () => {
        sessionStorage.removeItem(TOKEN_KEY);
        state.role = null;
        signIn();
      } }, 'Sign out'));
  } else {
    el.append(h('span', { class: 'role-text' }, 'Open server: no token needed'));
  }
}

function signIn(message) {
  stopTimers();
  state.renderSeq++;
  state.role = null;
  renderSession();
  const err = h('div', { class: 'error-text', role: 'alert' }, message || '');
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'off', required: true });
  const form = h('form', { class: 'panel signin', novalidate: true },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'This minisqs has REST API tokens. Give one; it is kept for this browser tab only.'),
    h('div', { class: 'field' }, h('label', { for: 'token' }, 'Token'), input),
    err,
    h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'sign-in' }, 'Sign in')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    if (!await whoAmI()) {
      sessionStorage.removeItem(TOKEN_KEY);
      err.textContent = 'That token is not valid.';
      input.select();
      return;
    }
    route();
  });
  $('#main').replaceChildren(form);
  input.focus();
}

// whoAmI learns the token's role; false when a token is needed.
async function whoAmI() {
  try {
    const me = await api('GET', '/v1/whoami');
    state.role = me.role;
    state.tokensRequired = me.tokensRequired;
    renderSession();
    return true;
  } catch (e) {
    if (e.status === 401) return false;
    throw e;
  }
}

async function boot() {
  setupConfirm();
  document.addEventListener('keydown', (ev) => {
    if (ev.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
      const f = $('#filter');
      if (f) {
        ev.preventDefault();
        f.focus();
      }
    }
  });
  try {
    const doc = await api('GET', '/v1/openapi.json');
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        if (op && op.operationId) state.opRoles[op.operationId] = op['x-minisqs-roles'];
      }
    }
    state.schemas = doc.components.schemas;
  } catch (e) {
    $('#main').replaceChildren(h('p', { class: 'note' }, `The REST API does not answer: ${e.message}`));
    return;
  }
  window.addEventListener('hashchange', () => { if (state.role) route(); });
  if (!await whoAmI()) {
    signIn();
    return;
  }
  route();
}

boot();
