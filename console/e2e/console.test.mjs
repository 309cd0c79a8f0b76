// End-to-end tests of the web console: a real minisqs (MINISQS_URL), real
// SQS clients (the aws CLI) and Debian's headless Chromium driven by
// playwright-core. console_e2e_test.go starts the servers and runs this
// file; it can also run by hand against any minisqs:
//
//   MINISQS_URL=http://127.0.0.1:9324 node --test console/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const BASE = process.env.MINISQS_URL;
const TOKEN_BASE = process.env.MINISQS_TOKEN_URL; // a server with tokens, or none
const ADMIN_TOKEN = process.env.MINISQS_ADMIN_TOKEN;
const INSPECTOR_TOKEN = process.env.MINISQS_INSPECTOR_TOKEN;
const SHOTS = process.env.MINISQS_SCREENSHOTS || new URL('./screenshots/', import.meta.url).pathname;
const CHROMIUM = process.env.MINISQS_CHROMIUM || '/usr/bin/chromium';
const AWS = process.env.MINISQS_AWS_CLI || 'aws';
// A run's own prefix, so that reruns against one server do not collide.
const RUN = 'e2e' + Date.now().toString(36).slice(-5);

if (!BASE) throw new Error('MINISQS_URL is not set: give the URL of a running minisqs');
mkdirSync(SHOTS, { recursive: true });
console.log(`screenshots: ${SHOTS}`);

const run = promisify(execFile);

// sqs runs the aws CLI against the server and parses its JSON answer.
async function sqs(...args) {
  const { stdout } = await run(AWS, ['--endpoint-url', BASE, '--region', 'us-east-1', '--output', 'json', 'sqs', ...args], {
    env: { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_PAGER: '', AWS_DEFAULT_REGION: 'us-east-1' },
    timeout: 60_000,
  });
  return stdout.trim() ? JSON.parse(stdout) : {};
}

const queueUrl = (name) => `${BASE}/000000000000/${name}`;

async function rest(method, path, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = 'Bearer ' + token;
  const res = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null };
}

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
});
after(async () => {
  await browser?.close();
});

// page opens a fresh tab at 1280 x 800 that fails the test on any page error.
async function newPage(t, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...opts });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  t.after(async () => {
    await context.close();
    assert.deepEqual(errors, [], 'the page logged errors');
  });
  return page;
}

// shot saves the whole page, without the passing notices.
async function shot(page, name) {
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}
const row = (page, name) => page.locator(`tr[data-queue="${name}"]`);

test('queues made through SQS appear, with live counts, DLQ links and a filter', async (t) => {
  const dlq = `${RUN}-orders-dlq`;
  const src = `${RUN}-orders`;
  const fifo = `${RUN}-events.fifo`;
  const dlqArn = (await sqs('get-queue-attributes', '--queue-url', (await sqs('create-queue', '--queue-name', dlq)).QueueUrl,
    '--attribute-names', 'QueueArn')).Attributes.QueueArn;
  await sqs('create-queue', '--queue-name', src, '--attributes',
    JSON.stringify({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }) }));
  await sqs('create-queue', '--queue-name', fifo, '--attributes', JSON.stringify({ FifoQueue: 'true', ContentBasedDeduplication: 'true' }));
  for (let i = 0; i < 3; i++) await sqs('send-message', '--queue-url', queueUrl(src), '--message-body', `order ${i}`);

  const page = await newPage(t);
  await page.goto(BASE + '/console/');
  await row(page, src).waitFor();
  await assert.doesNotReject(row(page, fifo).waitFor());
  assert.equal(await row(page, src).locator('[data-count="visible"]').textContent(), '3');
  assert.match(await row(page, fifo).textContent(), /fifo/);
  // DLQ links both ways.
  assert.equal(await row(page, src).getByRole('link', { name: `→ ${dlq}` }).count(), 1);
  assert.equal(await row(page, dlq).getByRole('link', { name: `← ${src}` }).count(), 1);

  // Counts follow SQS without a reload.
  await sqs('send-message', '--queue-url', queueUrl(src), '--message-body', 'order 3');
  await page.waitForFunction((n) => document.querySelector(`tr[data-queue="${n}"] [data-count="visible"]`)?.textContent === '4', src, { timeout: 10_000 });
  const late = `${RUN}-late`;
  await sqs('create-queue', '--queue-name', late);
  await row(page, late).waitFor({ timeout: 10_000 });

  // The filter, from the keyboard.
  await page.keyboard.press('/');
  await page.keyboard.type('fifo');
  await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-queue]').length >= 1);
  assert.equal(await row(page, src).count(), 0);
  assert.equal(await row(page, fifo).count(), 1);
  await page.fill('#filter', RUN);
  await row(page, src).waitFor();
  // A sparkline has its samples once the sampler has run.
  await page.waitForFunction((n) => document.querySelector(`tr[data-queue="${n}"] svg path.line`), src, { timeout: 15_000 });
  await shot(page, 'queues');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'queues-dark');
});

test('create and delete a queue from the console; delete asks first', async (t) => {
  const page = await newPage(t);
  await page.goto(BASE + '/console/');
  const name = `${RUN}-made-here`;
  await page.click('#new-queue');
  await page.fill('#new-name', name);
  await page.selectOption('#new-type', 'fifo');
  await page.click('#create-submit');
  await row(page, name).waitFor();
  const got = await rest('GET', '/v1/queues/' + name);
  assert.equal(got.json.type, 'fifo');

  // Cancel keeps it; confirm deletes it.
  await row(page, name).getByRole('button', { name: `Delete queue ${name}` }).click();
  await page.locator('#confirm').getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await rest('GET', '/v1/queues/' + name)).status, 200);
  await row(page, name).getByRole('button', { name: `Delete queue ${name}` }).click();
  await page.click('#confirm-ok');
  await row(page, name).waitFor({ state: 'detached' });
  assert.equal((await rest('GET', '/v1/queues/' + name)).status, 404);
});

test('send, peek (in flight and delayed too) and delete one message', async (t) => {
  const name = `${RUN}-peek`;
  await sqs('create-queue', '--queue-name', name);
  await sqs('send-message', '--queue-url', queueUrl(name), '--message-body', 'later', '--delay-seconds', '600');
  await sqs('send-message', '--queue-url', queueUrl(name), '--message-body', 'taken');
  const taken = await sqs('receive-message', '--queue-url', queueUrl(name), '--visibility-timeout', '900');
  assert.equal(taken.Messages[0].Body, 'taken');

  const page = await newPage(t);
  await page.goto(`${BASE}/console/#/queues/${encodeURIComponent(name)}`);
  await page.fill('#send-body', '{"orderId":42,"items":["book","pen"]}');
  await page.getByRole('button', { name: 'Add attribute' }).click();
  await page.fill('#attr-k0', 'kind');
  await page.fill('#attr-v0', 'new');
  await page.click('#send-submit');

  const sent = page.locator('article.msg', { hasText: '"orderId": 42' });
  await sent.waitFor({ timeout: 10_000 });
  // Pretty-printed JSON, its attribute and state.
  assert.match(await sent.locator('pre').textContent(), /\{\n {2}"orderId": 42,\n {2}"items": \[/);
  assert.match(await sent.textContent(), /kind=new/);
  assert.match(await sent.locator('.badge').first().textContent(), /visible/);
  const inFlight = page.locator('article.msg', { hasText: 'taken' });
  assert.match(await inFlight.textContent(), /in flight/);
  assert.match(await inFlight.textContent(), /Receives1/);
  assert.match(await inFlight.textContent(), /Visible again.*\(in 1[45] min/);
  const delayed = page.locator('article.msg', { hasText: 'later' });
  assert.match(await delayed.textContent(), /delayed.*Delivered from.*\(in (9|10) min/s);

  // The message arrived for SQS consumers too, with its attribute.
  const viaSQS = await sqs('receive-message', '--queue-url', queueUrl(name), '--message-attribute-names', 'All');
  assert.equal(JSON.parse(viaSQS.Messages[0].Body).orderId, 42);
  assert.equal(viaSQS.Messages[0].MessageAttributes.kind.StringValue, 'new');
  await page.waitForFunction(() => [...document.querySelectorAll('article.msg')].filter((a) => /in flight/.test(a.textContent)).length === 2, null, { timeout: 10_000 });
  // The depth sparkline has its first sample within the sampler's 5 s.
  await page.locator('.card.spark path.line').waitFor({ timeout: 15_000 });
  await shot(page, 'queue');
  await page.setViewportSize({ width: 420, height: 900 });
  await shot(page, 'queue-narrow');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Delete the delayed message, after confirming.
  await delayed.getByRole('button', { name: /Delete message/ }).click();
  await page.click('#confirm-ok');
  await delayed.waitFor({ state: 'detached', timeout: 10_000 });
  const left = await rest('GET', `/v1/queues/${name}/messages?state=visible,inFlight,delayed`);
  assert.deepEqual(left.json.messages.map((m) => m.body).sort(), ['taken', '{"orderId":42,"items":["book","pen"]}']);
});

test('settings and tags are edited with the API\'s checks', async (t) => {
  const name = `${RUN}-settings`;
  await sqs('create-queue', '--queue-name', name, '--tags', 'team=pay');
  const page = await newPage(t);
  await page.goto(`${BASE}/console/#/queues/${encodeURIComponent(name)}`);
  await page.locator('#tag-k0').waitFor();
  assert.equal(await page.inputValue('#tag-k0'), 'team');
  await page.fill('#set-vis', '99999');
  await page.click('#settings-save');
  // The API's own check and wording.
  await page.locator('#settings-save').locator('xpath=ancestor::form').locator('.error-text', { hasText: 'visibilityTimeoutSeconds must be from 0 to 43200' }).waitFor();
  await page.fill('#set-vis', '45');
  await page.click('#settings-save');
  await page.getByText('Saved the settings.').waitFor();
  await page.getByRole('button', { name: 'Add key' }).click();
  await page.fill('#tag-k1', 'env');
  await page.fill('#tag-v1', 'dev');
  await page.click('#tags-save');
  await page.getByText('Saved the tags.').waitFor();
  const attrs = await sqs('get-queue-attributes', '--queue-url', queueUrl(name), '--attribute-names', 'VisibilityTimeout');
  assert.equal(attrs.Attributes.VisibilityTimeout, '45');
  const tags = await sqs('list-queue-tags', '--queue-url', queueUrl(name));
  assert.deepEqual(tags.Tags, { team: 'pay', env: 'dev' });
});

test('redrive a DLQ back to its source, with progress, then purge', async (t) => {
  const dlq = `${RUN}-redrive-dlq`;
  const src = `${RUN}-redrive`;
  const dlqUrl = (await sqs('create-queue', '--queue-name', dlq)).QueueUrl;
  const dlqArn = (await sqs('get-queue-attributes', '--queue-url', dlqUrl, '--attribute-names', 'QueueArn')).Attributes.QueueArn;
  await sqs('create-queue', '--queue-name', src, '--attributes',
    JSON.stringify({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) }));
  for (let i = 0; i < 5; i++) await sqs('send-message', '--queue-url', queueUrl(src), '--message-body', `poison ${i}`);
  // Received once and released: the next receive dead-letters them.
  const got = await sqs('receive-message', '--queue-url', queueUrl(src), '--max-number-of-messages', '10', '--visibility-timeout', '0');
  assert.equal(got.Messages.length, 5);
  await sqs('receive-message', '--queue-url', queueUrl(src), '--max-number-of-messages', '10');
  assert.equal((await rest('GET', `/v1/queues/${dlq}`)).json.counts.visible, 5);

  const page = await newPage(t);
  await page.goto(`${BASE}/console/#/queues/${encodeURIComponent(dlq)}`);
  await page.locator('#redrive-start').waitFor();
  assert.match(await page.locator('#redrive-dest option').first().textContent(), new RegExp(`source queues \\(${src}\\)`));
  await page.click('#redrive-start');
  await page.locator('.task[data-task="completed"]').waitFor({ timeout: 15_000 });
  assert.match(await page.locator('.task').first().textContent(), /5 of 5 moved/);
  assert.equal(await page.locator('.task .progress').first().getAttribute('aria-valuenow'), '100');
  await page.waitForFunction(() => document.querySelector('[data-card="Visible"]')?.textContent === '0', null, { timeout: 10_000 });
  assert.equal((await rest('GET', `/v1/queues/${src}`)).json.counts.visible, 5);
  await shot(page, 'redrive');

  // Purge the source, after confirming.
  await page.goto(`${BASE}/console/#/queues/${encodeURIComponent(src)}`);
  await page.waitForFunction(() => document.querySelector('[data-card="Visible"]')?.textContent === '5', null, { timeout: 10_000 });
  await page.click('#purge');
  await page.locator('#confirm-text').getByText(/All 5 messages/).waitFor();
  await page.click('#confirm-ok');
  await page.waitForFunction(() => document.querySelector('[data-card="Visible"]')?.textContent === '0', null, { timeout: 10_000 });
  const empty = await sqs('receive-message', '--queue-url', queueUrl(src));
  assert.equal(empty.Messages, undefined);
});

// The test-control API: faults, the clock and the requests ring.
test('server page: add and clear a fault that an SQS client meets', async (t) => {
  const page = await newPage(t);
  const name = `${RUN}-faulty`;
  await sqs('create-queue', '--queue-name', name);
  await page.goto(BASE + '/console/#/server');
  await page.fill('#fault-action', 'SendMessage');
  await page.fill('#fault-queue', name);
  await page.fill('#fault-error', 'QueueDoesNotExist');
  await page.fill('#fault-count', '1');
  await page.click('#fault-add');
  t.after(() => rest('DELETE', '/_minisqs/faults'));
  const fault = page.locator('tr[data-fault]', { hasText: name });
  await fault.waitFor();
  assert.match(await fault.textContent(), /QueueDoesNotExist/);
  await assert.rejects(sqs('send-message', '--queue-url', queueUrl(name), '--message-body', 'x'), /NonExistentQueue|QueueDoesNotExist/);
  await page.waitForFunction((n) => [...document.querySelectorAll('tr[data-fault]')].some((r) => r.textContent.includes(n) && r.cells[4].textContent === '1'), name, { timeout: 10_000 });
  // The request shows in the ring, with its fault.
  await page.locator('#requests-title').locator('xpath=..').locator('tr', { hasText: 'SendMessage' }).filter({ hasText: 'NonExistentQueue' }).first().waitFor({ timeout: 10_000 });
  await shot(page, 'server-faults');
  await page.click('#faults-clear');
  await fault.waitFor({ state: 'detached' });
  await sqs('send-message', '--queue-url', queueUrl(name), '--message-body', 'served');
});

test('server page: advance the clock and see a delay end', async (t) => {
  const page = await newPage(t);
  const name = `${RUN}-clock`;
  await sqs('create-queue', '--queue-name', name);
  await sqs('send-message', '--queue-url', queueUrl(name), '--message-body', 'in a while', '--delay-seconds', '900');
  await page.goto(BASE + '/console/#/server');
  const before = await page.locator('#clock-now').textContent();
  await page.locator('#clock-now', { hasNotText: '…' }).waitFor();
  await page.fill('#advance-seconds', '901');
  await page.click('#advance');
  await page.locator('#clock-offset', { hasText: /ahead of real time/ }).waitFor();
  assert.notEqual(await page.locator('#clock-now').textContent(), before);
  const got = await sqs('receive-message', '--queue-url', queueUrl(name));
  assert.equal(got.Messages[0].Body, 'in a while');
});

test('server page: subscriptions and the requests ring', async (t) => {
  const name = `${RUN}-pushed`;
  await rest('POST', '/v1/queues', { name });
  await rest('PUT', `/v1/queues/${name}/subscription`, { endpoint: 'http://127.0.0.1:9/hook', batchSize: 5 });
  const page = await newPage(t);
  await page.goto(BASE + '/console/#/server');
  const sub = page.locator('#subs-title').locator('xpath=..').locator('tr', { hasText: name });
  await sub.waitFor();
  assert.match(await sub.textContent(), /http:\/\/127\.0\.0\.1:9\/hook/);
  await shot(page, 'server');
  await rest('DELETE', `/v1/queues/${name}/subscription`);
  await sqs('list-queues', '--queue-name-prefix', RUN);
  await page.locator('#requests-title').locator('xpath=..').locator('td', { hasText: 'ListQueues' }).first().waitFor({ timeout: 10_000 });
});

test('with tokens: a token is asked for, kept for the tab, and the role limits the actions', { skip: !TOKEN_BASE && 'no server with tokens given (MINISQS_TOKEN_URL)' }, async (t) => {
  await fetch(`${TOKEN_BASE}/v1/queues`, { method: 'POST', headers: { Authorization: 'Bearer ' + ADMIN_TOKEN }, body: JSON.stringify({ name: `${RUN}-guarded` }) });
  const page = await newPage(t);
  await page.goto(TOKEN_BASE + '/console/');
  await page.locator('#token').waitFor();
  await page.fill('#token', 'wrong');
  await page.click('#sign-in');
  await page.getByText('That token is not valid.').waitFor();
  await page.fill('#token', INSPECTOR_TOKEN);
  await page.keyboard.press('Enter');
  await page.locator(`tr[data-queue="${RUN}-guarded"]`).waitFor();
  assert.equal(await page.locator('#role').textContent(), 'inspector');
  assert.equal(await page.isDisabled('#new-queue'), true);
  assert.equal(await page.locator(`tr[data-queue="${RUN}-guarded"] button`).isDisabled(), true);
  // The token is the tab's: a reload keeps it, another tab asks again.
  assert.equal(await page.evaluate(() => sessionStorage.getItem('minisqs.token')), INSPECTOR_TOKEN);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  await page.reload();
  await page.locator(`tr[data-queue="${RUN}-guarded"]`).waitFor();
  const other = await newPage(t);
  await other.goto(TOKEN_BASE + '/console/');
  await other.locator('#token').waitFor();
  // The queue page offers an inspector what it may do: peek, not purge.
  await page.goto(`${TOKEN_BASE}/console/#/queues/${RUN}-guarded`);
  await page.locator('#messages-list').waitFor();
  assert.equal(await page.isDisabled('#purge'), true);
  assert.equal(await page.isDisabled('#send-submit'), true);
  await page.goto(TOKEN_BASE + '/console/#/server');
  await page.getByText('The test-control API needs the admin role').first().waitFor();
  await page.click('#sign-out');
  await page.locator('#token').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('minisqs.token')), null);
});
